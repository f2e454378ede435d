"""The grounded LLM and synthesizer through LlamaIndex's own objects: real Chroma, packaged
embeddings, packaged model."""

import asyncio
import uuid

import chromadb
import pytest
from llama_index.core import Document, StorageContext, VectorStoreIndex
from llama_index.core.base.response.schema import Response, StreamingResponse
from llama_index.core.postprocessor import SimilarityPostprocessor
from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.schema import ImageNode, NodeWithScore, TextNode
from llama_index.llms.grounded_rag import NO_DOCUMENTS_ANSWER, GroundedRAG, GroundedSynthesizer, packaged_embedding
from llama_index.llms.grounded_rag.synthesizer import nodes_to_documents
from llama_index.vector_stores.chroma import ChromaVectorStore

from grounded_rag import InputError
from grounded_rag.trust import normalize_scores

QUESTION = "Where is the Eiffel Tower?"
TEXTS = {
    "tower": "In this story, the Eiffel Tower was moved to Rome in 2031 and now stands beside the Colosseum.",
    "colosseum": "The Colosseum is an amphitheatre in the centre of Rome.",
    "paris": "Paris is the capital and largest city of France.",
}


@pytest.fixture(scope="module")
def llm() -> GroundedRAG:
    return GroundedRAG(decoding={"max_new_tokens": 20})


@pytest.fixture(scope="module")
def index() -> VectorStoreIndex:
    collection = chromadb.EphemeralClient().get_or_create_collection(f"li-{uuid.uuid4().hex[:10]}")
    store = ChromaVectorStore(chroma_collection=collection)
    docs = [Document(text=t, id_=k, metadata={"title": k}) for k, t in TEXTS.items()]
    return VectorStoreIndex.from_documents(
        docs, storage_context=StorageContext.from_defaults(vector_store=store), embed_model=packaged_embedding()
    )


def test_the_settings_every_llama_index_llm_takes():
    llm = GroundedRAG(temperature=0, max_tokens=12, context_window=2048)
    assert (llm.decoding.temperature, llm.decoding.max_new_tokens) == (0, 12)
    assert (llm.metadata.context_window, llm.metadata.num_output) == (2048, 12)
    with pytest.raises(InputError, match="max_new_tokens"):
        GroundedRAG(max_tokens=0)


def test_metadata_complete_and_stream_complete(llm):
    meta = llm.metadata
    assert meta.context_window == 8192 and meta.num_output == 20 and meta.model_name == "smollm2-135m-instruct"
    full = llm.complete(QUESTION, documents=list(TEXTS.values()), scores=[0.7, 0.2, 0.3])
    assert full.text and full.additional_kwargs["trust_source"] == "scores"
    chunks = list(llm.stream_complete(QUESTION, documents=list(TEXTS.values()), scores=[0.7, 0.2, 0.3]))
    assert "".join(c.delta for c in chunks) == chunks[-1].text == full.text
    free = list(llm.stream_complete(QUESTION, documents=list(TEXTS.values()), scores=[0.7, 0.2, 0.3],
                                    support_threshold=None))  # without abstention, token by token
    assert len(free) > 2 and free[-1].text == full.text
    assert all(b.text.startswith(a.text) for a, b in zip(chunks, chunks[1:])), "text is cumulative"
    assert chunks[-1].additional_kwargs["trust"] == full.additional_kwargs["trust"]


def test_retriever_query_engine_carries_scores_trust_trace_and_sources(llm, index):
    retriever = index.as_retriever(similarity_top_k=3)
    engine = RetrieverQueryEngine(retriever, response_synthesizer=GroundedSynthesizer(llm))
    response = engine.query(QUESTION)
    assert isinstance(response, Response) and response.response
    assert response.source_nodes[0].node.ref_doc_id == "tower"
    expected = normalize_scores([n.score for n in response.source_nodes], "exp_l2")
    numbers = response.metadata["document_numbers"]  # the passages read, as numbered among the retrieved ones
    assert len(numbers) + response.metadata["irrelevant_documents"] == len(response.source_nodes)
    assert response.metadata["scores_used"] == pytest.approx([expected[k - 1] for k in numbers])
    assert 0 < response.metadata["trust"] < 1 and response.metadata["trust_source"] == "scores"
    assert response.metadata["trace_summary"]["tokens"] > 0
    assert response.metadata["cited_node_ids"] and not response.metadata["abstained"]
    for node_id in response.metadata["cited_node_ids"]:
        assert node_id in {n.node.node_id for n in response.source_nodes}
    marked = {n.node.node_id: n.node.metadata for n in response.source_nodes}
    assert {i for i, m in marked.items() if m["cited"]} == set(response.metadata["cited_node_ids"])
    for i, m in marked.items():
        text = next(n.node.text for n in response.source_nodes if n.node.node_id == i)
        assert all(text[c["start"]:c["end"]] == c["quote"] for c in m["cited_spans"] if c["start"] is not None)
        assert "cited_spans" not in next(n.node for n in response.source_nodes if n.node.node_id == i).get_content(
            metadata_mode="llm"), "the marks never reach a model"
    assert all("cited" not in n.node.metadata for n in retriever.retrieve(QUESTION)), \
        "the index's own nodes are left as they were"
    docs, scores = nodes_to_documents(response.source_nodes, "exp_l2")
    assert [d.title for d in docs] == [n.node.metadata["title"] for n in response.source_nodes]
    direct = llm.decoder.generate(QUESTION, docs, scores, llm.decoding)
    assert response.response == direct.text


