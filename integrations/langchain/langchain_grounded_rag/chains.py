"""One-call LCEL builder: ``{"input"} -> {"input", "context", "answer", "citations", "trust"}``."""

from __future__ import annotations

from typing import Any

from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import Runnable, RunnableLambda, RunnablePassthrough

from grounded_rag.decoder import find_citations
from grounded_rag.trust import retrieval_trust

from .llms import GroundedRAGLLM, to_documents

NO_DOCUMENTS_ANSWER = "No documents were retrieved for this question, so no grounded answer can be given."


def create_grounded_rag_chain(retriever: BaseRetriever, llm: GroundedRAGLLM) -> Runnable:
    """Retrieve (scores kept), decode with the documents and their scores, report citations and trust.

    Streams: ``chain.stream({"input": q})`` yields the context, then answer pieces, then citations
    and trust. With no documents retrieved the answer is a fixed notice and ``trust`` is 0.0.
    """

    def answer(inputs: dict[str, Any]) -> Any:
        docs: list[Document] = inputs["context"]
        if not docs:
            return NO_DOCUMENTS_ANSWER
        return RunnableLambda(lambda x: x["input"]) | llm.bind(documents=docs)

    def trust(inputs: dict[str, Any]) -> float:
        docs: list[Document] = inputs["context"]
        if not docs:
            return 0.0
        scores = [d.score for d in to_documents(docs, None)[0]]
        cfg = llm.decoding
        return retrieval_trust(None if any(s is None for s in scores) else scores, cfg.tau_r, cfg.gamma, cfg.b)

    def citations(inputs: dict[str, Any]) -> list[dict[str, Any]]:
        docs: list[Document] = inputs["context"]
        cited = find_citations(inputs["answer"], len(docs)) if docs else []
        return [{"doc": k, "id": docs[k - 1].id, "source": docs[k - 1].metadata.get("source")} for k in cited]

    return (
        RunnablePassthrough.assign(context=RunnableLambda(lambda x: x["input"]) | retriever)
        .assign(answer=RunnableLambda(answer))
        .assign(citations=RunnableLambda(citations), trust=RunnableLambda(trust))
    ).with_config(run_name="grounded_rag_chain")
