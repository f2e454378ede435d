"""The memory-extract step (research ablation ``pmi_words_memory_extract``): model-free, on hand-made distributions
and a hand-made document span."""

from __future__ import annotations

import math

import torch

from grounded_rag.config import DecodingConfig
from grounded_rag.evaluation.ablations import memory_extract
from grounded_rag.methods import StepFusion, StepInputs
from grounded_rag.spans import DocumentSpans

PARIS, ROME, THE, IS, EOS, CITY, NEWLINE = range(7)
DOCUMENT = [ROME, IS, THE, CITY]  # "Rome is the city"
MEMORY = [0.5, 0.02, 0.3, 0.1, 0.05, 0.02, 0.01]  # the full stream: memory's Paris first, Rome unlikely
QUESTION_ONLY = [0.7, 0.0005, 0.2, 0.05, 0.04, 0.0095, 0.0]  # Paris likelier still; Rome all but ruled out


def _spans() -> DocumentSpans:
    return DocumentSpans([list(DOCUMENT)], [None], frozenset({EOS, NEWLINE}))


def _step(full, question_only, spans, begun=True, question=(THE, CITY)):
    lp_full, lp_q = torch.tensor([full]).log(), torch.tensor([question_only]).log()
    in_docs = torch.zeros(1, len(full), dtype=torch.bool)
    in_docs[0, DOCUMENT] = True
    in_question = torch.zeros(1, len(full), dtype=torch.bool)
    in_question[0, list(question)] = True  # "the city?"
    ends = torch.zeros(len(full), dtype=torch.bool)
    ends[EOS] = True
    x = StepInputs(lp_full, None, torch.ones(1), DecodingConfig(), begun=begun, doc_tokens=in_docs, ends=ends,
                   spans=spans, question_tokens=in_question)
    return StepFusion(lp_full.clone(), None, torch.zeros(1), torch.zeros(1), lp_q), x


def test_where_memory_speaks_against_the_documents_a_span_starts_with_the_evidences_token():
    spans = [_spans()]
    out = memory_extract(*_step(MEMORY, QUESTION_ONLY, spans))
    assert out.log_q.argmax().item() == ROME and out.span_from.tolist() == [True] and out.span_left.tolist() == [False]
    assert out.log_q[0, PARIS] == -math.inf and out.log_q[0, EOS] == -math.inf, "only tokens a span opens with"
    assert math.isclose(out.log_q.exp().sum().item(), 1.0, rel_tol=1e-6)
    assert not spans[0].engaged, "the step says where a span starts; the engine's trackers keep the state"


def test_inside_its_span_the_answer_goes_on_copying_and_ends_where_the_span_may():
    spans = _spans()
    spans.restart()
    spans.advance(ROME)
    # the fused step wants " is" (the span's next word) and gives a newline, which ends a span, some mass
    out = memory_extract(*_step([0.1, 0.0, 0.1, 0.6, 0.05, 0.05, 0.1], QUESTION_ONLY, [spans]))
    allowed = torch.isfinite(out.log_q[0]).nonzero().flatten().tolist()
    assert allowed == [IS, EOS], "the span's next token, or the answer's end (the newline's mass moves there)"
    assert math.isclose(out.log_q[0, EOS].exp().item(), 0.15 / 0.75, rel_tol=1e-5)
    assert out.span_from.tolist() == [False] and out.span_left.tolist() == [False]


def test_at_a_words_end_the_answer_may_leave_its_span_and_go_on_freely():
    spans = _spans()
    spans.restart()
    spans.advance(ROME)
    fused, x = _step([0.1, 0.0, 0.1, 0.1, 0.05, 0.6, 0.05], QUESTION_ONLY, [spans])  # " city" does not follow "Rome"
    out = memory_extract(fused, x)
    assert out.span_left.tolist() == [True] and torch.equal(out.log_q, fused.log_q)


def test_nothing_changes_where_memory_agrees_with_the_documents_or_has_nothing_to_give_way_to():
    agreeing = list(QUESTION_ONLY)
    agreeing[PARIS], agreeing[THE] = 0.54, 0.36  # the documents make Paris less likely by 0.08 nats: under 0.1
    no_evidence = list(QUESTION_ONLY)
    no_evidence[ROME], no_evidence[THE] = 0.01, 0.1905  # Rome: 0.69 nats of evidence, under the 2 needed
    cases = [(MEMORY, agreeing), (MEMORY, no_evidence),
             ([0.05, 0.02, 0.3, 0.1, 0.5, 0.02, 0.01], [0.04, 0.0005, 0.2, 0.05, 0.7, 0.0095, 0.0])]  # memory ends
    for full, question_only in cases:
        fused, x = _step(full, question_only, [_spans()])
        out = memory_extract(fused, x)
        assert torch.equal(out.log_q, fused.log_q) and out.span_from.tolist() == [False]


def test_a_token_of_an_unrelated_passage_that_memory_rules_out_does_not_win_on_its_contrast_alone():
    # CITY: far more evidence (the question alone never says it) but less likely to the full stream than ROME; the
    # contrast counts up to 4 nats, so the full stream decides between them
    question_only = list(QUESTION_ONLY)
    question_only[CITY], question_only[THE] = 1e-9, 0.2095
    full = list(MEMORY)
    full[CITY], full[ROME], full[THE] = 0.01, 0.03, 0.29
    out = memory_extract(*_step(full, question_only, [_spans()]))
    assert out.log_q.argmax().item() == ROME
    assert memory_extract(*_step(full, question_only, [_spans()]), cap=100.0).log_q.argmax().item() == CITY


def test_where_the_fused_step_already_says_something_else_the_evidence_has_won_without_help():
    fused, x = _step(MEMORY, QUESTION_ONLY, [_spans()])
    said = torch.tensor([[0.1, 0.6, 0.1, 0.1, 0.05, 0.04, 0.01]]).log()  # the default's step gives Rome already
    out = memory_extract(StepFusion(said, None, torch.zeros(1), torch.zeros(1), fused.reference), x)
    assert torch.equal(out.log_q, said) and out.span_from.tolist() == [False]


def test_a_word_of_the_question_is_the_answer_restating_it_not_memorys_answer():
    # both streams put PARIS first, as in the first test, but here the question spells it ("Is Paris the city?"):
    # a span opened there copied a planted line where the answer was only restating the question
    fused, x = _step(MEMORY, QUESTION_ONLY, [_spans()], question=(PARIS, THE, CITY))
    out = memory_extract(fused, x)
    assert torch.equal(out.log_q, fused.log_q) and out.span_from.tolist() == [False]