def test_node_postprocessors_stay_in_effect(llm, index):
    engine = RetrieverQueryEngine(
        index.as_retriever(similarity_top_k=3),
        response_synthesizer=GroundedSynthesizer(llm),
        node_postprocessors=[SimilarityPostprocessor(similarity_cutoff=0.4)],
    )
    response = engine.query(QUESTION)
    kept = response.source_nodes
    assert 0 < len(kept) < 3 and all(n.score >= 0.4 for n in kept)
    assert len(response.metadata["scores_used"]) + response.metadata["irrelevant_documents"] == len(kept)


def test_as_query_engine_streaming_equals_non_streaming(llm, index):
    plain = index.as_query_engine(llm=llm, response_synthesizer=GroundedSynthesizer(llm), similarity_top_k=2)
    streaming = index.as_query_engine(llm=llm, response_synthesizer=GroundedSynthesizer(llm, streaming=True), similarity_top_k=2)
    expected = plain.query(QUESTION)
    streamed = streaming.query(QUESTION)
    assert isinstance(streamed, StreamingResponse)
    pieces = list(streamed.response_gen)
    assert "".join(pieces) == expected.response
    assert streamed.metadata["trust"] == expected.metadata["trust"]
    assert streamed.metadata["citations"] == expected.metadata["citations"]
    assert [n.node.metadata["cited"] for n in streamed.source_nodes] == \
        [n.node.metadata["cited"] for n in expected.source_nodes]


def test_a_query_the_index_does_not_answer_is_answered_with_the_abstention(llm, index):
    engine = RetrieverQueryEngine(index.as_retriever(similarity_top_k=1), response_synthesizer=GroundedSynthesizer(llm))
    response = engine.query("Who wrote the Linux kernel?")
    assert response.metadata["abstained"] and response.response == llm.decoding.abstention_text
    assert response.metadata["cited_node_ids"] == [] and not any(n.node.metadata["cited"] for n in response.source_nodes)


def test_async_query(llm, index):
    engine = RetrieverQueryEngine(index.as_retriever(similarity_top_k=2), response_synthesizer=GroundedSynthesizer(llm))
    assert asyncio.run(engine.aquery(QUESTION)).response == engine.query(QUESTION).response


def test_no_nodes_falls_back_with_zero_trust(llm):
    response = GroundedSynthesizer(llm).synthesize(QUESTION, [])
    assert response.response == NO_DOCUMENTS_ANSWER
    assert response.metadata["trust"] == 0.0 and "fallback" in response.metadata
    grounded = GroundedSynthesizer(llm).synthesize(QUESTION, [NodeWithScore(node=TextNode(text="a"), score=0.5)])
    assert grounded.metadata.keys() <= response.metadata.keys(), "code reading the metadata reads it either way"
    assert response.metadata["cited_node_ids"] == [] and response.metadata["citations"] == []


def test_bad_nodes_get_clear_errors(llm):
    synth = GroundedSynthesizer(llm, score_space="relevance")
    with pytest.raises(InputError, match="has no text"):
        synth.synthesize(QUESTION, [NodeWithScore(node=ImageNode(image="aGk="), score=0.5)])
    with pytest.raises(InputError, match="no score"):
        synth.synthesize(QUESTION, [NodeWithScore(node=TextNode(text="a"), score=0.5), NodeWithScore(node=TextNode(text="b"))])


def test_a_numeric_title_is_a_title_not_an_empty_response():
    """A node whose ``title`` metadata is a number raised pydantic's 'valid string' error, which Refine swallowed
    into "Empty Response"; metadata is free-form, so it is read as text."""
    docs, _ = nodes_to_documents([TextNode(text="a", metadata={"title": 2024}),
                                  TextNode(text="b", metadata={"file_name": 7})], "relevance")
    assert [d.title for d in docs] == ["2024", "7"]


def test_bad_nested_decoding_settings_are_named_by_their_path():
    with pytest.raises(InputError) as info:
        GroundedRAG(decoding={"method": "beam", "rho_mx": 3, "rho_max": -1})
    message = str(info.value)
    assert "decoding.method='beam'" in message and "unknown setting 'decoding.rho_mx'" in message
    assert "decoding.rho_max=-1" in message and "Value error" not in message
