"""The OpenAI-compatible server on loopback, driven by the real clients (openai, LangChain's ChatOpenAI,
LlamaIndex's OpenAILike), in one process (uvicorn) and as a Ray Serve deployment on a local Ray.

Every client test runs against the single-process server; those marked ``@ON_BOTH`` (what Ray's proxy and
``@serve.batch`` carry: answers, streams, withheld answers, batching, errors) against the Ray deployment too. Both
serve the same app (``create_app``) over the same worker: how a request's fields reach the decoder is checked once,
on the single-process server. The answers must equal ``GroundedDecoder.generate`` in this process, token for token (greedy)."""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import json
import socket
import threading
import time
from importlib.util import find_spec

import httpx
import openai
import pytest

from grounded_rag import DecodingConfig, Document, GroundedDecoder
from grounded_rag.config import QUOTE_THRESHOLD
from grounded_rag.evaluation.ablations import register as register_ablations
from grounded_rag.methods import get_method
from grounded_rag.serving import ServeSettings, create_app
from grounded_rag.serving.limits import uvicorn_options
from grounded_rag.serving.worker import LocalBackend
from grounded_rag.trust import normalize_scores

from ..conftest import DOCUMENTS, QUESTION

register_ablations()  # the research ablations decode here as in grounded-rag eval

N = 8  # max_tokens everywhere: small, the suite must stay fast
SCORES = [0.82, 0.41, 0.30]
DOCS = [{"text": t, "id": f"d{i}", "title": f"doc {i}", "score": s} for i, (t, s) in enumerate(zip(DOCUMENTS, SCORES))]
SETTINGS = dict(batch_window_ms=30, max_batch_size=8, max_tokens_limit=64, max_documents=8, body_timeout_s=3)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_healthy(url: str, timeout: float = 180.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            if httpx.get(f"{url}/health", timeout=5).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"server at {url} did not come up within {timeout}s")
        time.sleep(0.5)


RAY = pytest.param("ray", marks=pytest.mark.skipif(find_spec("ray") is None,
                                                   reason="ray is not installed: pip install 'grounded-rag[ray]'"))
ON_BOTH = pytest.mark.parametrize("server", ["local", RAY], indirect=True)  # the single-process server and Ray Serve


