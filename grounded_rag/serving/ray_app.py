"""The same FastAPI app as a Ray Serve deployment: replicas, ``@serve.batch`` and autoscaling.

Each replica loads the model once and owns one model thread; ``@serve.batch`` gathers the
replica's concurrent requests into one call, which decodes them grouped by config under the token
budget (the same ``run_jobs`` as the single-process server). Runs unchanged on a laptop's local Ray
and on a cluster::

    serve run grounded_rag.serving.ray_app:app                       # local Ray, autoscaling
    serve run grounded_rag.serving.ray_app:build_app model=gemma3-270m max_batch_size=16
    grounded-rag serve --ray [--ray-address ray://head:10001] [--replicas 2]

Needs the ``ray`` extra: ``pip install 'grounded-rag[ray]'``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from ray import serve
from ray.serve import Application

from .app import create_app
from .settings import ServeSettings
from .worker import Job, ModelWorker, Outcome

#: Scale on queued work: a replica batches well up to ~``max_batch_size`` requests in flight.
AUTOSCALING: dict[str, Any] = {
    "min_replicas": 1,
    "initial_replicas": 1,
    "max_replicas": 4,
    "target_ongoing_requests": 24,
    "upscale_delay_s": 10,
    "downscale_delay_s": 120,
}


@serve.deployment(
    name="GroundedRAG",
    autoscaling_config=AUTOSCALING,
    max_ongoing_requests=64,  # must exceed max_batch_size, or a replica never sees a full batch
    ray_actor_options={"num_cpus": 1},
    health_check_period_s=10,
)
@serve.ingress()
class GroundedDeployment:
    """One replica: the decoder, its model thread and the app (built per replica by
    ``__serve_build_asgi_app__`` so the routes reach this replica's batcher)."""

    def __init__(self, settings: dict[str, Any] | ServeSettings | None = None) -> None:
        self.settings = settings if isinstance(settings, ServeSettings) else ServeSettings(**(settings or {}))
        self.worker = ModelWorker.load(self.settings)
        self._decode_batch.set_max_batch_size(self.settings.max_batch_size)
        self._decode_batch.set_batch_wait_timeout_s(self.settings.batch_window_ms / 1000)

    @serve.batch(max_batch_size=32, batch_wait_timeout_s=0.015)
    async def _decode_batch(self, jobs: list[Job]) -> list[Outcome | Exception]:
        # A refused job comes back as its exception (raised in `generate`), so it fails alone.
        return await self.worker.run(jobs)

    async def generate(self, job: Job) -> Outcome:
        outcome = await self._decode_batch(job)
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    async def stream(self, job: Job) -> tuple[int, AsyncIterator[tuple[str, Outcome | None]]]:
        return await self.worker.start_stream(job)

    def __serve_build_asgi_app__(self):
        return create_app(self, self.settings)

    def __del__(self) -> None:
        self.worker.close()


def build_app(args: dict[str, Any] | None = None, num_replicas: int | str | None = None) -> Application:
    """A bound application; ``args`` are ServeSettings fields (``serve run ...:build_app key=value``).

    ``num_replicas``: a fixed count, or None / ``"auto"`` for the autoscaling config."""
    settings = ServeSettings(**(args or {}))
    options: dict[str, Any] = {}
    if num_replicas not in (None, "auto"):
        options = {"num_replicas": int(num_replicas), "autoscaling_config": None}
    return GroundedDeployment.options(**options).bind(settings.model_dump())


def run_on_ray(settings: ServeSettings, host: str = "127.0.0.1", port: int = 8000, address: str | None = None,
               replicas: int | str | None = "auto") -> None:
    """``grounded-rag serve --ray``: start (or join) Ray, serve on ``host:port``, block until stopped."""
    import ray

    ray.init(address=address, ignore_reinit_error=True)
    serve.start(http_options={"host": host, "port": port})
    serve.run(build_app(settings.model_dump(), replicas), name="grounded-rag", route_prefix="/", blocking=True)


app = build_app()
