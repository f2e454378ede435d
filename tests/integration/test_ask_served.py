"""`grounded-rag ask` through a running `grounded-rag serve --store`: the answer it would give in-process, from a
process that imports neither torch nor the model; and the server's own retrieval for requests without documents."""

from __future__ import annotations

import subprocess
import sys

import openai
import pytest

from grounded_rag.cli import main
from grounded_rag.retrieval import ChromaStore
from grounded_rag.serving.client import GroundedClient, ServerError

from ..conftest import DOCUMENTS, QUESTION
from .test_serving import free_port, local_server

N = 8


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> str:
    folder = tmp_path_factory.mktemp("served")
    files = []
    for i, text in enumerate(DOCUMENTS):
        path = folder / f"doc{i}.md"
        path.write_text(text, encoding="utf-8")
        files.append(str(path))
    assert main(["ingest", *files, "--store", str(folder / "store")]) == 0
    return str(folder / "store")


def test_ask_through_a_server_of_the_same_store_prints_the_local_answer(decoder, store, capsys, monkeypatch):
    ask = ["ask", QUESTION, "--store", store, "--k", "2", "--max-new-tokens", str(N)]
    assert main([*ask, "--local"]) == 0
    local = capsys.readouterr().out
    assert "Sources" in local or "abstained" in local
    with local_server(decoder, store=store) as (url, backend):
        assert main([*ask, "--server", url]) == 0
        assert capsys.readouterr().out == local
        assert backend.worker.stats["batched_requests"] == 1
        monkeypatch.setenv("GROUNDED_RAG_URL", url)  # found without --server, as at serve's default address
        assert main(ask) == 0
        assert capsys.readouterr().out == local
        assert backend.worker.stats["batched_requests"] == 2
        assert main([*ask, "--local"]) == 0  # --local: this process answers, the server is not asked
        assert backend.worker.stats["batched_requests"] == 2
        code = ("import sys; from grounded_rag.cli import main; rc = main(sys.argv[1:]); "
                "assert 'torch' not in sys.modules and 'transformers' not in sys.modules; sys.exit(rc)")
        out = subprocess.run([sys.executable, "-c", code, *ask, "--server", url], capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        assert out.stdout == local


def test_ask_keeps_away_from_a_server_that_would_answer_otherwise(decoder, store, tmp_path, capsys, monkeypatch):
    other = tmp_path / "other"
    ChromaStore.open(other, create=True)
    with local_server(decoder, store=str(other)) as (url, backend):
        assert main(["ask", QUESTION, "--store", store, "--server", url]) == 2
        err = capsys.readouterr().err
        assert "not started with --store" in err and "--local" in err
        monkeypatch.setenv("GROUNDED_RAG_URL", url)  # found, not named: another store, so this process answers
        assert main(["ask", QUESTION, "--store", store, "--max-new-tokens", "2", "--no-sources"]) == 0
        assert capsys.readouterr().out.strip()
        assert backend.worker.stats["batched_requests"] == 0
    assert main(["ask", QUESTION, "--store", store, "--server", url]) == 2  # nobody there now
    assert "no grounded-rag server answered" in capsys.readouterr().err


def test_a_server_with_a_store_retrieves_for_requests_without_documents(decoder, store, tmp_path):
    hits = ChromaStore.open(store).search(QUESTION, k=2)
    want = decoder.generate(QUESTION, [h.document for h in hits], scores=[h.score for h in hits], max_new_tokens=N)
    with local_server(decoder, store=store, retrieve_k=2) as (url, _):
        client = openai.OpenAI(base_url=f"{url}/v1", api_key="unused", max_retries=0)
        ask = dict(model=decoder.name, messages=[{"role": "user", "content": QUESTION}], max_tokens=N)
        r = client.chat.completions.create(**ask)
        assert r.choices[0].message.content == want.text
        grounding = r.model_extra["grounding"]
        assert [d["id"] for d in grounding["documents"]] == [d.id for d in want.documents]
        assert grounding["cited_documents"] == want.metadata()["cited_documents"]
        one = client.chat.completions.create(**ask, extra_body={"retrieve_k": 1, "trace": True})
        assert len(one.model_extra["grounding"]["documents"]) + \
            len(one.model_extra["grounding"]["irrelevant_documents"]) == 1
        with pytest.raises(openai.BadRequestError, match="drop one of the two"):
            client.chat.completions.create(**ask, extra_body={"retrieve_k": 2, "documents": DOCUMENTS})
        with pytest.raises(openai.BadRequestError, match="retrieve_k"):
            client.chat.completions.create(**ask, extra_body={"retrieve_k": 0})
    with local_server(decoder) as (url, _):
        client = openai.OpenAI(base_url=f"{url}/v1", api_key="unused", max_retries=0)
        with pytest.raises(openai.BadRequestError, match="--store"):
            client.chat.completions.create(**ask)
        with pytest.raises(openai.BadRequestError, match="needs a server started with --store"):
            client.chat.completions.create(**ask, extra_body={"retrieve_k": 2})
    empty = tmp_path / "empty"
    ChromaStore.open(empty, create=True)
    with local_server(decoder, store=str(empty)) as (url, _):
        client = openai.OpenAI(base_url=f"{url}/v1", api_key="unused", max_retries=0)
        with pytest.raises(openai.BadRequestError, match="holds no passages"):
            client.chat.completions.create(**ask)


def test_serve_refuses_a_store_that_is_not_there(tmp_path, capsys):
    assert main(["serve", "--store", str(tmp_path / "missing"), "--port", "1"]) == 2
    assert "no Chroma store" in capsys.readouterr().err


def test_ask_sends_its_key_to_the_server_it_was_told_of(decoder, store, capsys, monkeypatch):
    ask = ["ask", QUESTION, "--store", store, "--max-new-tokens", "2", "--no-sources"]
    with local_server(decoder, store=store, api_key="gr-ask-key") as (url, backend):
        monkeypatch.delenv("GROUNDED_RAG_API_KEY", raising=False)
        assert main([*ask, "--server", url]) == 2
        assert "GROUNDED_RAG_API_KEY" in capsys.readouterr().err
        monkeypatch.setenv("GROUNDED_RAG_API_KEY", "gr-ask-key")
        assert main([*ask, "--server", url]) == 0
        assert backend.worker.stats["batched_requests"] == 1


def test_ask_says_why_it_passed_over_a_server_at_the_default_address(decoder, store, tmp_path, capsys, monkeypatch):
    """A server at serve's default address that needs a key (never sent to an address the user did not name), or
    serves another store, is not used; ask says so on stderr and answers here, instead of loading the model
    silently."""
    from grounded_rag.serving import discovery

    ask = ["ask", QUESTION, "--store", store, "--max-new-tokens", "2", "--no-sources"]
    monkeypatch.delenv("GROUNDED_RAG_URL", raising=False)
    monkeypatch.setenv("GROUNDED_RAG_API_KEY", "gr-ask-key")
    with local_server(decoder, store=store, api_key="gr-ask-key") as (url, backend):
        monkeypatch.setattr(discovery, "DEFAULT_URL", url)  # this test's server, where serve listens by default
        assert main(ask) == 0
        captured = capsys.readouterr()
        assert captured.out.strip() and backend.worker.stats["batched_requests"] == 0
        assert f"was not used (it answered 401: it needs a key, sent only to a server you name: --server {url}" \
            in captured.err
    other = tmp_path / "other"
    ChromaStore.open(other, create=True)
    with local_server(decoder, store=str(other)) as (url, backend):
        monkeypatch.setattr(discovery, "DEFAULT_URL", url)
        assert main(ask) == 0
        assert "was not used (it was not started with --store" in capsys.readouterr().err
        assert backend.worker.stats["batched_requests"] == 0


def test_ask_that_waits_past_its_timeout_says_the_server_was_slow_not_absent(decoder, store, capsys):
    """A server that is reached but has not answered within ``--timeout`` (a queue of long answers on a slow machine)
    is not reported as unreachable; the message says how to wait longer. No server answers in a millisecond."""
    ask = ["ask", QUESTION, "--store", store, "--max-new-tokens", str(N), "--no-sources"]
    with local_server(decoder, store=store) as (url, _):
        assert main([*ask, "--server", url, "--timeout", "0.001"]) == 2
        err = capsys.readouterr().err
        assert f"the grounded-rag server at {url} did not answer within 0.001 s" in err and "--timeout" in err, err
        assert "could not reach" not in err
        for bad in ("0", "-3", "inf", "nan"):
            assert main([*ask, "--server", url, "--timeout", bad]) == 2
            assert "--timeout must be a positive number of seconds" in capsys.readouterr().err
        assert main([*ask, "--server", url, "--timeout", "600"]) == 0
        assert capsys.readouterr().out.strip()
        client = GroundedClient(url, timeout=0.001)  # a stream that sends nothing in time says the same
        with pytest.raises(ServerError, match="did not answer within 0.001 s"):
            list(client.stream_with_result(QUESTION, DOCUMENTS, max_new_tokens=N))
    nobody = GroundedClient(f"http://127.0.0.1:{free_port()}")  # a stream to no server: unreachable, as a request
    with pytest.raises(ServerError, match="could not reach the grounded-rag server at .*grounded-rag serve"):
        list(nobody.stream_with_result(QUESTION, DOCUMENTS, max_new_tokens=N))
