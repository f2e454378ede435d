"""The pipelines users copy from the LlamaIndex docs, with GroundedRAG as the LLM: real index,
real Chroma, packaged embeddings and model. Each must answer grounded (over the retrieved nodes
and their scores), never "Empty Response"."""

import asyncio
import uuid

import chromadb
import pytest
from llama_index.core import Document, Settings, StorageContext, VectorStoreIndex
from llama_index.core.instrumentation import get_dispatcher
from llama_index.core.instrumentation.event_handlers import BaseEventHandler
from llama_index.core.instrumentation.events.llm import LLMCompletionEndEvent, LLMPredictEndEvent
from llama_index.core.instrumentation.events.synthesis import SynthesizeEndEvent, SynthesizeStartEvent
from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.schema import NodeWithScore, TextNode
from llama_index.llms.grounded_rag import GroundedRAG, GroundedSynthesizer, PipelineError, packaged_embedding
from llama_index.vector_stores.chroma import ChromaVectorStore

from grounded_rag import InputError
from grounded_rag.trust import normalize_scores

QUESTION = "Where is the Eiffel Tower?"
TEXTS = {
    "tower": "In this story, the Eiffel Tower was moved to Rome in 2031 and now stands beside the Colosseum.",
    "colosseum": "The Colosseum is an amphitheatre in the centre of Rome.",
    "paris": "Paris is the capital and largest city of France.",
}


class Recorder(BaseEventHandler):
    events: list = []

    def handle(self, event, **kwargs) -> None:
        self.events.append(event)

    def of(self, kind):
        return [e for e in self.events if isinstance(e, kind)]


@pytest.fixture
def events():
    recorder = Recorder(events=[])
    root = get_dispatcher()
    root.add_event_handler(recorder)
    yield recorder
    root.event_handlers.remove(recorder)


@pytest.fixture(scope="module")
def llm() -> GroundedRAG:
    return GroundedRAG(decoding={"max_new_tokens": 8})


@pytest.fixture(scope="module")
def documents():
    return [Document(text=t, id_=k) for k, t in TEXTS.items()]


@pytest.fixture(scope="module")
def chroma_index(documents) -> VectorStoreIndex:
    collection = chromadb.EphemeralClient().get_or_create_collection(f"li-{uuid.uuid4().hex[:10]}")
    storage_context = StorageContext.from_defaults(vector_store=ChromaVectorStore(chroma_collection=collection))
    return VectorStoreIndex.from_documents(documents, storage_context=storage_context, embed_model=packaged_embedding())


def last_completion(events):
    return events.of(LLMCompletionEndEvent)[-1].response.raw


def test_settings_llm_default_index_query_engine(llm, documents, events):
    # The LlamaIndex starter, with GroundedRAG as Settings.llm (in-memory SimpleVectorStore).
    old_llm, old_embed = Settings._llm, Settings._embed_model
    Settings.llm = llm
    Settings.embed_model = packaged_embedding()
    try:
        index = VectorStoreIndex.from_documents(documents)
        query_engine = index.as_query_engine(similarity_top_k=2)
        response = query_engine.query(QUESTION)
    finally:
        Settings._llm, Settings._embed_model = old_llm, old_embed
    assert response.response and response.response != "Empty Response"
    result = last_completion(events)
    assert result.trust_source == "scores", "the retriever's scores must reach the trust gate"
    read = [*result.documents, *result.irrelevant_documents]  # a passage the question is not about is left out
    assert sorted(d.score for d in read) == pytest.approx(sorted(n.score for n in response.source_nodes))
    assert result.prompts.full.count("Question:") == 1 and "Context information" not in result.prompts.full
    expected = llm.complete(QUESTION, documents=response.source_nodes, score_space="relevance")
    assert response.response == expected.text
    assert events.of(LLMPredictEndEvent), "the usual predict events are emitted"


def test_as_query_engine_over_chroma_reads_its_score_space(llm, chroma_index, events):
    response = chroma_index.as_query_engine(llm=llm, similarity_top_k=2).query(QUESTION)
    assert response.source_nodes[0].node.ref_doc_id == "tower"
    result = last_completion(events)
    read = [*result.documents, *result.irrelevant_documents]
    assert sorted(d.score for d in read) == pytest.approx(
        sorted(normalize_scores([n.score for n in response.source_nodes], "exp_l2")))
    scored = RetrieverQueryEngine(chroma_index.as_retriever(similarity_top_k=2),
                                  response_synthesizer=GroundedSynthesizer(llm)).query(QUESTION)
    assert response.response == scored.response, "the stock synthesizer and GroundedSynthesizer agree"


def test_streaming_query_engine(llm, chroma_index):
    plain = chroma_index.as_query_engine(llm=llm, similarity_top_k=2).query(QUESTION)
    streaming = chroma_index.as_query_engine(llm=llm, similarity_top_k=2, streaming=True).query(QUESTION)
    assert "".join(streaming.response_gen) == plain.response  # abstention on: shown once it is not withheld
    free = GroundedRAG(decoding={**llm.decoding.model_dump(), "support_threshold": None})
    plain = chroma_index.as_query_engine(llm=free, similarity_top_k=2).query(QUESTION)
    pieces = list(chroma_index.as_query_engine(llm=free, similarity_top_k=2, streaming=True).query(QUESTION).response_gen)
    assert len(pieces) > 2 and "".join(pieces) == plain.response


