"""The grounded LLM through LangChain's own entry points, on the packaged model (no fakes)."""

import asyncio

import pytest
from langchain_core.caches import InMemoryCache
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.globals import set_llm_cache
from langchain_core.outputs import GenerationChunk

from grounded_rag import InputError

from ..conftest import CORPUS, QUESTION


def test_invoke_and_generation_info(llm):
    out = llm.invoke(QUESTION, documents=CORPUS)
    assert isinstance(out, str) and out
    info = llm.generate([QUESTION], documents=CORPUS, scores=[0.9, 0.3, 0.2]).generations[0][0].generation_info
    assert info["trust_source"] == "scores" and 0 < info["trust"] < 1
    assert info["trace_summary"]["tokens"] > 0 and "mean_conflict" in info["trace_summary"]
    assert set(info) >= {"citations", "cited_document_ids", "method", "finish_reason"}


def test_bind_and_metadata_scores(llm, retriever):
    docs = retriever.invoke(QUESTION)
    bound = llm.bind(documents=docs)
    assert bound.invoke(QUESTION) == llm.invoke(QUESTION, documents=docs)
    info = llm.generate([QUESTION], documents=docs).generations[0][0].generation_info
    assert info["trust_source"] == "scores", "scores in Document.metadata must reach the trust gate"


def test_ainvoke_batch_abatch_match_invoke(llm):
    expected = llm.invoke(QUESTION, documents=CORPUS)
    assert asyncio.run(llm.ainvoke(QUESTION, documents=CORPUS)) == expected
    assert llm.batch([QUESTION, QUESTION], documents=CORPUS) == [expected, expected]
    assert asyncio.run(llm.abatch([QUESTION], documents=CORPUS)) == [expected]


class Recorder(BaseCallbackHandler):
    def __init__(self):
        self.tokens: list[str] = []
        self.chunks: list = []

    def on_llm_new_token(self, token, *, chunk=None, **kwargs):
        self.tokens.append(token)
        self.chunks.append(chunk)


def test_stream_equals_invoke_and_calls_on_llm_new_token(llm):
    recorder = Recorder()
    held = list(llm.stream(QUESTION, documents=CORPUS))  # abstention on: shown once it is known not to be withheld
    assert "".join(held) == llm.invoke(QUESTION, documents=CORPUS)
    free = llm.model_copy(update={"decoding": llm.decoding.model_copy(update={"support_threshold": None})})
    pieces = list(free.stream(QUESTION, documents=CORPUS, config={"callbacks": [recorder]}))
    assert len(pieces) > 2
    assert "".join(pieces) == free.invoke(QUESTION, documents=CORPUS)
    assert "".join(recorder.tokens) == "".join(pieces)
    assert all(isinstance(c, GenerationChunk) for c in recorder.chunks)


def test_astream_equals_invoke_and_does_not_block_the_event_loop(llm):
    async def run():
        ticks = 0
        done = asyncio.Event()

        async def ticker():
            nonlocal ticks
            while not done.is_set():
                ticks += 1
                await asyncio.sleep(0)

        task = asyncio.create_task(ticker())
        pieces = [p async for p in llm.astream(QUESTION, documents=CORPUS)]
        done.set()
        await task
        return pieces, ticks

    pieces, ticks = asyncio.run(run())
    assert "".join(pieces) == llm.invoke(QUESTION, documents=CORPUS)
    assert ticks > len(pieces), "the event loop kept running while the model decoded"


@pytest.mark.parametrize("path", ["invoke", "stream", "batch", "ainvoke", "astream"])
def test_stop_sequences_are_honoured_in_every_path(llm, path):
    free = llm.invoke(QUESTION, documents=CORPUS)
    stop = free.split()[2]
    kwargs = {"documents": CORPUS, "stop": [stop]}
    if path == "invoke":
        out = llm.invoke(QUESTION, **kwargs)
    elif path == "stream":
        out = "".join(llm.stream(QUESTION, **kwargs))
    elif path == "batch":
        out = llm.batch([QUESTION], **kwargs)[0]
    elif path == "ainvoke":
        out = asyncio.run(llm.ainvoke(QUESTION, **kwargs))
    else:
        async def collect():
            return "".join([p async for p in llm.astream(QUESTION, **kwargs)])
        out = asyncio.run(collect())
    assert stop not in out and free.startswith(out.rstrip())


def test_llm_cache_key_includes_documents_and_scores(llm):
    set_llm_cache(InMemoryCache())
    try:
        rome = llm.invoke(QUESTION, documents=CORPUS[:1])
        paris = llm.invoke(QUESTION, documents=CORPUS[2:])
        assert rome != paris, "same question over other documents must not hit the cache"
        assert llm.invoke(QUESTION, documents=CORPUS[:1]) == rome
        again = llm.generate([QUESTION], documents=CORPUS[:1])
        assert again.generations[0][0].text == rome
        with_scores = llm.generate([QUESTION], documents=CORPUS[:1], scores=[0.01]).generations[0][0]
        assert with_scores.generation_info["trust_source"] == "scores", "other scores must not hit the cache"
    finally:
        set_llm_cache(None)


def test_no_documents_is_a_clear_error(llm):
    with pytest.raises(InputError, match="no documents"):
        llm.invoke(QUESTION, documents=[])
