"""The decode driver: planned requests decoded in one batch, token by token, into answers as text.

What the engine needs of a batch besides its prompts (:func:`row_inputs`), built only where the method needs it;
each step's tokens recorded per question (trace, text, where the reply ends: a stop string, an end-of-answer token,
a base model's turn end); and the stable prefix a stream may show while an answer is still being decoded.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from .config import DecodingConfig
from .engine import RowInputs, Step, decode
from .errors import InputError
from .graphs import GraphPool
from .inputs import Request
from .lm import LM
from .methods import Method
from .spans import CopyState, DocumentSpans, document_tokens, end_tokens
from .taps import Datastore, build_datastore
from .types import TraceStep


@dataclass
class Running:
    """One question's answer while it is decoded."""

    request: Request
    tokens: list[int] = field(default_factory=list)
    trace: list[TraceStep] = field(default_factory=list)
    text: str = ""
    finish: str | None = None


def passage_texts(request: Request) -> list[str]:
    """The kept passages' texts and titles: what an answer may copy or the documents may raise."""
    return [t for d in request.documents for t in (d.text, d.title) if t]


def graph_pool(lm: LM, on: bool | None) -> GraphPool | None:
    """The model's graph pool when ``on`` (None: where it applies), else None: the eager engine."""
    if on and lm.graphs is None:
        raise InputError("graphs=True needs a CUDA device and a model of full-attention layers")
    return lm.graphs if on is not False else None


def run(lm: LM, requests: Sequence[Request], config: DecodingConfig, method: Method,
        gone: Callable[[], Sequence[bool]] | None = None, **engine: Any) -> Iterator[list[Running]]:
    """Every request's answer decoded in one batch, yielded after every step. ``gone`` (a server's: which requests'
    clients have left) is read at every token, and such a request's row leaves the batch, cut as at the limit."""
    running = [Running(r) for r in requests]
    if "graphs" not in engine:
        engine["graphs"] = lm.graphs
    if method.signal != "none":  # DoLa's and kNN-LM's hooks read hidden states a replayed graph would not give
        engine["graphs"] = None
    prompts = [ids for r in requests for ids in r.token_ids]
    steps = decode(lm.model, method, prompts, row_inputs(lm, requests, method, config), config, lm.pad_id,
                   end_ids=lm.eos_ids, finished=lambda: [r.finish is not None for r in running], **engine)
    for step in steps:
        record(lm, step, running, config)
        left = gone() if gone is not None else ()
        for r, leaving in zip(running, left):
            if leaving:
                r.finish = r.finish or "length"  # nobody reads it: cut, as at the limit
        yield running
        if all(r.finish is not None for r in running):
            break
    for r in running:
        r.finish = r.finish or "length"


def decoded(lm: LM, requests: Sequence[Request], config: DecodingConfig, method: Method,
            gone: Callable[[], Sequence[bool]] | None = None, **engine: Any) -> list[Running]:
    """:func:`run` to its end: every request's finished answer."""
    running = [Running(r, finish="length") for r in requests]
    for running in run(lm, requests, config, method, gone, **engine):
        pass
    return running


def row_inputs(lm: LM, requests: Sequence[Request], method: Method, config: DecodingConfig) -> RowInputs:
    """What the engine needs of a batch besides its prompts, in one place for every caller (answers, MemoTrap's
    continuations and its log-likelihood scoring), built only where the method needs it; copy states fresh."""
    copies = copy_states(lm, requests, method)
    return RowInputs(trust=[r.trust for r in requests], datastores=datastores(lm, requests, method),
                     spans=spans(lm, requests, config, method), copies=copies,
                     document_tokens=document_token_sets(lm, requests, method, copies),
                     question_tokens=[document_tokens(lm.tokenizer, [r.question]) for r in requests]
                     if "question_tokens" in method.needs else None,
                     trusted=[r.trusted for r in requests])


def datastores(lm: LM, requests: Sequence[Request], method: Method) -> list[Datastore] | None:
    """kNN-LM's per-question datastore, built from that question's retrieved passages only."""
    if method.signal != "datastore":
        return None
    return [build_datastore(lm.model, lm.tokenizer, [d.text for d in r.documents]) for r in requests]


