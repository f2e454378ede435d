import math

import pytest
from langchain_core.documents import Document as LCDocument
from langchain_grounded_rag.llms import GroundedRAGLLM, fingerprint, to_documents

from grounded_rag import Document


def test_documents_and_scores_come_from_metadata():
    docs, scores = to_documents(
        [LCDocument(page_content="a", metadata={"relevance_score": 0.7, "title": "T"}, id="x"), "b text"], None
    )
    assert docs[0] == Document(text="a", title="T", id="x", score=0.7)
    assert docs[1].text == "b text" and docs[1].score is None and scores is None
    with pytest.raises(TypeError, match="document 1"):
        to_documents([3], None)


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
