"""The model thread: one thread runs every piece of torch work (see :class:`~grounded_rag.serving.worker.ModelWorker`
for why one), and a piece of work lets smaller ones in at its pause points, so that a small request is never queued
behind a large one's whole run.

Work comes in levels: :data:`INSTANT` (a tokenizer call, a store search), :data:`SMALL` (a batch of requests under
the server's large-request cost), :data:`STREAM` (a stream under it) and :data:`LARGE` (a request over it, batched
or streamed, alone). The thread takes the lowest waiting level first. While a piece runs, its pause points (between
the model's layers in every forward pass, and between its tokens) run the work of lower levels that was waiting
when the pause began, on this same thread, then the piece goes on: a large prefill lets a small batch decode between
two of its layers; a stream lets a batch decode between two of its tokens. A small request then waits at most one
layer of a large one's forward pass, instead of its prefill, its relevance pass and all its tokens.

Pauses nest only where the engine runs eagerly (a CPU): on a GPU a decode step replays a CUDA graph over static
buffers that a nested decode would overwrite, so there the levels only order what runs next.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Executor, Future
from dataclasses import dataclass, field
from typing import Any

INSTANT, SMALL, STREAM, LARGE = 0, 1, 2, 3
LEVELS = ("instant", "small", "stream", "large")


@dataclass
class _Work:
    level: int
    fn: Callable[..., Any]
    args: tuple
    kwargs: dict
    layer_pauses: bool = True  # whether its forward passes may pause between layers (not for methods that tap them)
    future: Future = field(default_factory=Future)


class ModelThread(Executor):
    """An executor of one thread that runs the lowest waiting level first and lets lower levels in at the pauses of
    the work it runs (:meth:`pause`). ``nesting=False``: levels order the work, nothing runs inside another."""

    def __init__(self, name: str = "grounded-model", nesting: bool = True) -> None:
        self.nesting = nesting
        self._queues: list[deque[_Work]] = [deque() for _ in LEVELS]
        self._cond = threading.Condition()
        self._stack: list[_Work] = []  # the work running, innermost last
        self._closed = False
        self._busy = 0.0  # seconds spent on finished work
        self._started: float | None = None  # when the work running now began
        self.stats = {"overtook": 0}  # pieces of work run inside a larger one's pause
        self._thread = threading.Thread(target=self._serve, name=name, daemon=True)
        self._thread.start()

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future:
        """``fn`` as :data:`INSTANT` work (what ``loop.run_in_executor`` sends)."""
        return self.submit_as(INSTANT, fn, *args, **kwargs)

    def submit_as(self, level: int, fn: Callable[..., Any], /, *args: Any, layer_pauses: bool = True,
                  **kwargs: Any) -> Future:
        """``fn(*args, **kwargs)`` at ``level``; ``layer_pauses=False`` keeps its forward passes whole (DoLa and
        kNN-LM read hidden states that a nested pass would overwrite)."""
        work = _Work(level, fn, args, kwargs, layer_pauses)
        with self._cond:
            if self._closed:
                raise RuntimeError("the model thread is shut down")
            self._queues[level].append(work)
            self._cond.notify()
        return work.future

    @property
    def busy_s(self) -> float:
        """Seconds the thread has spent on work, the work running now included (the admission's pace reads it)."""
        started = self._started
        return self._busy + (time.perf_counter() - started if started is not None else 0.0)

    def waiting(self) -> int:
        """Pieces of work queued, not yet begun."""
        return sum(len(q) for q in self._queues)

    def pause(self, layer: bool = False) -> None:
        """A pause point of the running work (``layer``: between two layers of a forward pass): the work of lower
        levels that waits now runs first. Anywhere else (another thread, no work running, nesting off), nothing."""
        if not self.nesting or not self._stack or threading.current_thread() is not self._thread:
            return
        current = self._stack[-1]
        if current.level == INSTANT or (layer and not current.layer_pauses):
            return
        with self._cond:
            count = sum(len(q) for q in self._queues[:current.level])  # those waiting now: the running work goes on
        for _ in range(count):
            work = self._take(below=current.level)
            if work is None:
                return
            self.stats["overtook"] += 1
            self._run(work)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        with self._cond:
            self._closed = True
            if cancel_futures:
                for queue in self._queues:
                    while queue:
                        queue.popleft().future.cancel()
            self._cond.notify_all()
        if wait and threading.current_thread() is not self._thread:
            self._thread.join()

    def _take(self, below: int | None = None) -> _Work | None:
        """The first waiting work of the lowest level (under ``below``, without waiting; else waiting for some)."""
        with self._cond:
            while True:
                for level, queue in enumerate(self._queues):
                    if below is not None and level >= below:
                        return None
                    if queue:
                        return queue.popleft()
                if below is not None or self._closed:
                    return None
                self._cond.wait()

    def _serve(self) -> None:
        while (work := self._take()) is not None:
            self._started = time.perf_counter()
            self._run(work)
            self._busy += time.perf_counter() - self._started
            self._started = None

    def _run(self, work: _Work) -> None:
        if not work.future.set_running_or_notify_cancel():  # cancelled while it waited: costs nothing
            return
        self._stack.append(work)
        try:
            result = work.fn(*work.args, **work.kwargs)
        except BaseException as exc:  # noqa: BLE001 - handed to whoever waits on the future
            work.future.set_exception(exc)
        else:
            work.future.set_result(result)
        finally:
            self._stack.pop()
