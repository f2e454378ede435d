"""The outcome stage: decoded answers into results a user can check — citations (grounded_rag.attribution), support
(grounded_rag.support) and abstention where no passage supports an answer.

One scoring pass for the whole batch reads every decoded answer after each of its passages alone. Abstention is one
rule (:func:`abstains`), applied before decoding (no passage could reach the threshold: nothing is decoded) and after
it, once an answer's support is final (:func:`judged`: after the passages that answer otherwise have shared it).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

from .attribution import Answer, cite, find_citations, model_citations, passage_evidence, token_offsets
from .config import DecodingConfig
from .driver import Running
from .inputs import Request
from .lm import LM
from .methods import Method
from .support import support, support_of
from .types import Citation, GenerationResult


def abstains(config: DecodingConfig, support_: float | None, request: Request) -> bool:
    """An answer with this support is withheld: abstention is on, the support is below its threshold, and the
    request reads retrieved text (passages the caller wrote all of may be instructions, about anything)."""
    threshold = config.support_threshold
    return threshold is not None and support_ is not None and support_ < threshold and not request.trusted


def answers_of(running: Sequence[Running]) -> list[Answer]:
    """Each decoded answer with what it was decoded from, and the full stream's reading of its tokens."""
    return [Answer(r.request.question, r.request.documents, r.request.numbers, r.tokens, r.text.strip(),
                   [math.log(max(s.p_full, 1e-30)) for s in r.trace[:len(r.tokens)]], r.finish == "length")
            for r in running]


def results(lm: LM, running: Sequence[Running], method: Method, config: DecodingConfig,
            gains: Sequence[Sequence[float]] | None, judge: bool = True) -> list[GenerationResult]:
    """The results of a batch: its answers, their citations and support (one scoring pass for the batch), and
    abstention where no passage supports an answer (``gains``: each kept passage's question gain; None: attribution
    off). Without ``judge`` every decoded answer is shown, for :func:`judged` to withhold once its support is final."""
    answers = answers_of(running)
    evidence = iter([])
    if gains is not None:
        scored = [a for a, r in zip(answers, running) if r.finish != "abstain"]
        evidence = iter(passage_evidence(lm.model, lm.tokenizer, lm.pad_id, scored, config))
    out = []
    for r, answer, g in zip(running, answers, gains if gains is not None else [None] * len(running)):
        cited = [k for k in find_citations(answer.text, max(answer.numbers)) if k in answer.numbers]
        citations, support_ = model_citations(answer, cited), None
        if g is not None and r.finish != "abstain":
            offsets = token_offsets(lm.tokenizer, answer.token_ids, answer.text)
            rows = next(evidence)
            citations = sorted(cite(answer, rows, offsets, g) + citations, key=lambda c: (c.answer_start,
                                                                                          c.kind == "model"))
            support_ = support(answer, rows, offsets, g)
        elif g is not None:
            support_ = round(support_of(max(g)), 4)
        out.append(result(r, method, answer.text, citations, support_, config, judge))
    return out


def result(r: Running, method: Method, text: str, citations: list[Citation], support_: float | None,
           config: DecodingConfig, judge: bool = True) -> GenerationResult:
    """One question's result, withheld where it abstained before decoding or (``judge``) its support is too low."""
    req = r.request
    withheld = r.finish == "abstain" or (judge and abstains(config, support_, req))
    return GenerationResult(
        text=config.abstention_text if withheld else text, token_ids=r.tokens, trace=r.trace, trust=req.trust,
        trust_source="scores" if req.scores is not None else "no scores: trust fixed to 1", method=method.name,
        finish_reason="abstain" if withheld else r.finish or "length", prompts=req.prompts,
        prompt_tokens=len(req.token_ids[0]) if req.token_ids else 0, documents=req.documents,
        dropped_documents=req.dropped, irrelevant_documents=req.irrelevant, withheld=req.withheld,
        document_numbers=req.numbers, citations=[] if withheld else citations, support=support_,
        abstained=withheld, unsupported_answer=text if withheld and r.finish != "abstain" else None,
    )


def judged(results_: Sequence[GenerationResult], requests: Sequence[Request], config: DecodingConfig
           ) -> list[GenerationResult]:
    """Each decoded answer withheld where its final support (shared with any passage that answers otherwise) is below
    the threshold: the abstention, with the answer kept aside and the conflicts still listed."""
    return [r.model_copy(update={"text": config.abstention_text, "abstained": True, "finish_reason": "abstain",
                                 "unsupported_answer": r.text, "citations": []})
            if not r.abstained and abstains(config, r.support, q) else r for r, q in zip(results_, requests)]


def taken_at_word(request: Request) -> Request:
    """The request as planned (its passages screened, its prompts rendered), with every passage marked the caller's
    own: the default then decodes it with the trusted documents' rule."""
    return replace(request, documents=[d.model_copy(update={"trusted": True}) for d in request.documents])