def document_token_sets(lm: LM, requests: Sequence[Request], method: Method,
                        copies: Sequence[CopyState] | None = None) -> list[frozenset[int]] | None:
    """An anchored method's per-question tokens its documents may raise: the kept passages' text and titles (taken
    from ``copies``, the same requests' copy states, where a copying method has built them)."""
    if "document_tokens" not in method.needs:
        return None
    if copies is not None:
        return [c.tokens for c in copies]
    return [document_tokens(lm.tokenizer, passage_texts(r)) for r in requests]


def copy_states(lm: LM, requests: Sequence[Request], method: Method) -> list[CopyState] | None:
    """A copying method's per-question copy state (fresh: decoding advances it) over the kept passages."""
    if "copies" not in method.needs:
        return None
    return [CopyState.build(lm.tokenizer, passage_texts(r)) for r in requests]


def spans(lm: LM, requests: Sequence[Request], config: DecodingConfig, method: Method) -> list[DocumentSpans] | None:
    """With ``extractive`` (or for a method that reads them): each question's documents (text and title), whose
    spans its answer may copy."""
    if not config.extractive and "spans" not in method.needs:
        return None
    key = tuple(config.stop)
    if key not in lm.ends:
        lm.ends[key] = end_tokens(lm.tokenizer, lm.eos_ids, config.stop)
    return [DocumentSpans.build(lm.tokenizer, passage_texts(r), lm.ends[key]) for r in requests]


def record(lm: LM, step: Step, running: list[Running], config: DecodingConfig) -> None:
    """One step's tokens into each live question's trace and text; a question ends at an end-of-answer token, at a
    stop string (an extractive answer also at a newline) or, for a base model, at its turn end."""
    stops = [*config.stop, "\n"] if config.extractive else config.stop
    values = {
        "tokens": step.tokens.tolist(),
        "rho": step.fusion.rho.tolist(),
        "eta": step.fusion.eta.tolist(),
        "conflict": None if step.fusion.conflict is None else step.fusion.conflict.tolist(),
        "p_full": step.p_full.tolist(),
        "p_ref": None if step.p_ref is None else step.p_ref.tolist(),
        "q": step.q.tolist(),
    }
    for i, question in enumerate(step.questions):
        r = running[question]
        if r.finish is not None:
            continue
        token = values["tokens"][i]
        r.trace.append(TraceStep(
            token_id=token, token=lm.tokenizer.decode([token]),
            conflict=None if values["conflict"] is None else values["conflict"][i], rho=values["rho"][i],
            eta=values["eta"][i], p_full=values["p_full"][i],
            p_ref=None if values["p_ref"] is None else values["p_ref"][i], q=values["q"][i]))
        if token in lm.eos_ids:
            r.finish = "eos"
            continue
        r.tokens.append(token)
        r.text = lm.tokenizer.decode(r.tokens, skip_special_tokens=True)
        cut = reply_end(r.text, stops, lm.turn_ends)
        if cut >= 0:
            r.text = r.text[:cut]
            r.finish = "stop"


def reply_end(text: str, stops: Sequence[str], turn_ends: Sequence[str]) -> int:
    """Where the reply ends in ``text``: at its first stop string, or at a turn end once the reply has begun (a
    blank line before any word is where a reply opens, not where it ends); -1 where it goes on."""
    begun = len(text) - len(text.lstrip())
    found = [i for i in (text.find(s) for s in stops) if i >= 0]
    found += [i for i in (text.find(s, begun) for s in turn_ends) if i >= 0]
    return min(found, default=-1)


def stable_prefix(text: str, stops: Sequence[str]) -> str:
    """Text that can no longer change: hold back an incomplete character, trailing whitespace (it may be stripped
    at the end) and any tail that could still grow into a stop string."""
    keep = len(text.rstrip())
    if text[:keep].endswith("\ufffd"):
        keep -= 1
    for stop in stops:
        for n in range(min(len(stop) - 1, keep), 0, -1):
            if text[:keep].endswith(stop[:n]):
                keep = min(keep, len(text[:keep]) - n)
                break
    return text[:max(keep, 0)]
