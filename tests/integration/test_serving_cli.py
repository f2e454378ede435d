"""`grounded-rag serve` as users start it: a real subprocess on loopback, driven by the openai client."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import httpx
import openai

from ..conftest import DOCUMENTS, QUESTION
from .test_serving import free_port


def test_grounded_rag_serve_subcommand(decoder):
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "grounded_rag.cli", "serve", "--port", str(port), "--max-batch-size", "4",
         "--log-level", "warning"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env={**os.environ},
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
        client = openai.OpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key="unused", max_retries=0)
        r = client.chat.completions.create(model=decoder.name, messages=[{"role": "user", "content": QUESTION}],
                                           max_tokens=6, extra_body={"documents": DOCUMENTS})
        assert r.choices[0].message.content == decoder.generate(QUESTION, DOCUMENTS, max_new_tokens=6).text
    finally:
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=60) == 0, "uvicorn shuts down cleanly on Ctrl-C"