def test_async_query_engine(llm, chroma_index):
    engine = chroma_index.as_query_engine(llm=llm, similarity_top_k=2)
    assert asyncio.run(engine.aquery(QUESTION)).response == engine.query(QUESTION).response


def test_context_chat_engine(llm, chroma_index, events):
    chat_engine = chroma_index.as_chat_engine(chat_mode="context", llm=llm, similarity_top_k=2)
    reply = chat_engine.chat(QUESTION)
    assert reply.response and reply.response != "Empty Response"
    result = last_completion(events)
    assert result.trust_source == "scores" and len(result.documents) + len(result.irrelevant_documents) == 2
    expected = llm.complete(QUESTION, documents=reply.source_nodes, score_space="exp_l2").text
    assert reply.response == expected
    streamed = chat_engine.stream_chat(QUESTION)
    assert "".join(streamed.response_gen) == expected


def test_errors_raise_through_the_refine_synthesizer(llm, chroma_index):
    # Refine catches ValueError (InputError is one) and answers "Empty Response": ours must pass.
    with pytest.raises(PipelineError, match="question is empty"):
        chroma_index.as_query_engine(llm=llm, similarity_top_k=2).query("   ")


def test_grounded_synthesizer_emits_synthesize_and_llm_events(llm, chroma_index, events):
    engine = RetrieverQueryEngine(chroma_index.as_retriever(similarity_top_k=2),
                                  response_synthesizer=GroundedSynthesizer(llm))
    response = engine.query(QUESTION)
    assert events.of(SynthesizeStartEvent) and events.of(SynthesizeEndEvent)
    assert last_completion(events).text == response.response


def test_complete_accepts_llamaindex_nodes(llm):
    node = TextNode(text=TEXTS["tower"], id_="tower")
    as_text = llm.complete(QUESTION, documents=[TEXTS["tower"]]).text
    assert llm.complete(QUESTION, documents=[node]).text == as_text
    assert llm.complete(QUESTION, documents=[Document(text=TEXTS["tower"])]).text == as_text
    scored = llm.complete(QUESTION, documents=[NodeWithScore(node=node, score=0.7)], score_space="relevance")
    assert scored.raw.trust_source == "scores" and scored.raw.documents[0].id == "tower"


def test_bad_calls_get_clear_errors(llm):
    node = NodeWithScore(node=TextNode(text=TEXTS["tower"]), score=0.7)
    with pytest.raises(InputError, match="unknown keyword"):
        llm.complete(QUESTION, documents=[TEXTS["tower"]], rho_mx=16)
    with pytest.raises(InputError, match="score_space"):
        llm.complete(QUESTION, documents=[node])
    with pytest.raises(InputError, match="outside the cosine range"):
        llm.complete(QUESTION, documents=[NodeWithScore(node=node.node, score=3.0)], score_space="relevance")
    with pytest.raises(InputError, match="documents=nodes"):
        llm.complete(QUESTION)
    with pytest.raises(InputError, match="rho_max"):
        GroundedRAG(decoding={"rho_max": -1})


@pytest.fixture(scope="module")
def full_llm() -> GroundedRAG:
    return GroundedRAG(decoding={"max_new_tokens": 24})


def test_a_stock_query_engine_response_carries_the_citations(full_llm, chroma_index, events):
    """index.as_query_engine(llm=GroundedRAG()): the stock synthesizer's response gets the answer's citations,
    support and abstention in its metadata, and its source nodes say which the answer cites — as
    GroundedSynthesizer's, plain, streamed and async."""
    engine = chroma_index.as_query_engine(llm=full_llm, similarity_top_k=2)
    response = engine.query(QUESTION)
    result = last_completion(events)
    assert response.response == result.text and not result.abstained and result.citations
    assert response.metadata["citations"] == [c.model_dump() for c in result.citations]
    assert response.metadata["support"] == result.support and response.metadata["abstained"] is False
    cited = {n.node.node_id for n in response.source_nodes if n.node.metadata["cited"]}
    assert cited == set(response.metadata["cited_node_ids"]) and cited
    for n in response.source_nodes:
        for span in n.node.metadata["cited_spans"]:
            assert span["start"] is None or n.node.text[span["start"]:span["end"]] == span["quote"]
    streamed = chroma_index.as_query_engine(llm=full_llm, similarity_top_k=2, streaming=True).query(QUESTION)
    assert "".join(streamed.response_gen) == response.response
    assert streamed.metadata["citations"] == response.metadata["citations"]
    assert [n.node.metadata["cited"] for n in streamed.source_nodes] == [n.node.metadata["cited"]
                                                                         for n in response.source_nodes]
    later = asyncio.run(engine.aquery(QUESTION))
    assert later.metadata["citations"] == response.metadata["citations"]
    unanswered = engine.query("Who wrote the Linux kernel?")
    assert unanswered.metadata["abstained"] and unanswered.response == full_llm.decoding.abstention_text
    assert not any(n.node.metadata["cited"] for n in unanswered.source_nodes)
