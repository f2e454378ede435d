"""A batch's way down, once: plan (grounded_rag.planning) → decode (grounded_rag.driver) → outcome
(grounded_rag.outcome), then what the outcome asks for — a short decode of each passage that may answer otherwise
(grounded_rag.conflicts) and a second look at withheld answers. The facade (grounded_rag.decoder) calls these; the
stages never call back up.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from .config import INSIST_THRESHOLD, SUPPORT_THRESHOLD, DecodingConfig
from .conflicts import ALONE_TOKENS, candidates, common_ground, disagrees, with_conflicts
from .driver import Running, decoded, run, stable_prefix
from .inputs import Request
from .lm import LM
from .methods import Method
from .outcome import abstains, judged, results, taken_at_word
from .planning import RelevanceScores, plan, question_gains
from .support import says_more_than, support_of
from .types import SHOWN_AS, GenerationResult, SecondLook


def answer_requests(lm: LM, relevance: RelevanceScores, requests: Sequence[Mapping[str, Any]],
                    config: DecodingConfig, method: Method, **engine: Any) -> list[GenerationResult]:
    """Requests as callers write them ({'question', 'documents', 'scores'}) planned, then answered."""
    return answer(lm, relevance, plan(lm, relevance, requests, config, method), config, method,  # type: ignore[arg-type]
                  **engine)


def stream_request(lm: LM, relevance: RelevanceScores, request: Mapping[str, Any], config: DecodingConfig,
                   method: Method) -> Iterator[tuple[str, GenerationResult | None]]:
    """One request as a caller writes it planned, then streamed (:func:`stream_answer`)."""
    planned = plan(lm, relevance, [request], config, method)[0]
    return stream_answer(lm, relevance, planned, config, method)  # type: ignore[arg-type]


def answer(lm: LM, relevance: RelevanceScores, requests: Sequence[Request], config: DecodingConfig, method: Method,
           gone: Callable[[], Sequence[bool]] | None = None, **engine: Any) -> list[GenerationResult]:
    """Planned requests answered in one batched decode: abstention where no passage is about a question (nothing to
    decode), then the engine, each answer's citations and support, the passages that answer otherwise, abstention
    on the final support, and the second looks. ``gone`` (a server's: which requests' clients have left) is read at
    every token, and such a request's row leaves the batch."""
    gains = question_gains(lm, relevance, requests) if config.attribute else None
    running = [Running(r) for r in requests]
    todo = [i for i, r in enumerate(requests) if gains is None or not abstains(config, support_of(max(gains[i])), r)]
    for i in set(range(len(requests))) - set(todo):
        running[i].finish = "abstain"
    if todo:
        left = None if gone is None else _subset(gone, todo)
        for i, r in zip(todo, decoded(lm, [requests[i] for i in todo], config, method, left, **engine)):
            running[i] = r
    shown = conflicts(lm, relevance, requests, results(lm, running, method, config, gains, judge=False), config,
                      method, gains)
    return second_looks(lm, requests, judged(shown, requests, config), config, method, gains, **engine)


def _subset(gone: Callable[[], Sequence[bool]], rows: Sequence[int]) -> Callable[[], list[bool]]:
    """``gone`` read for the ``rows`` of the batch that are decoded."""
    def left() -> list[bool]:
        flags = gone()
        return [i < len(flags) and bool(flags[i]) for i in rows]

    return left


def conflicts(lm: LM, relevance: RelevanceScores, requests: Sequence[Request], shown: list[GenerationResult],
              config: DecodingConfig, method: Method, gains: Sequence[Sequence[float]] | None
              ) -> list[GenerationResult]:
    """Each shown answer with the kept passages that, asked the question alone, answer otherwise
    (grounded_rag.conflicts): every such passage of the batch read in one short decode by the answer's method."""
    if gains is None or not config.check_conflicts:
        return shown
    asks = [(i, j) for i, (request, result) in enumerate(zip(requests, shown))
            for j in candidates(request.question, result, gains[i])]
    if not asks:
        return shown
    alone = config.override(max_new_tokens=min(ALONE_TOKENS, config.max_new_tokens),
                            screen_instructions=False, relevance_margin=None, support_threshold=None,
                            quote_threshold=None, insist_beta=None, extractive=False, check_conflicts=False)
    planned = plan(lm, relevance, [{"question": requests[i].question, "documents": [shown[i].documents[j]]}
                                   for i, j in asks], alone, method)
    others = answer(lm, relevance, planned, alone, method)  # type: ignore[arg-type]
    threshold = SUPPORT_THRESHOLD if config.support_threshold is None else config.support_threshold
    found: dict[int, list[tuple[int, GenerationResult]]] = {}
    for (i, j), other in zip(asks, others):
        if disagrees(requests[i].question, shown[i].text, other, threshold, common_ground(shown[i], j)):
            found.setdefault(i, []).append((j, other))
    return [with_conflicts(r, q.question, found.get(i, [])) for i, (q, r) in enumerate(zip(requests, shown))]


