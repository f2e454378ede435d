"""`grounded-rag serve` as users start it: a real subprocess on loopback, driven by the openai client."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time

import httpx
import openai
import pytest

from grounded_rag.cli import main

from ..conftest import DOCUMENTS, QUESTION
from .test_serving import free_port

KEY = "gr-test-4f1c9a"


def test_serving_beyond_loopback_needs_a_key_or_an_explicit_choice(monkeypatch, capsys):
    """Refused before the model loads: a non-loopback bind with no key, unless the operator says so."""
    monkeypatch.delenv("GROUNDED_RAG_API_KEY", raising=False)
    for host in ("0.0.0.0", "::", "192.168.1.20", "my-host.example"):
        assert main(["serve", "--host", host]) == 2
        assert "GROUNDED_RAG_API_KEY" in capsys.readouterr().err
    with pytest.raises(SystemExit):  # the OS would wrap 99999 round to another port, and the log would name 99999
        main(["serve", "--port", "99999"])
    assert "99999 is not a TCP port; use 0 to 65535" in capsys.readouterr().err
    with socket.socket() as taken:  # a port in use is said at once, not by uvicorn after the model has loaded
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["serve", "--port", str(port)]) == 2
        assert f"cannot listen on --host 127.0.0.1 --port {port}: Address already in use" in capsys.readouterr().err
    assert main(["serve", "--host", "no-such-host.invalid", "--allow-unauthenticated"]) == 2
    assert "cannot listen on --host no-such-host.invalid" in capsys.readouterr().err
    assert main(["serve", "--api-key", ""]) == 2  # --api-key "$KEY" with KEY unset: not a server without a key
    assert "--api-key is empty" in capsys.readouterr().err
    for key in ("clé-secrète", "two words", "tab\tkey"):  # no client could send it: refused before the model loads
        done = subprocess.run([sys.executable, "-m", "grounded_rag.cli", "serve", "--api-key", key, "--port", "0"],
                              capture_output=True, text=True, timeout=300)  # a server that started: a timeout
        assert done.returncode == 2, done.stderr
        assert "api_key: the API key must be printable ASCII without spaces" in done.stderr, done.stderr
        assert key not in done.stderr, "the key is not echoed into logs"


def test_grounded_rag_serve_subcommand(decoder):
    """With GROUNDED_RAG_API_KEY set, as an operator would: the key is required (OpenAI's 401 otherwise), /health
    stays open for load balancers, and a client with the key gets the in-process answer."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "grounded_rag.cli", "serve", "--port", str(port), "--max-batch-size", "4",
         "--log-level", "warning"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env={**os.environ, "GROUNDED_RAG_API_KEY": KEY},
    )
    try:
        deadline = time.monotonic() + 240
        while True:
            assert proc.poll() is None, proc.stdout.read()
            try:
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "server did not start"
            time.sleep(0.5)
        base = f"http://127.0.0.1:{port}/v1"
        for wrong in ("sk-wrong", KEY + "x"):
            with pytest.raises(openai.AuthenticationError, match="wrong API key"):
                openai.OpenAI(base_url=base, api_key=wrong, max_retries=0).models.list()
        bare = httpx.post(f"{base}/chat/completions", json={"model": decoder.name, "messages": []}, timeout=10)
        assert bare.status_code == 401 and bare.json()["error"]["code"] == "invalid_api_key"
        lower = httpx.get(f"{base}/models", headers={"authorization": f"bearer {KEY}"}, timeout=10)
        assert lower.status_code == 200, "the auth scheme is case-insensitive (RFC 9110)"
        client = openai.OpenAI(base_url=base, api_key=KEY, max_retries=0)
        r = client.chat.completions.create(model=decoder.name, messages=[{"role": "user", "content": QUESTION}],
                                           max_tokens=6, extra_body={"documents": DOCUMENTS})
        assert r.choices[0].message.content == decoder.generate(QUESTION, DOCUMENTS, max_new_tokens=6).text
    finally:
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=60) == 0, "uvicorn shuts down cleanly on Ctrl-C"
