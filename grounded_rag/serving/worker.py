"""The model side of the server: one thread owns the model (:mod:`~grounded_rag.serving.scheduler`: small work
runs inside large work's pauses), batches are grouped by config and packed under a token budget, and streams are
bridged from that thread to the event loop.

Torch runs in a single worker thread so the event loop stays free to accept requests while a batch
decodes; every call into the decoder (tokenizer included) happens on that thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import warnings
from collections import defaultdict, deque
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .. import learned_screen
from ..config import DecodingConfig
from ..decoder import GroundedDecoder
from ..errors import GroundedRAGWarning, InputError, ModelLoadError
from ..inputs import Request
from ..methods import get_method
from ..encoders import query_encoder_layers
from .admission import Admission, CostCounter, Overloaded
from .scheduler import LARGE, SMALL, STREAM, ModelThread
from .jobs import Job, Outcome
from .settings import ServeSettings

__all__ = ["Job", "Outcome", "ModelWorker", "LocalBackend", "Overloaded", "run_jobs", "pack", "warm_up"]


@dataclass
class _Planned:
    index: int
    request: Request
    max_new_tokens: int

    @property
    def cost(self) -> int:
        """Tokens the batch budget counts: every stream's prompt and answer."""
        return sum(len(ids) + self.max_new_tokens for ids in self.request.token_ids)


def pack(items: Sequence[_Planned], max_batch_tokens: int) -> list[list[_Planned]]:
    """Split one config group into batches under the token budget (a job over budget runs alone)."""
    batches: list[list[_Planned]] = []
    current: list[_Planned] = []
    used = 0
    for item in items:
        if current and used + item.cost > max_batch_tokens:
            batches.append(current)
            current, used = [], 0
        current.append(item)
        used += item.cost
    if current:
        batches.append(current)
    return batches


def run_jobs(decoder: GroundedDecoder, jobs: Sequence[Job], max_batch_tokens: int,
             gone: Callable[[], Sequence[bool]] | None = None) -> list[Outcome | Exception]:
    """Decode many jobs: each config group planned once (its passages scored for relevance in one packed pass), then
    answered in as few batches as the token budget allows. A job the core refuses gets its own InputError back; the
    others still run. Runs on the model thread."""
    out: list[Outcome | Exception | None] = [None] * len(jobs)
    groups: dict[str, list[int]] = defaultdict(list)
    for i, job in enumerate(jobs):
        groups[job.key].append(i)
    for members in groups.values():
        config = jobs[members[0]].config
        method = get_method(config.method)
        with warnings.catch_warnings():  # the dropped documents are reported in the response instead
            warnings.simplefilter("ignore", GroundedRAGWarning)
            planned = decoder.plan([{"question": jobs[i].question, "documents": jobs[i].documents} for i in members],
                                   config, method, raise_errors=False)
        ready = []
        for i, request in zip(members, planned):
            if isinstance(request, InputError):
                out[i] = request
            else:
                ready.append(_Planned(i, request, config.max_new_tokens))
        for batch in pack(ready, max_batch_tokens):
            try:
                results = decoder.answer([p.request for p in batch], config, method, gone=_of(gone, batch))
            except Exception as exc:  # noqa: BLE001 - handed to each waiting request, not swallowed
                for p in batch:
                    out[p.index] = exc
                continue
            for p, result in zip(batch, results):
                out[p.index] = Outcome(result, len(p.request.token_ids[0]))
    return out  # type: ignore[return-value]


def _of(gone: Callable[[], Sequence[bool]] | None, batch: Sequence[_Planned]) -> Callable[[], list[bool]] | None:
    """Which of one packed batch's requests have lost their client, read from the whole group's flags."""
    if gone is None:
        return None

    def rows() -> list[bool]:
        left = gone()
        return [left[p.index] for p in batch]

    return rows


@dataclass
class StreamHandle:
    """A stream decoding on the model thread; ``events`` receives pieces, then the final outcome. ``sent`` and
    ``read`` count the pieces put by the model thread and taken by the response: a client that stops reading shows
    as pieces left unread."""

    events: asyncio.Queue = field(default_factory=asyncio.Queue)
    cancelled: bool = False
    sent: int = 0
    read: int = 0


class StreamStalled(Exception):
    """The client read nothing of its stream for ``stream_stall_s``: its decoding was stopped."""


