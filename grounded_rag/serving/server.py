"""``grounded-rag serve``: the single-process server (the default)."""

from __future__ import annotations

import uvicorn
from fastapi import FastAPI

from ..decoder import GroundedDecoder
from .app import create_app
from .limits import uvicorn_options
from .settings import ServeSettings
from .worker import LocalBackend, ModelWorker


def build_app(settings: ServeSettings | None = None, decoder: GroundedDecoder | None = None) -> FastAPI:
    """Load the model (unless given) and wrap it in the batching backend and the app."""
    settings = settings or ServeSettings()
    worker = ModelWorker(decoder, settings) if decoder is not None else ModelWorker.load(settings)
    return create_app(LocalBackend(settings=settings, worker=worker), settings)


def run(app: FastAPI, settings: ServeSettings, host: str = "127.0.0.1", port: int = 8000,
        log_level: str = "info") -> None:
    """Serve ``app`` (from :func:`build_app` with the same ``settings``) with the settings' connection limits."""
    uvicorn.run(app, host=host, port=port, log_level=log_level, **uvicorn_options(settings))


def serve(settings: ServeSettings, host: str = "127.0.0.1", port: int = 8000, log_level: str = "info") -> None:
    run(build_app(settings), settings, host=host, port=port, log_level=log_level)
