"""The decoder's citations in LangChain's standard terms: ``content_blocks`` annotations, ``output_version="v1"``
content, and the streamed message, over the packaged model."""

from langchain_core.messages import AIMessageChunk
from langchain_grounded_rag import ChatGroundedRAG, GroundedRAGLLM

from ..conftest import CORPUS, QUESTION


def test_a_chat_message_carries_the_citations_as_standard_annotations():
    chat = ChatGroundedRAG(max_tokens=20)
    msg = chat.invoke(QUESTION, documents=CORPUS)
    meta = msg.response_metadata
    assert meta["citations"] and not meta["abstained"] and 0 <= meta["support"] <= 1, msg.content
    [block] = msg.content_blocks
    assert block["type"] == "text" and block["text"] == msg.content
    spans = [(a["start_index"], a["end_index"]) for a in block["annotations"]]
    assert spans == [(c["answer_start"], c["answer_end"]) for c in meta["citations"]]
    for a, c in zip(block["annotations"], meta["citations"]):
        assert a["type"] == "citation" and a["extras"]["document"] == c["document"]
        assert a["extras"]["source"] == CORPUS[c["document"] - 1].metadata["source"]
        assert a.get("cited_text") == (c["quote"] or None)
    usage = msg.usage_metadata  # the prompt's tokens are counted: the question with the documents
    assert usage["input_tokens"] > sum(len(d.page_content.split()) for d in CORPUS), usage
    assert usage["total_tokens"] == usage["input_tokens"] + usage["output_tokens"]
    v1 = ChatGroundedRAG(max_tokens=20, output_version="v1").invoke(QUESTION, documents=CORPUS)
    [v1_block] = v1.content
    assert v1_block["text"] == msg.content
    assert [(a["start_index"], a["end_index"]) for a in v1_block["annotations"]] == spans


def test_a_streamed_message_ends_with_the_citations():
    chat = ChatGroundedRAG(max_tokens=20)
    merged = None
    for chunk in chat.stream(QUESTION, documents=CORPUS):
        merged = chunk if merged is None else merged + chunk
    assert isinstance(merged, AIMessageChunk)
    whole = chat.invoke(QUESTION, documents=CORPUS)
    assert merged.content == whole.content
    assert merged.response_metadata["citations"] == whole.response_metadata["citations"]
    assert [b.get("annotations") for b in merged.content_blocks] == [b.get("annotations") for b in whole.content_blocks] \
        or len(merged.content_blocks) == len(whole.content_blocks)


def test_an_llm_generation_info_carries_support_and_abstention():
    llm = GroundedRAGLLM(decoding={"max_new_tokens": 20})
    info = llm.generate(["Who wrote the Linux kernel?"], documents=CORPUS[1:2]).generations[0][0].generation_info
    assert info["abstained"] is True and info["finish_reason"] == "abstain" and info["citations"] == []
    answered = llm.generate([QUESTION], documents=CORPUS).generations[0][0].generation_info
    assert answered["abstained"] is False and answered["support"] >= llm.decoding.support_threshold
