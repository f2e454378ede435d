"""What a request costs before the model runs, and whether the server takes it: a budget per request (over it: 413,
naming the limit and the flag that raises it) and a bounded queue (in requests, in cost, and in the seconds of work
it holds once the server has measured its pace; past any of them: 503 with Retry-After).

A request's cost is counted in tokens of model work: its prompt (at most the context window: passages that do not
fit are dropped) and its new tokens, each times its prompt streams (three for the default method, one for
``standard``), plus the head of each passage read once by the relevance pass. The counting uses a copy of the
model's tokenizer on a thread of its own, so it never waits for the model.
"""

from __future__ import annotations

import asyncio
import copy
import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from ..errors import InputError
from ..methods import get_method
from ..relevance import PASSAGE_TOKENS
from .settings import ServeSettings

from .jobs import Job

TEMPLATE_TOKENS = 48  # a prompt's chat markup and instructions around the question and passages
PASSAGE_MARKUP_TOKENS = 12  # each passage's number and title markup
MIN_RETRY_S, MAX_RETRY_S = 1, 60


class OverBudget(InputError):
    """The request costs more model work than this server takes in one request: refused with 413."""


class Overloaded(Exception):
    """The server's queue is full (requests, cost or seconds of work): refused with 503 and Retry-After."""

    def __init__(self, message: str, retry_after: int = MIN_RETRY_S) -> None:
        super().__init__(message)
        self.retry_after = retry_after


@dataclass(frozen=True)
class Cost:
    """A request's model work, in tokens, and its parts (said when it is refused)."""

    prompt_tokens: int
    new_tokens: int
    streams: int
    relevance_tokens: int

    @property
    def total(self) -> int:
        return self.streams * (self.prompt_tokens + self.new_tokens) + self.relevance_tokens

    def said(self) -> str:
        text = (f"{self.prompt_tokens} prompt tokens x {self.streams} streams + {self.new_tokens} new tokens x "
                f"{self.streams} streams")
        return text + (f" + {self.relevance_tokens} tokens to score its passages" if self.relevance_tokens else "")


class CostCounter:
    """Counts requests' costs with its own copy of the tokenizer, on a thread of its own (a tokenizer shared by
    threads can refuse a call, and the model thread may be busy for a long while)."""

    def __init__(self, tokenizer, context_window: int) -> None:
        self.tokenizer = copy.deepcopy(tokenizer)
        self.window = context_window
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="grounded-admission")

    async def cost(self, job: Job) -> Cost:
        return await asyncio.get_running_loop().run_in_executor(self.executor, self.count, job)

    def count(self, job: Job) -> Cost:
        config = job.config
        texts = [job.question, config.system_prompt,
                 *(f"{d.title}: {d.text}" if d.title else d.text for d in job.documents)]
        lengths = [len(ids) for ids in self.tokenizer(texts, add_special_tokens=False)["input_ids"]]
        question, passages = lengths[0], lengths[2:]
        prompt = TEMPLATE_TOKENS + lengths[0] + lengths[1] + sum(n + PASSAGE_MARKUP_TOKENS for n in passages)
        scored = len(passages) > 1 and config.relevance_margin is not None
        relevance = sum(min(n, PASSAGE_TOKENS) + question + TEMPLATE_TOKENS for n in passages) if scored else 0
        streams = 1 + len(get_method(config.method).references)
        return Cost(min(prompt, self.window), config.max_new_tokens, streams, relevance)

    def close(self) -> None:
        self.executor.shutdown(wait=False, cancel_futures=True)


def check_budget(cost: Cost, settings: ServeSettings) -> None:
    """413 for a request over the per-request budget, naming the limit and how to raise it."""
    if cost.total > settings.max_request_cost:
        raise OverBudget(f"this request costs about {cost.total} tokens of model work ({cost.said()}), over this "
                         f"server's limit of {settings.max_request_cost} a request; send fewer or shorter documents "
                         "or a smaller max_tokens, or start the server with a larger --max-request-cost")


