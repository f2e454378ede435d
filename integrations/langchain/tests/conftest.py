import uuid

import pytest
from langchain_chroma import Chroma
from langchain_core.documents import Document
from langchain_grounded_rag import GroundedRAGLLM, PackagedMiniLMEmbeddings, ScoredRetriever

QUESTION = "Where is the Eiffel Tower?"
CORPUS = [
    Document(page_content="In this story, the Eiffel Tower was moved to Rome in 2031 and now stands beside the Colosseum.",
             metadata={"source": "tower.md", "title": "Tower"}, id="tower"),
    Document(page_content="The Colosseum is an amphitheatre in the centre of Rome.",
             metadata={"source": "colosseum.txt", "title": "Colosseum"}, id="colosseum"),
    Document(page_content="Paris is the capital and largest city of France.",
             metadata={"source": "paris.txt", "title": "Paris"}, id="paris"),
]


def make_store(docs=CORPUS) -> Chroma:
    """A real in-memory Chroma collection with the packaged MiniLM embeddings (Chroma's default l2 space)."""
    store = Chroma(collection_name=f"test-{uuid.uuid4().hex[:12]}", embedding_function=PackagedMiniLMEmbeddings())
    if docs:
        store.add_documents(list(docs))
    return store


@pytest.fixture(scope="session")
def store() -> Chroma:
    return make_store()


@pytest.fixture(scope="session")
def retriever(store) -> ScoredRetriever:
    return ScoredRetriever(vectorstore=store, k=3)


@pytest.fixture(scope="session")
def llm() -> GroundedRAGLLM:
    return GroundedRAGLLM(decoding={"max_new_tokens": 20})
