import math
import re

import pytest
from langchain_core.documents import Document as LCDocument
from langchain_grounded_rag.llms import GroundedRAGLLM, fingerprint, to_documents

from grounded_rag import Document, InputError


def test_documents_and_scores_come_from_metadata():
    docs, scores = to_documents([LCDocument(page_content="a", metadata={"relevance_score": 0.7, "title": "T"}, id="x")], None)
    assert docs[0] == Document(text="a", title="T", id="x") and scores == [0.7]
    docs, scores = to_documents(["b text"], None)
    assert docs[0].text == "b text" and docs[0].score is None and scores is None
    with pytest.raises(InputError, match="no score while others do"):
        to_documents([LCDocument(page_content="a", metadata={"relevance_score": 0.7}), "b text"], None)
    with pytest.raises(InputError, match="document 1"):
        to_documents([3], None)
    with pytest.raises(InputError, match="empty page_content"):
        to_documents([LCDocument(page_content=" ")], None)


def test_scored_pairs_and_score_spaces():
    pair = (LCDocument(page_content="a", id="x"), 0.4)
    docs, scores = to_documents([pair], None, "l2")
    assert docs[0].id == "x" and scores == [pytest.approx(0.8)]
    with pytest.raises(InputError, match="score_space"):
        to_documents([pair], None)
    with pytest.raises(InputError, match="outside the cosine range"):
        to_documents([(LCDocument(page_content="a"), 7.0)], None, "relevance")
    with pytest.raises(InputError, match=r"score 1 is 7.0, read as 'l2' a cosine similarity of -2.5, outside"):
        to_documents([(LCDocument(page_content="a"), 7.0)], None, "l2")  # the score as given, and as read
    with pytest.raises(InputError, match="outside the cosine range"):
        to_documents([LCDocument(page_content="a", metadata={"relevance_score": -3.0})], None)


def test_fingerprint_changes_with_documents_and_scores():
    a = [Document(text="x")]
    assert fingerprint(a, None) != fingerprint([Document(text="y")], None)
    assert fingerprint(a, [0.1]) != fingerprint(a, [0.2])
    assert fingerprint(a, [0.1]) == fingerprint([Document(text="x")], [0.1])


def test_llm_params_and_type():
    llm = GroundedRAGLLM(decoding={"rho_max": 2.0, "stop": ["\n\n"]})
    assert llm._llm_type == "grounded-rag"
    assert llm._identifying_params["rho_max"] == 2.0 and "documents_fingerprint" not in llm._identifying_params
    assert llm._config(["END"], {"rho_max": 1.0}).stop == ["\n\n", "END"]
    assert math.isclose(llm._config(None, {"rho_max": 1.0}).rho_max, 1.0)
    with pytest.raises(InputError, match="unknown keyword"):
        llm._config(None, {"rho_mx": 16})
    with pytest.raises(InputError, match="rho_max"):
        llm._config(None, {"rho_max": -1})
    with pytest.raises(InputError, match="rho_mx"):
        GroundedRAGLLM(rho_mx=16)
    # LangChain's standard parameters, as ChatGroundedRAG takes them (max_tokens was refused as an extra input)
    llm = GroundedRAGLLM(max_tokens=4, temperature=0.5, decoding={"max_new_tokens": 32})
    assert llm._config(None, {}).max_new_tokens == 4 and llm._config(None, {}).temperature == 0.5
    assert llm._identifying_params["max_new_tokens"] == 4
    assert llm._config(None, {"max_new_tokens": 6}).max_new_tokens == 6, "a call's own setting wins"
    with pytest.raises(InputError, match="max_new_tokens"):
        GroundedRAGLLM(max_tokens=0)


def test_grounded_prompt_value_carries_question_and_documents():
    from langchain_grounded_rag import GroundedPromptTemplate
    from langchain_grounded_rag.llms import split_prompt

    value = GroundedPromptTemplate().invoke(
        {"question": "Where?", "context": [LCDocument(page_content="In Rome.", metadata={"relevance_score": 0.6})]})
    question, docs = split_prompt(value)
    assert question == "Where?" and docs == [Document(text="In Rome.", score=0.6)]
    assert "In Rome." in value.to_string() and "Where?" in value.to_string(), "other models get a plain RAG prompt"
    with pytest.raises(InputError, match="RunnablePassthrough"):
        GroundedPromptTemplate().invoke({"question": "Where?"})


@pytest.mark.parametrize("wrapper", ["llm", "chat"])
def test_bad_nested_decoding_settings_are_named_by_their_path(wrapper):
    from langchain_grounded_rag import ChatGroundedRAG

    cls = {"llm": GroundedRAGLLM, "chat": ChatGroundedRAG}[wrapper]
    with pytest.raises(InputError) as info:
        cls(decoding={"method": "beam", "rho_mx": 3, "rho_max": -1})
    message = str(info.value)
    assert "decoding.method='beam'" in message and "unknown setting 'decoding.rho_mx'" in message
    assert "decoding.rho_max=-1" in message and "Value error" not in message


def test_free_form_metadata_and_numpy_scores_are_read_as_users_write_them():
    """LangChain metadata is free-form: a numeric title or id and a ``Path`` source are text (they failed with
    pydantic's 'valid string' error); a score that is no number is named as such (a raw float() error); a NumPy
    score, as FAISS returns, is a number (it was refused); one Document is not a list of its fields."""
    from pathlib import Path

    import numpy as np

    docs, _ = to_documents([LCDocument(page_content="a", metadata={"title": 2024, "id": 7})], None)
    assert docs[0].title == "2024" and docs[0].id == "7"
    docs, _ = to_documents([LCDocument(page_content="a", metadata={"source": Path("docs/it.md")})], None)
    assert docs[0].id == "docs/it.md" and docs[0].metadata == {"source": "docs/it.md"}
    for bad in ("high", [0.7]):
        with pytest.raises(InputError, match=re.escape(f"document 1 has the score {bad!r}; a score must be a number")):
            to_documents([LCDocument(page_content="a", metadata={"relevance_score": bad})], None)
    _, scores = to_documents([(LCDocument(page_content="a"), np.float32(0.5))], None, "cosine")
    assert scores == [pytest.approx(0.5)] and type(scores[0]) is float
    _, scores = to_documents(["a", "b"], np.array([0.25, 0.5], dtype=np.float32))
    assert scores == [0.25, 0.5]
    with pytest.raises(InputError, match="documents is one Document, not a list of them"):
        to_documents(LCDocument(page_content="a"), None)
    with pytest.raises(InputError, match="scores is a set"):
        to_documents(["a", "b"], {0.25, 0.5})
