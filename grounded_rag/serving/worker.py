"""The model side of the server: one thread owns the model, batches are grouped by config and packed
under a token budget, and streams are bridged from that thread to the event loop.

Torch runs in a single worker thread so the event loop stays free to accept requests while a batch
decodes; every call into the decoder (tokenizer included) happens on that thread.
"""

from __future__ import annotations

import asyncio
import warnings
from collections import defaultdict, deque
from collections.abc import AsyncIterator, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from .. import learned_screen
from ..config import DecodingConfig
from ..decoder import GroundedDecoder
from ..errors import GroundedRAGWarning, InputError, ModelLoadError
from ..inputs import Request
from ..methods import get_method
from ..types import Document, GenerationResult
from .settings import ServeSettings


@dataclass(eq=False)
class Job:
    """One request made ready for the decoder."""

    question: str
    documents: list[Document]
    config: DecodingConfig
    trace: bool = False

    @property
    def key(self) -> str:
        """Requests decode together only under the same config (one fusion rule, one stop list per batch)."""
        return self.config.model_dump_json()


@dataclass
class Outcome:
    result: GenerationResult
    prompt_tokens: int  # tokens of the full prompt (the reference stream's are not billed)


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
    """A stream decoding on the model thread; ``events`` receives pieces, then the final outcome."""

    events: asyncio.Queue = field(default_factory=asyncio.Queue)
    cancelled: bool = False


class Overloaded(Exception):
    """More requests wait for the model than the server queues (``max_queued``): refused with 503 and Retry-After."""


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
    """Owns the decoder and the one thread that runs it."""

    def __init__(self, decoder: GroundedDecoder, settings: ServeSettings,
                 executor: ThreadPoolExecutor | None = None) -> None:
        self.decoder = decoder
        self.settings = settings
        self.executor = executor or ThreadPoolExecutor(max_workers=1, thread_name_prefix="grounded-model")
        self.executor.submit(warm_up, decoder).result()  # a GPU's compile and capture before the first request
        self.stats = {"batches": 0, "batched_requests": 0, "largest_batch": 0, "streams": 0, "refused_busy": 0}
        self.streams_waiting = 0  # streams submitted to the model thread that have not started

    @classmethod
    def load(cls, settings: ServeSettings) -> ModelWorker:
        """Load ``settings.model`` on the thread that will run it, so torch never runs on another (see :meth:`call`)."""
        executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="grounded-model")
        return cls(executor.submit(GroundedDecoder.from_pretrained, settings.model).result(), settings, executor)

    @property
    def model_name(self) -> str:
        return self.settings.served_model_name or self.decoder.name

    async def run(self, jobs: Sequence[Job], gone: Callable[[], Sequence[bool]] | None = None
                  ) -> list[Outcome | Exception]:
        """The jobs decoded on the model thread; ``gone`` says at every token which jobs' clients have left."""
        loop = asyncio.get_running_loop()
        self.stats["batches"] += 1
        self.stats["batched_requests"] += len(jobs)
        self.stats["largest_batch"] = max(self.stats["largest_batch"], len(jobs))
        return await loop.run_in_executor(self.executor, run_jobs, self.decoder, list(jobs),
                                          self.settings.max_batch_tokens, gone)

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

    async def start_stream(self, job: Job) -> tuple[int, AsyncIterator[tuple[str, Outcome | None]]]:
        """Validate on the model thread (so errors become a 4xx before any byte is sent), then stream.

        Returns the prompt's token count and an iterator of (text piece, final outcome or None)."""
        loop = asyncio.get_running_loop()
        handle = StreamHandle()
        self.stats["streams"] += 1
        self.streams_waiting += 1
        put = lambda item: loop.call_soon_threadsafe(handle.events.put_nowait, item)  # noqa: E731
        loop.run_in_executor(self.executor, self._stream, job, handle, put)
        try:
            kind, value = await handle.events.get()
        except asyncio.CancelledError:  # the client left before its stream began: the model thread skips it
            handle.cancelled = True
            raise
        if kind == "error":
            raise value
        return value, self._pieces(handle, value)

    def _stream(self, job: Job, handle: StreamHandle, put) -> None:
        self.streams_waiting -= 1  # an int's update is atomic under the GIL; read for the queue bound only
        if handle.cancelled:  # the client left while it waited
            return
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
                        put(("piece", (piece, result)))
        except Exception as exc:  # noqa: BLE001
            put(("error", exc))

    @staticmethod
    async def _pieces(handle: StreamHandle, prompt_tokens: int) -> AsyncIterator[tuple[str, Outcome | None]]:
        try:
            while True:
                kind, value = await handle.events.get()
                if kind == "error":
                    raise value
                piece, result = value
                yield piece, (Outcome(result, prompt_tokens) if result is not None else None)
                if result is not None:
                    return
        finally:
            handle.cancelled = True

    def close(self) -> None:
        self.executor.shutdown(wait=False, cancel_futures=True)


class LocalBackend:
    """The single-process server's batcher.

    The first waiting request holds the door open for ``batch_window_ms``; everything queued by then
    (and everything that queued while the previous batch decoded) joins, up to ``max_batch_size``.
    Streams are decoded one at a time on the same model thread, in arrival order between batches.
    """

    def __init__(self, decoder: GroundedDecoder | None = None, settings: ServeSettings | None = None,
                 worker: ModelWorker | None = None) -> None:
        self.settings = settings or ServeSettings()
        if worker is None and decoder is None:
            raise ValueError("LocalBackend needs a decoder or a ModelWorker")
        self.worker = worker or ModelWorker(decoder, self.settings)  # type: ignore[arg-type]
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

    def admit(self) -> None:
        """Refuse a new request while ``max_queued`` already wait for the model (batched or streamed)."""
        if len(self._pending) + self.worker.streams_waiting >= self.settings.max_queued:
            self.worker.stats["refused_busy"] += 1
            raise Overloaded(f"{self.settings.max_queued} requests are already waiting for the model; retry shortly")

    async def generate(self, job: Job) -> Outcome:
        if self._task is None or self._wake is None:
            raise RuntimeError("the backend is not started (run the app under its lifespan)")
        self.admit()
        fut = asyncio.get_running_loop().create_future()
        self._pending.append((job, fut))
        self._wake.set()
        return await fut

    async def stream(self, job: Job) -> tuple[int, AsyncIterator[tuple[str, Outcome | None]]]:
        self.admit()
        return await self.worker.start_stream(job)

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
