"""How ``grounded-rag ask`` finds a running ``grounded-rag serve`` that answers as it would in-process: the same
release, model and store. A question then costs one request instead of importing torch and loading the model, the
way the Ollama CLI uses its daemon. Nothing here imports torch, transformers or the server's libraries."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx

from .. import __version__
from ..config import DEFAULT_MODEL, MODEL_ALIASES, READ_TIMEOUT_S
from ..errors import InputError

if TYPE_CHECKING:
    from .client import GroundedClient
    from .settings import ServeSettings

DEFAULT_URL = "http://127.0.0.1:8000"  # where `grounded-rag serve` listens by default
PROBE_TIMEOUT_S = 1.0


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()[:16]


def model_id(spec: str | None) -> str:
    """One name per model however it is spelt (an alias, a relative path): hashed, so a server's card does not show
    its folders."""
    name = MODEL_ALIASES.get(spec or DEFAULT_MODEL, spec or DEFAULT_MODEL)
    path = Path(name).expanduser()
    return _digest(str(path.resolve()) if path.exists() else name)


def store_id(path: str | Path) -> str:
    """A store folder's name, hashed like :func:`model_id`."""
    return _digest(str(Path(path).expanduser().resolve()))


def card_fields(settings: ServeSettings) -> dict[str, Any]:
    """What a server says of itself in ``GET /v1/models`` so that ``ask`` can tell whether it would answer alike."""
    out = {"grounded_rag_version": __version__, "model_id": model_id(settings.model)}
    if settings.store is not None:
        out["store_id"] = store_id(settings.store)
    return out


def _mismatch(card: dict[str, Any], model: str | None, store: str | None) -> str | None:
    if card.get("grounded_rag_version") != __version__:
        return f"it runs grounded-rag {card.get('grounded_rag_version')}, this is {__version__}"
    if card.get("model_id") != model_id(model):
        return f"it serves another model than {model or DEFAULT_MODEL}"
    if store is not None and card.get("store_id") != store_id(store):
        return f"it was not started with --store {store}"
    return None


def find_server(url: str | None, model: str | None, store: str | None,
                note: Callable[[str], None] | None = None, timeout: float = READ_TIMEOUT_S) -> GroundedClient | None:
    """A client of the server at ``url`` (else ``GROUNDED_RAG_URL``, else serve's default address) when it answers as
    the in-process decoder would; None when no server listens there or it differs (the answer is the same either
    way, only slower). A server given as ``url`` that cannot answer is an error saying why: the caller asked for it.
    ``GROUNDED_RAG_API_KEY`` is sent as the key to a server named by ``url`` or ``GROUNDED_RAG_URL``. A server found
    at the default address that is not used (it needs a key, or would answer otherwise) is said through ``note``:
    the user may have meant it to answer. Another program there (no server card) is passed over in silence."""
    named = url or os.environ.get("GROUNDED_RAG_URL")
    base = (named or DEFAULT_URL).rstrip("/").removesuffix("/v1")
    # the key goes only to a server the user named: whatever listens on the default port may not be theirs
    key = (os.environ.get("GROUNDED_RAG_API_KEY") or None) if named else None
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    try:
        response = httpx.get(f"{base}/v1/models", headers=headers, timeout=PROBE_TIMEOUT_S)
        card = response.json()["data"][0] if response.status_code == 200 else None
        problem = (_mismatch(card, model, store) if card is not None else _refused(response.status_code, base, named))
        # a card, or a refusal for want of a key, is a grounded-rag server; another program there gets no line
        ours = card is not None or response.status_code in (401, 403)
    except (httpx.HTTPError, ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
        card, problem, ours = None, f"no grounded-rag server answered ({type(exc).__name__})", False
    if problem is None and card is not None:
        from .client import GroundedClient

        return GroundedClient(base, model=card["id"], api_key=key, model_card=card,  # no second /v1/models
                              timeout=timeout)
    if url:
        raise InputError(f"the server at {base} cannot answer this question as asked: {problem}"
                         "; start one with the same --model and --store, or pass --local to answer in this process")
    if note is not None and ours and not named:
        note(f"the grounded-rag server at {base} was not used ({problem}); answering in this process")
    return None


def _refused(status: int, base: str, named: str | None) -> str:
    if status in (401, 403) and not named:  # the key is never sent to an address the user did not name
        return (f"it answered {status}: it needs a key, sent only to a server you name: --server {base} (or "
                "GROUNDED_RAG_URL) with GROUNDED_RAG_API_KEY set")
    return f"it answered {status} (set GROUNDED_RAG_API_KEY if it needs a key)"