def second_looks(lm: LM, requests: Sequence[Request], shown: list[GenerationResult], config: DecodingConfig,
                 method: Method, gains: Sequence[Sequence[float]] | None, **engine: Any) -> list[GenerationResult]:
    """An answer decoded and then withheld for its support gets up to two second looks, each one batch of the
    withheld answers only: with ``insist_beta``, decoded again taking its passages at their word; then, with
    ``quote_threshold``, decoded as a verbatim span of a passage. A second answer is shown where its own support
    reaches the threshold and it says more than the question."""
    if gains is None or config.extractive:
        return shown
    if config.insist_beta is not None and "trusted" in method.reads:
        # the screened prompts stay; only the rule changes: the trusted documents' contrast, the question gate off
        insisting = config.override(trusted_beta=config.insist_beta)
        threshold = max(INSIST_THRESHOLD, config.support_threshold or 0.0)
        shown = second_look(lm, requests, shown, insisting, method, gains, threshold, "insist", trusted=True,
                            **engine)
    if config.quote_threshold is not None:
        quoting = config.override(extractive=True,
                                  support_threshold=max(config.quote_threshold, config.support_threshold or 0.0))
        shown = second_look(lm, requests, shown, quoting, method, gains, quoting.support_threshold or 0.0, "quote",
                            **engine)
    return shown


def second_look(lm: LM, requests: Sequence[Request], shown: list[GenerationResult], retry: DecodingConfig,
                method: Method, gains: Sequence[Sequence[float]], threshold: float, look: SecondLook,
                trusted: bool = False, **engine: Any) -> list[GenerationResult]:
    """The withheld answers decoded again under ``retry`` (``trusted``: as if the caller had written their passages),
    each shown where it reaches ``threshold`` and tells more than the question (a quote that restates the question,
    "The Red Planet" for "Which planet is known as the Red Planet?", tells nothing); ``look`` is recorded in every
    redone result's ``second_looks``, and a shown one is marked (``insisted``, ``quoted``), its
    ``unsupported_answer`` the first answer."""
    redo = [i for i, res in enumerate(shown) if res.abstained and res.unsupported_answer is not None]
    if not redo:
        return shown
    again = [taken_at_word(requests[i]) if trusted else requests[i] for i in redo]
    seconds = results(lm, decoded(lm, again, retry, method, **engine), method, retry, [gains[i] for i in redo])
    out = list(shown)
    for i, second in zip(redo, seconds):
        looks = [*shown[i].second_looks, look]
        cut = second.finish_reason == "length"
        if (not second.abstained and second.support is not None and second.support >= threshold
                and says_more_than(requests[i].question, second.text, cut)):
            out[i] = second.model_copy(update={SHOWN_AS[look]: True, "second_looks": looks,
                                               "unsupported_answer": shown[i].unsupported_answer})
        else:
            out[i] = shown[i].model_copy(update={"second_looks": looks})
    return out


def stream_answer(lm: LM, relevance: RelevanceScores, request: Request, config: DecodingConfig, method: Method
                  ) -> Iterator[tuple[str, GenerationResult | None]]:
    """A planned request's answer in pieces as it is decoded; the last item carries the result. Every decoded token
    yields, with ``""`` while there is nothing new to show (an answer held until it is known to stand), so a consumer
    whose client has gone can stop between any two tokens."""
    gains = question_gains(lm, relevance, [request]) if config.attribute else None
    if gains is not None and abstains(config, support_of(max(gains[0])), request):
        final = results(lm, [Running(request, finish="abstain")], method, config, gains)[0]
        yield final.text, final
        return
    # with abstention on, an answer may yet be withheld until its last word is known: it is shown whole, at the end;
    # without (support_threshold=None, or passages the caller wrote), it streams as it is decoded
    held = gains is not None and abstains(config, 0.0, request)
    sent = ""
    stops = [*config.stop, *lm.turn_ends]
    running: list[Running] = []
    for running in run(lm, [request], config, method):
        r = running[0]
        text = r.text.lstrip() if r.finish is None else r.text.strip()
        safe = stable_prefix(text, stops) if r.finish is None else text
        if not held and len(safe) > len(sent) and safe.startswith(sent):
            yield safe[len(sent):], None
            sent = safe
        else:
            yield "", None
    shown = conflicts(lm, relevance, [request], results(lm, running, method, config, gains, judge=False), config,
                      method, gains)
    final = second_looks(lm, [request], judged(shown, [request], config), config, method, gains)[0]
    tail = final.text[len(sent):] if final.text.startswith(sent) else ""
    yield tail, final
