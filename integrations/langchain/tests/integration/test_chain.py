"""End to end: real Chroma, packaged embeddings, packaged model, through LCEL."""

from langchain_grounded_rag import NO_DOCUMENTS_ANSWER, ScoredRetriever, create_grounded_rag_chain

from ..conftest import QUESTION, make_store


def test_chain_returns_answer_context_citations_and_trust(retriever, llm):
    chain = create_grounded_rag_chain(retriever, llm)
    out = chain.invoke({"input": QUESTION})
    assert set(out) == {"input", "context", "answer", "citations", "trust"}
    assert out["context"][0].id == "tower", "the contradicting passage is the best match"
    scores = [d.metadata["relevance_score"] for d in out["context"]]
    assert scores == sorted(scores, reverse=True) and all(-1 <= s <= 1 for s in scores)
    assert 0 < out["trust"] < 1
    assert out["answer"] == llm.invoke(QUESTION, documents=out["context"])
    for c in out["citations"]:
        assert c["id"] == out["context"][c["doc"] - 1].id


def test_chain_streaming_matches_invoke(retriever, llm):
    chain = create_grounded_rag_chain(retriever, llm)
    chunks = list(chain.stream({"input": QUESTION}))
    answer = "".join(c["answer"] for c in chunks if "answer" in c)
    assert sum("answer" in c for c in chunks) > 2
    assert answer == chain.invoke({"input": QUESTION})["answer"]


def test_citations_are_mapped_back_to_sources(retriever, llm):
    chain = create_grounded_rag_chain(retriever, llm.model_copy(update={"decoding": llm.decoding.model_copy(
        update={"system_prompt": "Use only provided documents. Always cite the document you use as [Doc k]."})}))
    out = chain.invoke({"input": "Which document says where the Eiffel Tower is? Answer with Doc and its number."})
    for c in out["citations"]:
        assert c["source"] == out["context"][c["doc"] - 1].metadata["source"]


def test_empty_store_falls_back_with_zero_trust(llm):
    empty = ScoredRetriever(vectorstore=make_store([]), k=3)
    out = create_grounded_rag_chain(empty, llm).invoke({"input": QUESTION})
    assert out["answer"] == NO_DOCUMENTS_ANSWER and out["trust"] == 0.0 and out["citations"] == []