STREAM_LAG = 64  # pieces a stream may run ahead of its reader before its decoding pauses


def warm_up(decoder: GroundedDecoder) -> None:
    """On a GPU a process's first decode compiles the fused decode step (seconds, once; a one-row batch compiles once
    more) and captures its graph: a server does both before it takes requests, not in its first requests' time. No
    support check, so no abstention skips the decode. The learned screen's encoder loads here too; where it cannot,
    the server still starts, warning, and only requests that use the screen are refused (with its fix)."""
    try:
        learned_screen.warm()
    except ModelLoadError as exc:
        warnings.warn(f"the learned screen cannot load: {exc}", GroundedRAGWarning, stacklevel=2)
    if decoder.graphs is not None:
        for method in (DecodingConfig().method, "standard"):  # the default's three rows; one row
            decoder.generate("What colour is the sky?", ["The sky is blue."], method=method, max_new_tokens=2,
                             attribute=False)


class ModelWorker:
    """Owns the decoder and the one thread that runs it (a :class:`ModelThread`, whose pauses between the model's
    layers come from hooks on them, removed by :meth:`close`), and counts requests' costs beside it."""

    def __init__(self, decoder: GroundedDecoder, settings: ServeSettings, executor: ModelThread | None = None) -> None:
        self.decoder = decoder
        self.settings = settings
        self.executor = executor or ModelThread()
        self.executor.nesting = decoder.graphs is None  # a GPU's graphs replay over buffers a nested decode would use
        self.executor.submit(warm_up, decoder).result()  # a GPU's compile and capture before the first request
        self.stats = {"batches": 0, "batched_requests": 0, "largest_batch": 0, "streams": 0, "streams_stopped": 0}
        self.counter = CostCounter(decoder.tokenizer, decoder.context_window)
        self._hooks = self._pause_between_layers()

    def _pause_between_layers(self) -> list[Any]:
        """A pause point before each layer of the model and of the learned screen's encoder (on the model thread,
        inside work that may pause): a long forward pass of either lets smaller work in."""
        if not self.executor.nesting:
            return []
        try:
            layers = list(self.decoder.model.get_decoder().layers)
        except AttributeError:  # another layout: pauses between tokens (and in the encoder) only
            layers = []
        with contextlib.suppress(ModelLoadError):  # no encoder: the screen's requests are refused anyway
            layers += query_encoder_layers()
        pause = self.executor.pause
        return [layer.register_forward_pre_hook(lambda _module, _args: pause(layer=True)) for layer in layers]

    @classmethod
    def load(cls, settings: ServeSettings) -> ModelWorker:
        """Load ``settings.model`` on the thread that will run it, so torch never runs on another (see :meth:`call`)."""
        thread = ModelThread()
        return cls(thread.submit(GroundedDecoder.from_pretrained, settings.model, backend=settings.backend).result(),
                   settings, thread)

    @property
    def model_name(self) -> str:
        return self.settings.served_model_name or self.decoder.name

    def level(self, job: Job, streamed: bool = False) -> int:
        """The scheduling level of a job (:mod:`~grounded_rag.serving.scheduler`) by its cost."""
        return LARGE if job.cost > self.settings.large_request_cost else STREAM if streamed else SMALL

    async def run(self, jobs: Sequence[Job], gone: Callable[[], Sequence[bool]] | None = None, level: int = SMALL
                  ) -> list[Outcome | Exception]:
        """The jobs decoded on the model thread at ``level``; ``gone`` says at every token which jobs' clients have
        left, and every token is a pause point."""
        self.stats["batches"] += 1
        self.stats["batched_requests"] += len(jobs)
        self.stats["largest_batch"] = max(self.stats["largest_batch"], len(jobs))

        def pausing() -> Sequence[bool]:
            self.executor.pause()
            return gone() if gone is not None else [False] * len(jobs)

        future = self.executor.submit_as(level, run_jobs, self.decoder, list(jobs), self.settings.max_batch_tokens,
                                         pausing, layer_pauses=all(_layer_pauses(j) for j in jobs))
        return await asyncio.wrap_future(future)

    async def call(self, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)`` on the model thread. Torch work belongs there (a store's query embedding too): every other
        thread that runs torch ops gets its own OpenMP pool, and the pools then slow each other down (measured: a
        decode 1.4x slower once a second thread had run torch)."""
        return await asyncio.get_running_loop().run_in_executor(self.executor, fn, *args)

    async def tokenize(self, text: str, add_special_tokens: bool) -> list[int]:
        """The served model's token ids, on the model thread like every other tokenizer call."""
        tokenizer = self.decoder.tokenizer
        return await asyncio.get_running_loop().run_in_executor(
            self.executor, lambda: tokenizer(text, add_special_tokens=add_special_tokens)["input_ids"])

    async def start_stream(self, job: Job, level: int = STREAM, on_done: Callable[[], None] | None = None
                           ) -> tuple[int, AsyncIterator[tuple[str, Outcome | None]]]:
        """Validate on the model thread (so errors become a 4xx before any byte is sent), then stream; ``on_done``
        runs on the event loop once the model thread is done with the stream (answered, failed, left or stopped).

        Returns the prompt's token count and an iterator of (text piece, final outcome or None)."""
        loop = asyncio.get_running_loop()
        handle = StreamHandle()
        self.stats["streams"] += 1
        put = lambda item: loop.call_soon_threadsafe(handle.events.put_nowait, item)  # noqa: E731
        done = (lambda: loop.call_soon_threadsafe(on_done)) if on_done is not None else None  # noqa: E731
        self.executor.submit_as(level, self._stream, job, handle, put, done, layer_pauses=_layer_pauses(job))
        try:
            kind, value = await handle.events.get()
        except asyncio.CancelledError:  # the client left before its stream began: the model thread skips it
            handle.cancelled = True
            raise
        if kind == "error":
            raise value
        return value, self._pieces(handle, value)

    def _stream(self, job: Job, handle: StreamHandle, put, done: Callable[[], None] | None) -> None:
        try:
            if not handle.cancelled:  # the client may have left while it waited
                self._decode_stream(job, handle, put)
        finally:
            if done is not None:
                with contextlib.suppress(RuntimeError):  # the event loop closed: nobody waits for the count
                    done()

    def _decode_stream(self, job: Job, handle: StreamHandle, put) -> None:
        method = get_method(job.config.method)
        try:
            with warnings.catch_warnings():  # the dropped documents are reported in the response instead
                warnings.simplefilter("ignore", GroundedRAGWarning)
                request = self.decoder.prepare(job.question, job.documents, None, job.config, method)
        except Exception as exc:  # noqa: BLE001 - re-raised on the event loop
            put(("error", exc))
            return
        put(("ready", len(request.token_ids[0])))
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", GroundedRAGWarning)
                for piece, result in self.decoder.stream_answer(request, job.config, method):
                    if handle.cancelled:  # the client went away: free the model thread (checked every token)
                        return
                    if piece or result is not None:
                        handle.sent += 1
                        put(("piece", (piece, result)))
                    self.executor.pause()  # a token: smaller work waiting runs now
                    if handle.sent - handle.read > STREAM_LAG and not self._reader_caught_up(handle):
                        self.stats["streams_stopped"] += 1
                        put(("error", StreamStalled(f"the client read nothing of this stream for "
                                                    f"{self.settings.stream_stall_s:.0f} s; it was stopped")))
                        return
        except Exception as exc:  # noqa: BLE001
            put(("error", exc))

    def _reader_caught_up(self, handle: StreamHandle) -> bool:
        """Pause a stream whose reader is behind (smaller work still runs meanwhile) until it has read half of what
        waits for it; False once ``stream_stall_s`` pass without that, or the client leaves."""
        deadline = time.monotonic() + self.settings.stream_stall_s
        while handle.sent - handle.read > STREAM_LAG // 2:
            if handle.cancelled or time.monotonic() > deadline:
                return False
            self.executor.pause()
            time.sleep(0.02)
        return True

    @staticmethod
    async def _pieces(handle: StreamHandle, prompt_tokens: int) -> AsyncIterator[tuple[str, Outcome | None]]:
        try:
            while True:
                kind, value = await handle.events.get()
                if kind == "error":
                    raise value
                handle.read += 1
                piece, result = value
                yield piece, (Outcome(result, prompt_tokens) if result is not None else None)
                if result is not None:
                    return
        finally:
            handle.cancelled = True

    def close(self) -> None:
        for hook in self._hooks:
            hook.remove()
        self._hooks = []
        self.executor.shutdown(wait=False, cancel_futures=True)
        self.counter.close()


def _layer_pauses(job: Job) -> bool:
    """Whether a job's forward passes may pause between layers: not where its method taps their hidden states."""
    return get_method(job.config.method).signal == "none"


class LocalBackend:
    """The single-process server's batcher and queue.

    Every request is admitted by cost (:class:`~grounded_rag.serving.admission.Admission`: past the queue's bounds,
    503 with Retry-After). A request over ``large_request_cost`` runs alone at the model thread's large level, and
    smaller work runs inside its pauses. For the rest, the first waiting request holds the door open for
    ``batch_window_ms``; everything queued by then (and everything that queued while the previous batch decoded)
    joins, up to ``max_batch_size``. Streams decode one at a time, and batches run between their tokens.
    """

    def __init__(self, decoder: GroundedDecoder | None = None, settings: ServeSettings | None = None,
                 worker: ModelWorker | None = None) -> None:
        self.settings = settings or ServeSettings()
        if worker is None and decoder is None:
            raise ValueError("LocalBackend needs a decoder or a ModelWorker")
        self.worker = worker or ModelWorker(decoder, self.settings)  # type: ignore[arg-type]
        self.admission = Admission(self.settings, busy_s=lambda: self.worker.executor.busy_s)
        self._pending: deque[tuple[Job, asyncio.Future]] = deque()
        self._wake: asyncio.Event | None = None
        self._task: asyncio.Task | None = None

    async def start(self) -> None:
        self._wake = asyncio.Event()
        self._task = asyncio.create_task(self._loop(), name="grounded-batcher")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
        for _, fut in self._pending:
            fut.cancel()
        self.worker.close()

    def load(self) -> dict[str, Any]:
        """The queue, for /health."""
        return {**self.admission.report(), "overtook": self.worker.executor.stats["overtook"]}

    async def generate(self, job: Job) -> Outcome:
        if self._task is None or self._wake is None:
            raise RuntimeError("the backend is not started (run the app under its lifespan)")
        large = self.worker.level(job) == LARGE
        self.admission.admit(job.cost, large)
        try:
            if large:
                return await self._alone(job)
            fut = asyncio.get_running_loop().create_future()
            self._pending.append((job, fut))
            self._wake.set()
            return await fut
        finally:
            self.admission.release(job.cost, large)

    async def _alone(self, job: Job) -> Outcome:
        """A large job, decoded alone at the large level; a client that leaves takes its row out at the next token."""
        left = [False]
        try:
            [outcome] = await self.worker.run([job], gone=lambda: left, level=LARGE)
        except asyncio.CancelledError:
            left[0] = True
            raise
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    async def stream(self, job: Job) -> tuple[int, AsyncIterator[tuple[str, Outcome | None]]]:
        level = self.worker.level(job, streamed=True)
        self.admission.admit(job.cost, level == LARGE)
        released = False

        def release() -> None:  # once the model thread is done with the stream, however it ended
            nonlocal released
            if not released:
                released = True
                self.admission.release(job.cost, level == LARGE)

        return await self.worker.start_stream(job, level, on_done=release)

    async def _loop(self) -> None:
        assert self._wake is not None
        window = self.settings.batch_window_ms / 1000
        while True:
            while not self._pending:
                self._wake.clear()
                await self._wake.wait()
            if len(self._pending) < self.settings.max_batch_size and window > 0:
                await asyncio.sleep(window)
            batch: list[tuple[Job, asyncio.Future]] = []
            while self._pending and len(batch) < self.settings.max_batch_size:
                job, fut = self._pending.popleft()
                if not fut.done():  # a client that left before its batch started costs nothing
                    batch.append((job, fut))
            if not batch:
                continue
            try:
                outcomes: list[Any] = await self.worker.run([job for job, _ in batch],
                                                            gone=lambda b=batch: [fut.cancelled() for _, fut in b])
            except Exception as exc:  # noqa: BLE001 - the loop must survive to serve the next batch
                outcomes = [exc] * len(batch)
            for (_, fut), outcome in zip(batch, outcomes):
                if fut.done():
                    continue
                if isinstance(outcome, Exception):
                    fut.set_exception(outcome)
                else:
                    fut.set_result(outcome)
