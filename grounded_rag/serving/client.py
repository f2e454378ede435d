"""``GroundedClient``: the decoder's interface over HTTP.

The LangChain and LlamaIndex wrappers take ``base_url=`` and then call a running
``grounded-rag serve`` (or its Ray Serve deployment) through this client instead of loading the
model in-process: same documents-and-scores contract, same :class:`GenerationResult` back (trust,
citations, trace). ``generate_batch`` sends its questions concurrently so the server's batcher
decodes them together.
"""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx

from ..config import READ_TIMEOUT_S, DecodingConfig
from ..errors import ContextWindowError, GroundedRAGError, InputError
from ..inputs import documents_and_scores, with_scores
from ..types import Citation, Conflict, Document, GenerationResult, Prompts, TraceStep, WithheldText


class ServerError(GroundedRAGError, RuntimeError):
    """The server could not be reached, or failed on a request it accepted."""


def _documents(documents: Sequence[Any], scores: Sequence[float] | None) -> list[Document]:
    """The documents as the core reads them (its one normaliser), each carrying its score on the trust scale."""
    return with_scores(*documents_and_scores(documents, scores, "relevance"))


def _with(config: DecodingConfig | None, overrides: Mapping[str, Any]) -> DecodingConfig:
    """``config`` (default: DecodingConfig()) with per-call fields, validated like the decoder's."""
    config = config or DecodingConfig()
    return config.override(**overrides)


