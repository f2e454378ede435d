"""An OpenAI-compatible HTTP server over ``GroundedDecoder``, with request batching.

``grounded-rag serve`` runs it in one process (the default); :mod:`grounded_rag.serving.ray_app`
runs the same FastAPI app as a Ray Serve deployment with replicas and autoscaling.
FastAPI and uvicorn come with the ``serve`` extra: ``pip install 'grounded-rag[serve]'``.
"""

from .settings import ServeSettings

__all__ = ["ServeSettings", "create_app", "LocalBackend"]


def __getattr__(name: str):  # FastAPI is an optional extra: import it only when asked for
    if name == "create_app":
        from .app import create_app

        return create_app
    if name == "LocalBackend":
        from .worker import LocalBackend

        return LocalBackend
    raise AttributeError(name)