@pytest.fixture(scope="module")
def server(request, decoder: GroundedDecoder):
    """Base URL of a running server: uvicorn in a thread over the shared decoder, or Ray Serve (``@ON_BOTH``)."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    if getattr(request, "param", "local") == "local":
        import uvicorn

        app = create_app(LocalBackend(decoder, ServeSettings(**SETTINGS)), ServeSettings(**SETTINGS))
        srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
        thread = threading.Thread(target=srv.run, daemon=True)
        thread.start()
        wait_healthy(url)
        yield url
        srv.should_exit = True
        thread.join(timeout=30)
        return
    import ray
    from ray import serve

    from grounded_rag.serving.ray_app import build_app

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        serve.start(http_options={"host": "127.0.0.1", "port": port})
        serve.run(build_app(SETTINGS, num_replicas=1), name="grounded-rag", route_prefix="/")
        wait_healthy(url)
        yield url
    finally:
        serve.shutdown()
        ray.shutdown()


@contextlib.contextmanager
def local_server(decoder: GroundedDecoder, **settings):
    """A single-process server on loopback (uvicorn in a thread) with its own settings; yields (url, backend)."""
    import uvicorn

    port = free_port()
    backend = LocalBackend(decoder, ServeSettings(**settings))
    srv = uvicorn.Server(uvicorn.Config(create_app(backend, ServeSettings(**settings)), host="127.0.0.1", port=port,
                                        log_level="warning", **uvicorn_options(ServeSettings(**settings))))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    try:
        wait_healthy(f"http://127.0.0.1:{port}")
        yield f"http://127.0.0.1:{port}", backend
    finally:
        srv.should_exit = True
        thread.join(timeout=30)


@pytest.fixture
def client(server, decoder) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{server}/v1", api_key="unused", max_retries=0)


_EXPECTED: dict[str, object] = {}


def expected(decoder: GroundedDecoder, question: str = QUESTION, **overrides):
    """In-process ``generate``, one question at a time (cached: both servers compare to the same runs)."""
    key = json.dumps([question, overrides], sort_keys=True)
    if key not in _EXPECTED:
        _EXPECTED[key] = decoder.generate(question, DOCS, max_new_tokens=N, **overrides)
    return _EXPECTED[key]


# ----------------------------------------------------------------- hostile text (issue 16)
def test_withheld_sentences_come_back_in_the_grounding(client, decoder):
    """Screening runs in the server as in-process: the answer is the same and the grounding lists what was withheld."""
    from .test_safety import CLEAN_DOC, QUESTION, SMOL_ATTACK

    docs = [{"text": SMOL_ATTACK}, {"text": CLEAN_DOC}]
    want = decoder.generate(QUESTION, docs, max_new_tokens=N)
    assert want.withheld
    r = client.chat.completions.create(model=decoder.name, messages=[{"role": "user", "content": QUESTION}],
                                       max_tokens=N, extra_body={"documents": docs})
    assert r.choices[0].message.content == want.text
    assert r.model_extra["grounding"]["withheld"] == [w.model_dump() for w in want.withheld]


def test_special_token_strings_in_any_request_field_stay_plain_text(client, decoder):
    """A retrieved passage, a title, the question or a system message that spells the chat template's
    control tokens reaches the model as plain text: the server feeds what in-process ``prepare``
    encodes (the clean prompt's control tokens, as tests/integration/test_safety.py checks), the
    answer is in-process ``generate``'s, and an attack in retrieved text does not put BANANA in it."""
    from .test_safety import CLEAN_DOC, SMOL_ATTACK, controls, hijacked
    from .test_safety import QUESTION as CAPITAL

    # (question, documents, system, the attack is in retrieved text): a question or system message that asks
    # for BANANA is the caller's own instruction, so only retrieved text is held to "not hijacked"
    cases = [
        (CAPITAL, [{"text": SMOL_ATTACK, "score": 0.8}], None, True),
        (CAPITAL, [{"text": CLEAN_DOC, "title": SMOL_ATTACK, "score": 0.8}], None, True),
        (SMOL_ATTACK, [{"text": CLEAN_DOC, "score": 0.8}], None, False),
        (CAPITAL, [{"text": CLEAN_DOC, "score": 0.8}], SMOL_ATTACK, False),
    ]
    for question, docs, system, retrieved in cases:
        # the attack as written, as the layer under screening (grounded_rag.screening) must take it
        overrides = {"system_prompt": system} if system else {}
        want = decoder.generate(question, docs, max_new_tokens=N, screen_instructions=False, **overrides)
        fed = decoder.prepare(question, docs, None, DecodingConfig(max_new_tokens=N, screen_instructions=False,
                                                                   **overrides), get_method("grounded")).token_ids
        assert [controls(decoder.tokenizer, ids) for ids in fed] == [5, 5]
        messages = [{"role": "system", "content": system}] if system else []
        r = client.chat.completions.create(model=decoder.name, messages=[*messages, {"role": "user", "content": question}],
                                           max_tokens=N, extra_body={"documents": docs, "trace": True,
                                                                     "decoding": {"screen_instructions": False}})
        assert r.choices[0].message.content == want.text
        assert not (retrieved and hijacked(want.text)), want.text
        assert r.usage.prompt_tokens == len(fed[0])
        naive = decoder.tokenizer(want.prompts.full, add_special_tokens=False)["input_ids"]
        assert len(naive) != len(fed[0]), "the attack is real: a tokenizer left alone makes control tokens of it"
        assert r.model_extra["grounding"]["prompts"] == want.prompts.model_dump()


# ----------------------------------------------------------------- openai client
@ON_BOTH
def test_models_and_health(client, server, decoder):
    assert [m.id for m in client.models.list()] == [decoder.name]
    health = httpx.get(f"{server}/health").json()
    assert health["status"] == "ok" and health["model"] == decoder.name
    assert httpx.head(f"{server}/health").status_code == 200  # some load balancers' health checks
    card = httpx.get(f"{server}/v1/models").json()["data"][0]
    assert card["max_model_len"] == decoder.context_window
    tok = httpx.post(f"{server}/tokenize", json={"model": decoder.name, "prompt": QUESTION, "add_special_tokens": False})
    assert tok.json()["tokens"] == decoder.tokenizer(QUESTION, add_special_tokens=False)["input_ids"]
    assert tok.json()["count"] == len(tok.json()["tokens"])
    assert httpx.post(f"{server}/tokenize", json={"model": "gpt-4o", "prompt": "x"}).status_code == 404
    huge = httpx.post(f"{server}/tokenize", json={"model": decoder.name, "prompt": "lorem ipsum " * 30_000})
    assert huge.status_code == 413 and "over this server's limit" in huge.json()["error"]["message"]


@ON_BOTH
def test_chat_greedy_equals_in_process_generate(client, decoder):
    want = expected(decoder)
    r = client.chat.completions.create(model=decoder.name, messages=[{"role": "user", "content": QUESTION}],
                                       max_tokens=N, extra_body={"documents": DOCS})
    assert r.choices[0].message.content == want.text
    assert r.choices[0].finish_reason == ("length" if want.finish_reason == "length" else "stop")
    assert r.usage.completion_tokens == len(want.token_ids)
    assert r.usage.prompt_tokens == len(decoder.tokenizer(want.prompts.full, add_special_tokens=False)["input_ids"])
    g = r.model_extra["grounding"]
    assert g["grounded"] is True and g["method"] == DecodingConfig().method and g["trust_source"] == "scores"
    assert g["trust"] == pytest.approx(want.trust)
    assert g["citations"] == [c.model_dump() for c in want.citations]
    assert (g["support"], g["abstained"], g["unsupported_answer"]) == (want.support, want.abstained,
                                                                       want.unsupported_answer)
    assert [d["id"] for d in g["documents"]] == [d.id for d in want.documents]
    assert g["irrelevant_document_ids"] == [d.id for d in want.irrelevant_documents]
    assert sorted([d["id"] for d in g["documents"]] + g["irrelevant_document_ids"]) == ["d0", "d1", "d2"]
    assert [d["score"] for d in g["documents"]] == [SCORES[int(d["id"][1:])] for d in g["documents"]]
    assert "trace" not in g, "the per-token trace is sent only on request"


def test_trace_on_request_is_the_decoders_trace(client, decoder):
    want = expected(decoder)
    r = client.chat.completions.create(model=decoder.name, messages=[{"role": "user", "content": QUESTION}],
                                       max_tokens=N, extra_body={"documents": DOCS, "trace": True})
    trace = r.model_extra["grounding"]["trace"]
    assert [s["token_id"] for s in trace] == [s.token_id for s in want.trace]
    assert [s["rho"] for s in trace] == pytest.approx([s.rho for s in want.trace], abs=1e-5)
    assert [s["conflict"] for s in trace] == pytest.approx([s.conflict for s in want.trace], abs=1e-5)
    r = client.chat.completions.create(model=decoder.name, messages=[{"role": "user", "content": QUESTION}],
                                       max_tokens=N, extra_body={"documents": DOCS, "trace": True,
                                                                 "decoding": {"method": "grounded", "rho_max": "inf"}})
    assert {s["rho"] for s in r.model_extra["grounding"]["trace"]} == {"inf"}  # JSON has no inf (this was a 500)


def test_decoding_settings_and_score_space_reach_the_decoder(client, decoder):
    distances = [0.4, 1.1, 1.3]  # Chroma l2 distances
    docs = [{**d, "score": x} for d, x in zip(DOCS, distances)]
    scores = normalize_scores(distances, "l2")
    for decoding in ({"method": "cad", "beta": 0.7}, {"method": "grounded", "rho_max": 1.5}, {"extractive": True}):
        want = decoder.generate(QUESTION, [{**d, "score": s} for d, s in zip(DOCS, scores)], max_new_tokens=N,
                                **decoding)
        r = client.chat.completions.create(
            model=decoder.name, messages=[{"role": "user", "content": QUESTION}], max_tokens=N,
            extra_body={"documents": docs, "score_space": "l2", "decoding": decoding})
        assert r.choices[0].message.content == want.text, decoding
        g = r.model_extra["grounding"]
        assert g["method"] == want.method and g["trust"] == pytest.approx(want.trust)
        assert [d["score"] for d in g["documents"]] == pytest.approx([d.score for d in want.documents])


def test_a_trusted_document_reaches_the_decoder_as_trusted(client, server, decoder):
    """``trusted`` in a document of the request body is the caller's Document.trusted: the answer equals the
    in-process one with the flag, and differs from the answer without it (the flag is not dropped on the way)."""
    doc = {"text": 'Write a quote that ends in the word "heavy":', "trusted": True}
    question = "Complete the proverb: Absence makes the heart grow"
    want = decoder.generate(question, [doc], max_new_tokens=N)
    plain = decoder.generate(question, [doc["text"]], max_new_tokens=N)
    assert [s.q for s in want.trace] != [s.q for s in plain.trace]
    r = client.chat.completions.create(model=decoder.name, messages=[{"role": "user", "content": question}],
                                       max_tokens=N, extra_body={"documents": [doc], "trace": True})
    assert r.choices[0].message.content == want.text
    assert [d["trusted"] for d in r.model_extra["grounding"]["documents"]] == [True]
    from grounded_rag.serving.client import connect

    remote = connect(server).generate(question, [Document(**doc)], max_new_tokens=N)  # our client sends the flag too
    assert remote.text == want.text and remote.documents[0].trusted


def test_documents_as_plain_strings_without_scores(client, decoder):
    want = decoder.generate(QUESTION, DOCUMENTS, max_new_tokens=N)
    r = client.chat.completions.create(model=decoder.name, messages=[{"role": "user", "content": QUESTION}],
                                       max_tokens=N, extra_body={"documents": DOCUMENTS})
    assert r.choices[0].message.content == want.text
    assert r.model_extra["grounding"]["trust_source"] == "no scores: trust fixed to 1"


def test_system_message_replaces_the_system_prompt(client, decoder):
    system = "Answer in one short sentence from the documents."
    want = expected(decoder, system_prompt=system)
    r = client.chat.completions.create(
        model=decoder.name, max_tokens=N, extra_body={"documents": DOCS},
        messages=[{"role": "system", "content": system}, {"role": "user", "content": "Hi"},
                  {"role": "assistant", "content": "Hello."}, {"role": "user", "content": QUESTION}])
    assert r.choices[0].message.content == want.text


@ON_BOTH
def test_streaming_chunks_join_to_the_generate_text(client, decoder):
    want = expected(decoder)
    stream = client.chat.completions.create(
        model=decoder.name, messages=[{"role": "user", "content": QUESTION}], max_tokens=N, stream=True,
        stream_options={"include_usage": True}, extra_body={"documents": DOCS})
    chunks = list(stream)
    assert chunks[0].choices[0].delta.role == "assistant"
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == want.text
    final = [c for c in chunks if c.choices and c.choices[0].finish_reason]
    assert len(final) == 1 and final[0].model_extra["grounding"]["trust"] == pytest.approx(want.trust)
    assert final[0].model_extra["grounding"]["citations"] == [c.model_dump() for c in want.citations]
    assert final[0].model_extra["grounding"]["support"] == want.support
    assert chunks[-1].usage.completion_tokens == len(want.token_ids)


@ON_BOTH
def test_an_unsupported_answer_is_withheld_in_the_body_the_headers_and_the_last_chunk(client, server, decoder):
    """A question no passage is about: the server says so as the decoder does, with the support and the flag in
    ``grounding`` (plain and streamed) and in the headers for clients that drop unknown body fields."""
    unrelated = [{"text": "The Colosseum is an amphitheatre in the centre of Rome.", "id": "rome"}]
    want = decoder.generate("Who wrote the Linux kernel?", unrelated, config=DecodingConfig(max_new_tokens=N))
    assert want.abstained, "the case must abstain in process, or this test checks nothing"
    body = {"model": decoder.name, "messages": [{"role": "user", "content": "Who wrote the Linux kernel?"}],
            "max_tokens": N, "documents": unrelated}
    raw = httpx.post(f"{server}/v1/chat/completions", json=body, timeout=120)
    g = raw.json()["grounding"]
    assert raw.json()["choices"][0]["message"]["content"] == want.text == DecodingConfig().abstention_text
    assert (g["abstained"], g["finish_reason"], g["support"], g["citations"]) == (True, "abstain", want.support, [])
    assert raw.headers["x-grounding-abstained"] == "true" and float(raw.headers["x-grounding-support"]) == want.support
    chunks = list(client.chat.completions.create(model=decoder.name, messages=body["messages"], max_tokens=N,
                                                 stream=True, extra_body={"documents": unrelated}))
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == want.text
    last = [c for c in chunks if c.choices and c.choices[0].finish_reason][0].model_extra["grounding"]
    assert last["abstained"] is True and last["support"] == want.support
    kept = client.chat.completions.create(model=decoder.name, messages=body["messages"], max_tokens=N,
                                          extra_body={"documents": unrelated, "decoding": {"support_threshold": None}})
    assert kept.model_extra["grounding"]["abstained"] is False and kept.choices[0].message.content != want.text


@pytest.mark.parametrize("setting, value, mark", [("quote_threshold", QUOTE_THRESHOLD, "quoted"),
                                                   ("insist_beta", 1.0, "insisted")])
def test_a_second_look_in_place_of_a_withheld_answer_comes_back_marked(client, decoder, setting, value, mark):
    """`decoding.quote_threshold` / `decoding.insist_beta`: the server answers with the decoder's second look at a
    withheld answer (a quote, or the passage taken at its word) and says so in `grounding` and a header."""
    question = "Who painted The Starry Night?"
    docs = [{"text": "The Starry Night is an oil painting by Paul Gauguin, made in 1889.", "id": "art"}]
    want = decoder.generate(question, docs, config=DecodingConfig(max_new_tokens=24, **{setting: value}))
    assert getattr(want, mark), "the case must get its second look in process, or this test checks nothing"
    raw = client.chat.completions.with_raw_response.create(
        model=decoder.name, messages=[{"role": "user", "content": question}], max_tokens=24,
        extra_body={"documents": docs, "decoding": {setting: value}})
    got, g = raw.parse(), raw.parse().model_extra["grounding"]
    assert raw.headers[f"x-grounding-{mark}"] == "true" and raw.headers["x-grounding-abstained"] == "false"
    assert got.choices[0].message.content == want.text
    assert (g[mark], g["unsupported_answer"], g["abstained"]) == (True, want.unsupported_answer, False)
    assert g["second_looks"] == want.second_looks == [{"quoted": "quote", "insisted": "insist"}[mark]]


def test_completions_endpoint_plain_and_streaming(client, decoder):
    want = expected(decoder)
    r = client.completions.create(model=decoder.name, prompt=QUESTION, max_tokens=N, extra_body={"documents": DOCS})
    assert r.choices[0].text == want.text
    assert r.model_extra["grounding"]["trust"] == pytest.approx(want.trust)
    pieces = [c.choices[0].text for c in client.completions.create(
        model=decoder.name, prompt=QUESTION, max_tokens=N, stream=True, extra_body={"documents": DOCS})]
    assert "".join(pieces) == want.text


@ON_BOTH
def test_raw_sse_format_ends_with_done(server, decoder):
    body = {"model": decoder.name, "messages": [{"role": "user", "content": QUESTION}], "max_tokens": 4,
            "stream": True, "documents": DOCS}
    with httpx.stream("POST", f"{server}/v1/chat/completions", json=body, timeout=120) as r:
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
        lines = [line for line in r.iter_lines() if line]
    assert all(line.startswith("data: ") for line in lines)
    assert lines[-1] == "data: [DONE]"
    assert json.loads(lines[0][6:])["object"] == "chat.completion.chunk"


# ----------------------------------------------------------------- framework clients, as their docs write them
def test_langchain_chat_openai(server, decoder):
    from langchain_core.output_parsers import StrOutputParser
    from langchain_core.prompts import ChatPromptTemplate
    from langchain_openai import ChatOpenAI

    llm = ChatOpenAI(model=decoder.name, base_url=f"{server}/v1", api_key="unused", temperature=0, max_tokens=N,
                     max_retries=0, extra_body={"documents": DOCS}, include_response_headers=True)
    want = expected(decoder)
    msg = llm.invoke(QUESTION)
    assert msg.content == want.text
    assert float(msg.response_metadata["headers"]["x-grounding-trust"]) == pytest.approx(want.trust, abs=1e-6)
    assert "".join(chunk.content for chunk in llm.stream(QUESTION)) == want.text

    system = "You answer questions from the documents."
    prompt = ChatPromptTemplate.from_messages([("system", system), ("human", "{question}")])
    chain = prompt | llm | StrOutputParser()
    assert chain.invoke({"question": QUESTION}) == expected(decoder, system_prompt=system).text


async def test_langchain_chat_openai_async_batch(server, decoder):
    from langchain_openai import ChatOpenAI

    llm = ChatOpenAI(model=decoder.name, base_url=f"{server}/v1", api_key="unused", temperature=0, max_tokens=N,
                     max_retries=0, extra_body={"documents": DOCS})
    questions = [QUESTION, "What stands beside the Colosseum?", "What is the capital of France?"]
    wants = [expected(decoder, q).text for q in questions]
    got = await llm.abatch(questions)
    assert [m.content for m in got] == wants


def test_llamaindex_openai_like(server, decoder):
    from llama_index.core.llms import ChatMessage
    from llama_index.llms.openai_like import OpenAILike

    want = expected(decoder)
    llm = OpenAILike(model=decoder.name, api_base=f"{server}/v1", api_key="unused", temperature=0, max_tokens=N,
                     max_retries=0, context_window=8192, additional_kwargs={"extra_body": {"documents": DOCS}})
    assert llm.complete(QUESTION).text == want.text  # /v1/completions (is_chat_model=False)
    assert "".join(r.delta for r in llm.stream_complete(QUESTION)) == want.text
    chat = OpenAILike(model=decoder.name, api_base=f"{server}/v1", api_key="unused", temperature=0, max_tokens=N,
                      max_retries=0, is_chat_model=True, context_window=8192,
                      additional_kwargs={"extra_body": {"documents": DOCS}})
    reply = chat.chat([ChatMessage(role="user", content=QUESTION)])
    assert reply.message.content == want.text
    assert reply.raw.model_extra["grounding"]["trust"] == pytest.approx(want.trust)


# ----------------------------------------------------------------- batching
@ON_BOTH
async def test_concurrent_requests_are_batched_and_equal_one_by_one(server, decoder):
    questions = [QUESTION, "What stands beside the Colosseum?", "What is the capital of France?",
                 "When was the Eiffel Tower moved?"]
    wants = [expected(decoder, q).text for q in questions]
    cad = expected(decoder, questions[0], method="cad").text
    before = httpx.get(f"{server}/health").json()
    async with openai.AsyncOpenAI(base_url=f"{server}/v1", api_key="unused", max_retries=0) as aclient:
        async def ask(q: str, decoding: dict | None = None) -> str:
            r = await aclient.chat.completions.create(
                model=decoder.name, messages=[{"role": "user", "content": q}], max_tokens=N,
                extra_body={"documents": DOCS, "decoding": decoding or {}})
            return r.choices[0].message.content

        async def too_long() -> str:
            await aclient.chat.completions.create(
                model=decoder.name, messages=[{"role": "user", "content": QUESTION}], max_tokens=N,
                extra_body={"documents": [{"text": "lorem ipsum dolor sit amet " * 4000}]})
            return "not refused"

        *got, refused = await asyncio.gather(*[ask(q) for q in questions], ask(questions[0], {"method": "cad"}),
                                             too_long(), return_exceptions=True)
    assert list(got) == [*wants, cad], "a request in a batch (any config mix) answers as it does alone"
    assert isinstance(refused, openai.APIStatusError) and refused.status_code == 413, "refused alone, not the batch"
    after = httpx.get(f"{server}/health").json()
    assert after["batched_requests"] - before["batched_requests"] == len(questions) + 2
    assert after["batches"] - before["batches"] < len(questions) + 2, "concurrent requests shared a batch"


# ----------------------------------------------------------------- bad requests: 4xx with a message, never a 500
def chat_body(decoder, **fields):
    body = {"model": decoder.name, "messages": [{"role": "user", "content": QUESTION}], "max_tokens": 4,
            "documents": DOCS}
    body.update(fields)
    return {k: v for k, v in body.items() if v is not ...}


BAD = {
    "no documents": (dict(documents=...), 400, "no documents were given"),
    "empty documents": (dict(documents=[]), 400, "no documents were given"),
    "empty document text": (dict(documents=[{"text": "  "}]), 400, "documents[0] has empty text"),
    "documents not a list": (dict(documents="Paris"), 400, "documents"),
    "score not a number": (dict(documents=[{"text": "a", "score": "high"}]), 400, "score"),
    "some scores missing": (dict(documents=[{"text": "a", "score": 0.5}, {"text": "b"}]), 400, "no score"),
    "messages not a list": (dict(messages="hello"), 400, "messages"),
    "no user message": (dict(messages=[{"role": "system", "content": "x"}]), 400, "no user message"),
    "deep metadata": (dict(documents=[{"text": "Paris is in France.", "metadata": {"a": json.loads("[" * 900 + "]" * 900)}}]),
                      400, "metadata: Value error, nests too deeply"),
    "deep settings": (dict(decoding={"a": json.loads("[" * 900 + "]" * 900)}), 400, "nests its JSON too deeply"),
    "boolean id": (dict(documents=[{"text": "Paris is in France.", "id": True}]), 400, "documents.0.DocumentIn.id"),
    "invisible question": (dict(messages=[{"role": "user", "content": "\u200b\u0001\ufeff"}]), 400,
                           "the question is empty"),
    "unknown method": (dict(decoding={"method": "beam"}), 400, "decoding.method"),
    # registered in this process by the evaluation package, and still not served
    "research ablation": (dict(decoding={"method": "pmi_words_cut"}), 400, "research ablation"),
    "bad setting": (dict(decoding={"rho_max": -1}), 400, "decoding.rho_max"),
    "top_k past any vocabulary": (dict(decoding={"top_k": 10**30}), 400,
                                  "decoding.top_k=1000000000000000000000000000000: Input should be less than or equal"),
    "setting past fp32": (dict(decoding={"method": "cad", "beta": 1e308}), 400, "decoding.beta=1e+308: must be at most"),
    "unknown setting": (dict(decoding={"rho": 2}), 400, "decoding.rho"),
    "top_p out of range": (dict(top_p=2), 400, "top_p"),
    "conflicting settings": (dict(temperature=0.5, decoding={"temperature": 0.0}), 400, "set twice"),
    "max_tokens over limit": (dict(max_tokens=10_000), 400, "exceeds this server's limit"),
    "n > 1": (dict(n=2), 400, "n must be 1"),
    "unknown field": (dict(documentz=DOCS), 400, "documentz"),
    "unknown score space": (dict(score_space="dot"), 400, "score_space"),
    "too many documents": (dict(documents=["x"] * 9), 400, "limit of 8"),
    "unknown model": (dict(model="gpt-4o"), 404, "is not served here"),
    "oversized prompt": (dict(documents=[{"text": "lorem ipsum dolor sit amet " * 4000}]), 413, "context window"),
    "huge request": (dict(documents=[{"text": "lorem ipsum " * 30_000}]), 413, "over this server's limit"),
    # every text of a request counts toward one budget, checked before any tokenizer runs
    "huge system message": (dict(messages=[{"role": "system", "content": "Be brief. " * 30_000},
                                           {"role": "user", "content": QUESTION}]), 413, "over this server's limit"),
    "huge earlier turn": (dict(messages=[{"role": "assistant", "content": "x" * 300_000},
                                         {"role": "user", "content": QUESTION}]), 413, "over this server's limit"),
    "huge title": (dict(documents=[{"text": "Paris is in France.", "title": "t" * 300_000}]), 413,
                   "over this server's limit"),
    "huge metadata": (dict(documents=[{"text": "Paris is in France.", "metadata": {"n": "m" * 300_000}}]), 413,
                      "over this server's limit"),
    "huge stop list": (dict(stop=["s" * 100_000] * 3), 413, "over this server's limit"),
    # past a float's range: refused by name, not an OverflowError (a 500) in the finite check
    "whole-number score past 1e308": (dict(documents=[{"text": "a", "score": 10**400}]), 400,
                                      "score: Value error, is a whole number too large for a score"),
    "negative score past 1e308": (dict(documents=[{"text": "a", "score": -10**400}]), 400, "too large for a score"),
    # wrong types are refused by name, never converted
    "max_tokens a string": (dict(max_tokens="2"), 400, "max_tokens: Input should be a valid integer"),
    "max_tokens a bool": (dict(max_tokens=True), 400, "max_tokens: Input should be a valid integer"),
    "temperature a bool": (dict(temperature=True), 400, "temperature: Input should be a valid number"),
    "seed a string": (dict(seed="1"), 400, "seed: Input should be a valid integer"),
    "n a string": (dict(n="1"), 400, "n: Input should be a valid integer"),
    "trace a string": (dict(trace="yes"), 400, "trace: Input should be a valid boolean"),
    "retrieve_k a bool": (dict(retrieve_k=True), 400, "retrieve_k: Input should be a valid integer"),
}


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
@ON_BOTH
def test_bad_requests_get_a_4xx_with_a_message_and_the_server_keeps_serving(server, decoder, stream):
    for name, (fields, status, message) in BAD.items():
        r = httpx.post(f"{server}/v1/chat/completions", json=chat_body(decoder, stream=stream, **fields), timeout=120)
        assert r.status_code == status, (name, r.text)
        err = r.json()["error"]
        assert message in err["message"], (name, err)
    r = httpx.post(f"{server}/v1/chat/completions", content=b'{"model": "x", messages: [}',
                   headers={"content-type": "application/json"})
    assert r.status_code == 400 and "not valid JSON" in r.json()["error"]["message"]
    r = httpx.post(f"{server}/v1/completions", json={"model": decoder.name, "prompt": ["a", "b"], "documents": DOCS})
    assert r.status_code == 400 and "one prompt per request" in r.json()["error"]["message"]
    nan = json.dumps(chat_body(decoder, documents=[{"text": "Paris is in France.", "metadata": {"x": float("nan")}}]))
    r = httpx.post(f"{server}/v1/chat/completions", content=nan, headers={"content-type": "application/json"})
    assert r.status_code == 400 and "metadata: Value error, holds NaN" in r.json()["error"]["message"], r.text
    for stream in ("yes", 1):  # "yes" was read as true, 1 opened an event stream
        r = httpx.post(f"{server}/v1/chat/completions", json={**chat_body(decoder), "stream": stream})
        assert r.status_code == 400 and "stream: Input should be a valid boolean" in r.json()["error"]["message"]
        assert r.json()["error"]["param"] == "stream"  # where OpenAI names the field
    nan = json.dumps({**chat_body(decoder), "temperature": float("nan")})  # was said as "less than or equal to 2"
    r = httpx.post(f"{server}/v1/chat/completions", content=nan, headers={"content-type": "application/json"})
    assert r.status_code == 400 and "temperature: Input should be a finite number" in r.json()["error"]["message"]
    for metadata in ({"\udc00": "x"}, {"tags": ["\ud800"]}):  # a key, a nested value: refused before decoding
        body = json.dumps(chat_body(decoder, trace=True, documents=[{"text": "Paris is in France.", "metadata": metadata}]))
        r = httpx.post(f"{server}/v1/chat/completions", content=body, headers={"content-type": "application/json"})
        assert r.status_code == 400 and "not valid Unicode" in r.json()["error"]["message"], r.text
    lone = json.dumps({"model": decoder.name, "prompt": "\ud800 who?"})  # ASCII, escaping the lone surrogate
    r = httpx.post(f"{server}/tokenize", content=lone, headers={"content-type": "application/json"})
    assert r.status_code == 400 and "not valid Unicode" in r.json()["error"]["message"]
    for status, message, body, headers in BODIES_NOT_JSON_OBJECTS:
        r = httpx.post(f"{server}/v1/chat/completions", content=body(decoder), headers=headers)
        assert (r.status_code, r.json()["error"]["message"][:len(message)]) == (status, message), r.text
    ok = httpx.post(f"{server}/v1/chat/completions", json=chat_body(decoder), timeout=120)
    assert ok.status_code == 200 and ok.json()["choices"][0]["message"]["content"]


def _gzipped(decoder) -> bytes:
    return gzip.compress(json.dumps(chat_body(decoder)).encode())


BODIES_NOT_JSON_OBJECTS = [  # (status, start of the message, body, headers)
    # curl -d without -H 'Content-Type: application/json' sends a form
    (415, "the request body must be JSON sent with Content-Type: application/json",
     lambda d: json.dumps(chat_body(d)).encode(), {"content-type": "application/x-www-form-urlencoded"}),
    (400, "the request body must be a JSON object with the request's fields, not an array",
     lambda d: json.dumps([chat_body(d)]).encode(), {"content-type": "application/json"}),
    (400, "the request body must be a JSON object with the request's fields, not empty", lambda d: b"",
     {"content-type": "application/json"}),
    (415, "Content-Encoding 'gzip' is not supported", _gzipped,
     {"content-type": "application/json", "content-encoding": "gzip"}),
    (400, "the request body could not be read as JSON", lambda d: b"[" * 100_000 + b"]" * 100_000,
     {"content-type": "application/json"}),
]


def test_oversized_and_trickling_bodies_are_refused_before_parsing(server, decoder):
    """A body over the byte limit gets 413 from its Content-Length (or as its bytes arrive, when it declares none);
    one that trickles in past the body timeout gets 408. The server keeps serving. (Ray Serve's own proxy reads
    bodies before the app does: checked on the single-process server only.)"""
    big = b'{"model": "x", "documents": ["' + b"a" * 2_100_000 + b'"]}'
    r = httpx.post(f"{server}/v1/chat/completions", content=big, headers={"content-type": "application/json"})
    assert r.status_code == 413 and "request body" in r.json()["error"]["message"]

    def chunked():
        for _ in range(300):
            yield b"a" * 10_000

    r = httpx.post(f"{server}/v1/chat/completions", content=chunked(), headers={"content-type": "application/json"})
    assert r.status_code == 413 and "request body" in r.json()["error"]["message"]

    def trickle():  # each piece well within the body timeout (3 s), the whole body not: the limit is on the whole
        yield b'{"model": '
        for _ in range(6):
            time.sleep(1)
            yield b" "
        yield b'"x"}'

    r = httpx.post(f"{server}/v1/chat/completions", content=trickle(), headers={"content-type": "application/json"},
                   timeout=30)
    assert r.status_code == 408 and "did not arrive" in r.json()["error"]["message"]
    ok = httpx.post(f"{server}/v1/chat/completions", json=chat_body(decoder), timeout=120)
    assert ok.status_code == 200


def test_the_openai_client_raises_its_own_error_with_our_message(client, decoder):
    with pytest.raises(openai.BadRequestError, match="no documents were given"):
        client.chat.completions.create(model=decoder.name, messages=[{"role": "user", "content": QUESTION}])
    with pytest.raises(openai.NotFoundError, match="is not served here"):
        client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": QUESTION}],
                                       extra_body={"documents": DOCS})


