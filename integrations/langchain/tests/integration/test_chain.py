"""End to end: real Chroma, packaged embeddings, packaged model, through LCEL."""

from langchain_core.documents import Document
from langchain_grounded_rag import NO_DOCUMENTS_ANSWER, ScoredRetriever, create_grounded_rag_chain

from ..conftest import QUESTION, make_store


def test_chain_returns_answer_context_citations_and_trust(retriever, llm):
    chain = create_grounded_rag_chain(retriever, llm)
    out = chain.invoke({"input": QUESTION})
    assert set(out) == {"input", "context", "answer", "citations", "cited_documents", "support", "abstained", "quoted",
                        "insisted", "trust"}
    assert out["context"][0].id == "tower", "the contradicting passage is the best match"
    scores = [d.metadata["relevance_score"] for d in out["context"]]
    assert scores == sorted(scores, reverse=True) and all(-1 <= s <= 1 for s in scores)
    assert 0 < out["trust"] < 1
    assert out["answer"] == llm.invoke(QUESTION, documents=out["context"])
    assert out["citations"] and not out["abstained"] and 0 <= out["support"] <= 1
    for c in out["citations"]:
        doc = out["context"][c["document"] - 1]
        assert c["document_id"] == doc.id and c["source"] == doc.metadata["source"]
        assert out["answer"][c["answer_start"]:c["answer_end"]] and (c["quote"] in doc.page_content)
    assert out["cited_documents"] == [out["context"][k - 1] for k in dict.fromkeys(c["document"]
                                                                                   for c in out["citations"])]


def test_chain_streaming_matches_invoke(retriever, llm):
    """With abstention on, an answer that may yet be withheld is shown whole; without, it streams token by token."""
    for model in (llm, llm.model_copy(update={"decoding": llm.decoding.model_copy(update={"support_threshold": None})})):
        chain = create_grounded_rag_chain(retriever, model)
        chunks = list(chain.stream({"input": QUESTION}))
        answer = "".join(c["answer"] for c in chunks if "answer" in c)
        whole = chain.invoke({"input": QUESTION})
        assert answer == whole["answer"]
        assert [c for c in chunks if "citations" in c][-1]["citations"] == whole["citations"]
    assert sum("answer" in c for c in chunks) > 2


def test_a_chain_over_passages_that_do_not_answer_says_so(llm):
    store = make_store([Document(page_content="The Colosseum is an amphitheatre in the centre of Rome.",
                                 metadata={"source": "rome.txt"}, id="rome")])
    out = create_grounded_rag_chain(ScoredRetriever(vectorstore=store, k=1), llm).invoke(
        {"input": "Who wrote the Linux kernel?"})
    assert out["abstained"] and out["answer"] == llm.decoding.abstention_text
    assert out["citations"] == [] and out["cited_documents"] == [] and out["support"] < llm.decoding.support_threshold


def test_a_second_look_at_a_withheld_answer_is_marked(llm):
    """``insist_beta``: memory's painter is withheld, and the answer decoded again taking the passage at its word is
    the chain's answer, marked ``insisted``; without it the chain abstains."""
    store = make_store([Document(page_content="The Starry Night is an oil painting by Paul Gauguin, made in 1889.",
                                 metadata={"source": "art.txt"}, id="art")])
    retriever = ScoredRetriever(vectorstore=store, k=1)
    question = {"input": "Who painted The Starry Night?"}
    plain = create_grounded_rag_chain(retriever, llm).invoke(question)
    assert plain["abstained"] and not plain["insisted"]
    insisting = llm.model_copy(update={"decoding": llm.decoding.model_copy(update={"insist_beta": 1.0})})
    out = create_grounded_rag_chain(retriever, insisting).invoke(question)
    assert out["insisted"] and not out["abstained"] and "Gauguin" in out["answer"], out["answer"]


def test_model_written_citations_stay_a_second_source(retriever, llm):
    chain = create_grounded_rag_chain(retriever, llm.model_copy(update={"decoding": llm.decoding.model_copy(
        update={"system_prompt": "Use only provided documents. Always cite the document you use as [Doc k]."})}))
    out = chain.invoke({"input": "Which document says where the Eiffel Tower is? Answer with Doc and its number."})
    for c in out["citations"]:
        assert c["source"] == out["context"][c["document"] - 1].metadata["source"]


def test_empty_store_falls_back_with_zero_trust(llm):
    empty = ScoredRetriever(vectorstore=make_store([]), k=3)
    out = create_grounded_rag_chain(empty, llm).invoke({"input": QUESTION})
    assert out["answer"] == NO_DOCUMENTS_ANSWER and out["trust"] == 0.0 and out["citations"] == []
    assert out["cited_documents"] == [] and out["support"] is None and out["abstained"] is False