class Admission:
    """The bounded queue: every request taken and not yet answered counts, by number and by cost; once the model
    thread has run some work, the seconds of work a new request would wait behind count too (at its pace: cost per
    busy second, the last few minutes' work weighing most). A small request waits behind small work only: it runs inside a large
    one's pauses (:mod:`~grounded_rag.serving.scheduler`); a large one waits behind everything."""

    MEMORY_S = 120.0  # busy seconds over which the pace forgets the work before

    def __init__(self, settings: ServeSettings, busy_s=lambda: 0.0) -> None:
        self.settings = settings
        self.busy_s = busy_s
        self.count = 0
        self.cost = 0
        self.small_cost = 0  # of the requests under large_request_cost
        self.refused = 0
        self._done_cost = 0.0
        self._done_busy = 0.0
        self._busy_seen = busy_s()

    @property
    def max_cost(self) -> int:
        return self.settings.max_queued_cost or 2 * self.settings.max_request_cost

    def pace(self) -> float | None:
        """Tokens of model work per busy second, once measured."""
        return self._done_cost / self._done_busy if self._done_busy > 0.5 else None

    def wait_s(self, large: bool = False) -> float | None:
        """Seconds of work a new request (``large`` or not) would wait behind, at the measured pace."""
        pace = self.pace()
        return None if pace is None else (self.cost if large else self.small_cost) / pace

    def saturated(self, cost: int = 0, large: bool = False) -> str | None:
        """Why a new request (of this cost; ``large`` or not) would be refused, or None."""
        s = self.settings
        if self.count >= s.max_queued:
            return f"{self.count} requests wait for the model, this server's limit (max_queued)"
        if self.count and self.cost + cost > self.max_cost or self.cost >= self.max_cost:
            return (f"the requests waiting cost {self.cost} tokens of model work, and this one {cost}: over this "
                    f"server's limit of {self.max_cost}")
        wait = self.wait_s(large)
        if wait is not None and wait > s.max_queue_wait_s:
            return (f"the requests ahead hold about {wait:.0f} s of work, over this server's limit of "
                    f"{s.max_queue_wait_s:.0f} s")
        return None

    def admit(self, cost: int, large: bool = False) -> None:
        """Take a request of this cost into the queue (an empty queue takes any), or raise Overloaded with a
        Retry-After."""
        why = self.saturated(cost, large)
        if why is not None:
            self.refused += 1
            raise Overloaded(f"the server is busy: {why}; retry after the Retry-After header's seconds",
                             self.retry_after(large))
        self.count += 1
        self.cost += cost
        self.small_cost += 0 if large else cost

    def release(self, cost: int, large: bool = False) -> None:
        """A request answered (or gone): it leaves the queue, and the pace learns from the work done."""
        self.count -= 1
        self.cost -= cost
        self.small_cost -= 0 if large else cost
        busy = self.busy_s()
        spent, self._busy_seen = busy - self._busy_seen, busy
        keep = math.exp(-spent / self.MEMORY_S)  # by time, not by answer: a batch's answers come at once
        self._done_cost = self._done_cost * keep + cost
        self._done_busy = self._done_busy * keep + spent

    def retry_after(self, large: bool = False) -> int:
        """Seconds until the queue has room again: the work over its limits, at the measured pace."""
        pace = self.pace()
        if pace is None:
            return MIN_RETRY_S
        ahead = self.cost if large else self.small_cost
        over = max(self.cost - self.max_cost, ahead - pace * self.settings.max_queue_wait_s,
                   self.cost / max(self.count, 1))  # at least one request's worth
        return int(min(MAX_RETRY_S, max(MIN_RETRY_S, math.ceil(over / pace))))

    def report(self) -> dict[str, object]:
        """What /health says of the queue (for a small request: what a large one waits behind is in queued_cost)."""
        wait = self.wait_s()
        return {"queued": self.count, "queued_cost": self.cost, "max_queued_cost": self.max_cost,
                "estimated_wait_s": None if wait is None else round(wait, 1), "refused_busy": self.refused,
                "saturated": self.saturated()}