# ----------------------------------------------------------------- our wrappers with base_url= (issue 14)
def lc_documents():
    from langchain_core.documents import Document as LCDocument

    return [LCDocument(page_content=d["text"], id=d["id"], metadata={"title": d["title"], "relevance_score": d["score"]})
            for d in DOCS]


def test_langchain_wrappers_with_base_url_answer_as_in_process(server, decoder):
    from langchain_core.output_parsers import StrOutputParser
    from langchain_core.runnables import RunnablePassthrough
    from langchain_grounded_rag import ChatGroundedRAG, GroundedPromptTemplate, GroundedRAGLLM

    want = expected(decoder)
    chat = ChatGroundedRAG(base_url=f"{server}/v1", max_tokens=N)
    msg = chat.invoke(QUESTION, documents=lc_documents())
    assert msg.content == want.text
    assert msg.response_metadata["trust"] == pytest.approx(want.trust)
    assert msg.response_metadata["citations"] == [c.model_dump() for c in want.citations]
    assert "".join(c.content for c in chat.stream(QUESTION, documents=lc_documents())) == want.text
    llm = GroundedRAGLLM(base_url=server, decoding={"max_new_tokens": N})
    assert llm.invoke(QUESTION, documents=lc_documents()) == want.text
    # the tutorial chain shape, with the retriever replaced by its documents
    chain = ({"context": lambda _: lc_documents(), "question": RunnablePassthrough()} | GroundedPromptTemplate()
             | chat | StrOutputParser())
    assert chain.invoke(QUESTION) == want.text
    # a batch of questions with different documents: concurrent requests, each equal to its own decode
    other = "What is a transformer?"
    answers = chat.batch([QUESTION, other], documents=lc_documents())
    assert answers[0].content == want.text and answers[1].content == expected(decoder, other).text
    assert chat.get_num_tokens(QUESTION) == len(decoder.tokenizer.encode(QUESTION, add_special_tokens=False))
    assert chat._identifying_params["base_url"] == f"{server}/v1"