class GroundedClient:
    """A remote :class:`~grounded_rag.GroundedDecoder`: ``generate``, ``generate_batch``,
    ``stream_with_result``, ``name``, ``context_window`` and ``count_tokens`` over the server's
    OpenAI-compatible routes plus its grounded extension.

    Scores are sent on the trust scale (cosine similarity, ``score_space="relevance"``), as the
    in-process decoder takes them. ``base_url`` may end in ``/v1`` or not.
    """

    def __init__(self, base_url: str, model: str | None = None, timeout: float = READ_TIMEOUT_S,
                 api_key: str | None = None, max_concurrency: int = 64,
                 model_card: dict[str, Any] | None = None, max_retries: int = 2) -> None:
        self.base_url = base_url.rstrip("/").removesuffix("/v1")
        # a busy server's 503/429 is retried after its Retry-After, as OpenAI's client does, at most this many times
        self.max_retries = max_retries
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.timeout = timeout
        self._http = httpx.Client(base_url=self.base_url, timeout=timeout, headers=headers)
        self.max_concurrency = max_concurrency
        self._model = model
        # the server's /v1/models entry for ``model``, where the caller already has it (grounded-rag ask's probe)
        self._card: dict[str, Any] | None = model_card

    # ---------------------------------------------------------------- plumbing
    def _call(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        for attempt in range(self.max_retries + 1):
            try:
                response = self._http.request(method, path, **kwargs)
            except httpx.ReadTimeout:
                raise self._slow() from None
            except httpx.HTTPError as exc:
                raise ServerError(f"could not reach the grounded-rag server at {self.base_url} "
                                  f"({type(exc).__name__}: {exc}); start it with `grounded-rag serve` or check "
                                  "base_url") from None
            if not _wait_and_retry(response, attempt, self.max_retries):
                break
        if response.status_code >= 400:
            raise self._error(response)
        return response

    def _slow(self) -> ServerError:
        """A server reached that sent nothing for ``timeout`` seconds: a queue of long answers on a slow machine, not
        a server that is not there."""
        return ServerError(f"the grounded-rag server at {self.base_url} did not answer within {self.timeout:g} s (it "
                           "may be answering others first); wait longer with GroundedClient(timeout=...) or "
                           "`grounded-rag ask --timeout SECONDS`")

    @staticmethod
    def _error(response: httpx.Response) -> Exception:
        try:
            message = response.json()["error"]["message"]
        except (ValueError, KeyError, TypeError):
            message = response.text[:500]
        if response.status_code == 413:
            return ContextWindowError(message)
        if 400 <= response.status_code < 500:
            return InputError(message)
        return ServerError(f"the server failed ({response.status_code}): {message}")

    def _model_card(self) -> dict[str, Any]:
        if self._card is None:
            cards = self._call("GET", "/v1/models").json()["data"]
            wanted = [c for c in cards if self._model in (None, c["id"])]
            if not wanted:
                raise InputError(f"model {self._model!r} is not served at {self.base_url}; it serves "
                                 f"{[c['id'] for c in cards]}")
            self._card = wanted[0]
        return self._card

    @property
    def name(self) -> str:
        return self._model_card()["id"]

    @property
    def context_window(self) -> int:
        return int(self._model_card().get("max_model_len") or 8192)

    def count_tokens(self, text: str) -> list[int]:
        """The served model's token ids for ``text`` (its own tokenizer, on the server)."""
        body = {"model": self.name, "prompt": text, "add_special_tokens": False}
        return self._call("POST", "/tokenize", json=body).json()["tokens"]

    def _body(self, question: str, docs: list[Document], config: DecodingConfig, stream: bool,
              retrieve_k: int | None = None) -> dict[str, Any]:
        """The request; without documents the server retrieves them from its store (``serve --store``)."""
        decoding = config.flat(mode="json")
        system = decoding.pop("system_prompt", None)
        messages = ([{"role": "system", "content": system}] if system else []) + [{"role": "user", "content": question}]
        documents = [{k: v for k, v in {"text": d.text, "id": d.id, "title": d.title, "score": d.score,
                                        "metadata": d.metadata or None, "trusted": d.trusted or None}.items()
                      if v is not None} for d in docs]
        body = {"model": self.name, "messages": messages, "score_space": "relevance", "decoding": decoding,
                "trace": True, "stream": stream}
        if documents:
            body["documents"] = documents
        if retrieve_k is not None:
            body["retrieve_k"] = retrieve_k
        return body

    @staticmethod
    def _result(text: str, grounding: Mapping[str, Any]) -> GenerationResult:
        """The server's audit (requested with ``trace``) back into the decoder's result type."""
        return GenerationResult(
            text=text, token_ids=grounding["token_ids"], trace=[TraceStep(**s) for s in grounding["trace"]],
            trust=grounding["trust"], trust_source=grounding["trust_source"], method=grounding["method"],
            finish_reason=grounding["finish_reason"], prompts=Prompts(**grounding["prompts"]),
            prompt_tokens=grounding["prompt_tokens"],
            documents=[Document(**d) for d in grounding["documents"]],
            dropped_documents=[Document(**d) for d in grounding["dropped_documents"]],
            irrelevant_documents=[Document(**d) for d in grounding["irrelevant_documents"]],
            document_numbers=grounding["document_numbers"],
            withheld=[WithheldText(**w) for w in grounding.get("withheld", [])],
            citations=[Citation(**c) for c in grounding["citations"]], support=grounding["support"],
            abstained=grounding["abstained"], unsupported_answer=grounding["unsupported_answer"],
            quoted=grounding.get("quoted", False), insisted=grounding.get("insisted", False),
            second_looks=grounding.get("second_looks", []),
            conflicts=[Conflict(**c) for c in grounding.get("conflicts", [])],
        )

    # ---------------------------------------------------------------- the decoder's interface
    def generate(self, question: str, documents: Sequence[Any], scores: Sequence[float] | None = None,
                 config: DecodingConfig | None = None, *, retrieve_k: int | None = None,
                 **overrides: Any) -> GenerationResult:
        """As the decoder's; with no documents, a server started with ``--store`` retrieves ``retrieve_k`` passages
        (default: its own ``--k``) from its store."""
        config = _with(config, overrides)
        docs = _documents(documents, scores)
        body = self._call("POST", "/v1/chat/completions",
                          json=self._body(question, docs, config, False, retrieve_k)).json()
        return self._result(body["choices"][0]["message"]["content"], body["grounding"])

    def generate_batch(self, requests: Sequence[Mapping[str, Any]], config: DecodingConfig | None = None,
                       **overrides: Any) -> list[GenerationResult]:
        """One request per question, sent together: the server's batcher decodes them in one batch."""
        if not requests:
            return []
        with ThreadPoolExecutor(max_workers=min(self.max_concurrency, len(requests))) as pool:
            futures = [pool.submit(self.generate, r["question"], r.get("documents") or [], r.get("scores"), config,
                                   **overrides) for r in requests]
            return [f.result() for f in futures]

    def stream_with_result(self, question: str, documents: Sequence[Any], scores: Sequence[float] | None = None,
                           config: DecodingConfig | None = None, *, retrieve_k: int | None = None,
                           **overrides: Any) -> Iterator[tuple[str, GenerationResult | None]]:
        """Text pieces as the server streams them; the last item carries the full result."""
        config = _with(config, overrides)
        docs = _documents(documents, scores)
        body = self._body(question, docs, config, True, retrieve_k)
        pieces: list[str] = []
        try:
            for attempt in range(self.max_retries + 1):  # a busy server refuses before streaming anything
                with self._http.stream("POST", "/v1/chat/completions", json=body) as response:
                    if response.status_code >= 400:
                        response.read()
                        if _wait_and_retry(response, attempt, self.max_retries):
                            continue
                        raise self._error(response)
                    yield from self._events(response, pieces)
                    return
        except httpx.ReadTimeout:
            raise self._slow() from None
        except httpx.HTTPError as exc:
            raise ServerError(f"the stream from {self.base_url} broke ({type(exc).__name__}: {exc})") from None

    def _events(self, response: httpx.Response, pieces: list[str]) -> Iterator[tuple[str, GenerationResult | None]]:
        """The streamed pieces of one answer, the last with its result."""
        for line in response.iter_lines():
            if not line.startswith("data: ") or line == "data: [DONE]":
                continue
            event = json.loads(line[len("data: "):])
            if "error" in event:
                raise ServerError(f"the server failed mid-stream: {event['error']['message']}")
            if not event.get("choices"):
                continue
            piece = event["choices"][0].get("delta", {}).get("content") or ""
            pieces.append(piece)
            if "grounding" in event:
                yield piece, self._result("".join(pieces).strip(), event["grounding"])
                return
            if piece:
                yield piece, None
        raise ServerError("the server closed the stream without the final grounding chunk")

    def close(self) -> None:
        self._http.close()


RETRY_AFTER_CAP_S = 60.0  # the longest wait for one retry, whatever Retry-After says


def _wait_and_retry(response: httpx.Response, attempt: int, retries: int) -> bool:
    """Whether to send the request again: the server was busy (503 or 429 with Retry-After) and retries are left;
    waits the seconds it asked for (at most RETRY_AFTER_CAP_S) first."""
    after = response.headers.get("Retry-After", "")
    if response.status_code not in (429, 503) or attempt >= retries or not after.strip().isdigit():
        return False
    response.close()
    time.sleep(min(float(after), RETRY_AFTER_CAP_S))
    return True


@functools.lru_cache(maxsize=32)
def connect(base_url: str, model: str | None = None, timeout: float = READ_TIMEOUT_S) -> GroundedClient:
    """One client (and connection pool) per server and model, shared like ``load_shared``'s models."""
    return GroundedClient(base_url, model=model, timeout=timeout)
