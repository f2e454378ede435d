"""LangChain's own standard test suite for retrievers, over a real Chroma store."""

from langchain_core.documents import Document
from langchain_grounded_rag import ScoredRetriever
from langchain_tests.integration_tests import RetrieversIntegrationTests

from ..conftest import CORPUS, make_store

_STORE = None


class TestScoredRetrieverStandard(RetrieversIntegrationTests):
    @property
    def retriever_constructor(self) -> type[ScoredRetriever]:
        return ScoredRetriever

    @property
    def retriever_constructor_params(self) -> dict:
        global _STORE
        if _STORE is None:
            extra = [Document(page_content=d.page_content + " (copy)", metadata=d.metadata, id=f"{d.id}-copy") for d in CORPUS]
            _STORE = make_store(CORPUS + extra)
        return {"vectorstore": _STORE}

    @property
    def retriever_query_example(self) -> str:
        return "Where is the Eiffel Tower?"