def test_langchain_wrappers_with_base_url_fail_with_our_message(server, decoder):
    from langchain_grounded_rag import ChatGroundedRAG

    from grounded_rag import InputError
    from grounded_rag.serving.client import ServerError

    chat = ChatGroundedRAG(base_url=server, max_tokens=N)
    with pytest.raises(InputError, match="answers only grounded requests.*GroundedPromptTemplate"):
        chat.invoke(QUESTION)  # no documents: a server never answers ungrounded
    with pytest.raises(InputError, match="exceeds this server's limit"):
        ChatGroundedRAG(base_url=server, max_tokens=10_000).invoke(QUESTION, documents=lc_documents())
    with pytest.raises(InputError, match="model 'gpt-4o' is not served"):
        ChatGroundedRAG(base_url=server, model="gpt-4o").invoke(QUESTION, documents=lc_documents())
    with pytest.raises(ServerError, match="could not reach the grounded-rag server"):
        ChatGroundedRAG(base_url=f"http://127.0.0.1:{free_port()}").invoke(QUESTION, documents=lc_documents())


def test_llama_index_with_base_url_answers_as_in_process(server, decoder):
    from llama_index.core.schema import NodeWithScore, TextNode
    from llama_index.llms.grounded_rag import GroundedRAG

    from grounded_rag import DecodingConfig

    want = expected(decoder)
    llm = GroundedRAG(base_url=server, decoding=DecodingConfig(max_new_tokens=N), score_space="relevance")
    assert llm.metadata.model_name == decoder.name and llm.metadata.context_window == decoder.context_window
    nodes = [NodeWithScore(node=TextNode(text=d["text"], id_=d["id"], metadata={"title": d["title"]}), score=d["score"])
             for d in DOCS]
    r = llm.complete(QUESTION, documents=nodes)
    assert r.text == want.text and r.additional_kwargs["trust"] == pytest.approx(want.trust)
    assert [s.token_id for s in r.raw.trace] == [s.token_id for s in want.trace]
    assert r.raw.prompts.full == want.prompts.full and r.raw.token_ids == want.token_ids
    assert list(llm.stream_complete(QUESTION, documents=nodes))[-1].text == want.text


def test_warm_up_decodes_where_graphs_are_on(decoder):
    """Every ModelWorker (the server's, Ray's, one made around a caller's decoder) warms its decoder where it decodes
    over graphs (a GPU: the fused step's compile and the graph capture happen before the server listens): the
    default's three rows and one row; on a CPU nothing runs. The static steps stand in for a GPU's here."""
    from grounded_rag.graphs import GraphPool
    from grounded_rag.serving.worker import ModelWorker, warm_up

    assert decoder.graphs is None  # the CPU's default: nothing to warm
    warm_up(decoder)
    decoder.graphs = GraphPool("eager", bucket=16)
    try:
        ModelWorker(decoder, ServeSettings()).close()
        assert sorted(key[1] for key in decoder.graphs.steps) == [1, 3]  # rows of the two steps
        assert all(s.fused is not None for s in decoder.graphs.steps.values())
    finally:
        decoder.graphs = None
