"""schemathesis against a real server on loopback: requests generated from the server's own OpenAPI schema, valid
and invalid, on every route. No answer may be a 5xx, every status code and body must be the documented ones, and
the server must still answer a normal request afterwards.

Each generated body is steered past the first checks (:func:`reach_decoding`: a random model name only ever meets
the 404), so the cases reach validation and decoding. ``positive_data_acceptance`` is left out: the schema cannot say every rule the server
enforces (documents required and non-empty, one prompt per request, the served model's name)."""

from __future__ import annotations

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import positive_data_acceptance

from .test_serving import chat_body, local_server


@pytest.fixture(scope="module")
def served(decoder):
    with local_server(decoder, batch_window_ms=0, max_tokens_limit=8, max_documents=4) as (url, _):
        yield url


def reach_decoding(body: dict, model: str, path: str) -> None:
    """Steer a generated body past the checks that would stop every case first, so the fuzzing reaches the core:
    the served model's name, some documents and a user message where missing, and at most 4 new tokens."""
    body["model"] = model
    if path == "/tokenize":
        return
    if not body.get("documents"):
        body["documents"] = ["Paris is the capital of France."]
    messages = body.get("messages")
    if isinstance(messages, list) and not any(isinstance(m, dict) and m.get("role") == "user" for m in messages):
        messages.append({"role": "user", "content": "Where is Paris?"})
    for key in ("max_tokens", "max_completion_tokens"):
        if isinstance(body.get(key), int) and not isinstance(body[key], bool):
            body[key] = min(body[key], 4)
    if body.get("max_tokens") is None and body.get("max_completion_tokens") is None:
        body["max_tokens"] = 4


def test_no_server_error_and_every_response_as_documented(decoder, served):
    """Each route's cases from its own strategy (schemathesis' pytest plugin does not run under this pytest), run
    through hypothesis and checked by schemathesis' checks."""
    schema = schemathesis.openapi.from_url(f"{served}/openapi.json")
    operations = [result.ok() for result in schema.get_all_operations()]
    assert {f"{op.method.upper()} {op.path}" for op in operations} >= {
        "POST /v1/chat/completions", "POST /v1/completions", "POST /tokenize", "GET /v1/models", "GET /health"}
    for operation in operations:
        @settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck), database=None,
                  derandomize=True)  # the same cases on every run: CI fails on a finding, never by chance
        @given(case=operation.as_strategy())
        def run(case):
            if isinstance(case.body, dict):
                reach_decoding(case.body, decoder.name, case.path)
            case.call_and_validate(base_url=served, excluded_checks=[positive_data_acceptance], timeout=120)

        run()


def test_the_server_answers_normally_after_the_fuzzing(decoder, served):
    ok = httpx.post(f"{served}/v1/chat/completions", json=chat_body(decoder), timeout=120)
    assert ok.status_code == 200 and ok.json()["choices"][0]["message"]["content"]
