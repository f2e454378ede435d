"""The memory veto (research ablation ``pmi_words_memory_veto``): model-free, on hand-made distributions."""

from __future__ import annotations

import math

import torch

from grounded_rag.config import DecodingConfig
from grounded_rag.evaluation.ablations import memory_veto
from grounded_rag.methods import StepFusion, StepInputs

PARIS, MARSEILLE, THE = 0, 1, 2


def _step(full: list[float], question_only: list[float], in_docs: list[bool], begun: bool = False):
    lp_full = torch.tensor([full]).log()
    lp_q = torch.tensor([question_only]).log()
    x = StepInputs(lp_full, None, torch.ones(1), DecodingConfig(), begun=begun, doc_tokens=torch.tensor([in_docs]))
    fused = StepFusion(lp_full.clone(), None, torch.zeros(1), torch.zeros(1), lp_q)
    return fused, x


def test_memorys_answer_absent_from_the_documents_is_ruled_out_at_the_first_token():
    fused, x = _step([0.6, 0.1, 0.3], [0.7, 0.01, 0.29], [False, True, True])
    out = memory_veto(fused, x).log_q.exp()[0]
    assert out[PARIS] == 0 and math.isclose(out.sum().item(), 1.0, rel_tol=1e-6)
    assert math.isclose(out[MARSEILLE].item() / out[THE].item(), 0.1 / 0.3, rel_tol=1e-5)  # the rest keep their order


def test_nothing_changes_where_a_document_holds_it_the_streams_disagree_or_the_answer_has_begun():
    cases = [
        ([0.6, 0.1, 0.3], [0.7, 0.01, 0.29], [True, True, True], False),  # the documents say Paris too
        ([0.6, 0.1, 0.3], [0.2, 0.1, 0.7], [False, True, True], False),  # memory would say something else
        ([0.6, 0.1, 0.3], [0.7, 0.01, 0.29], [False, True, True], True),  # past the first token
    ]
    for full, question_only, in_docs, begun in cases:
        fused, x = _step(full, question_only, in_docs, begun)
        assert torch.equal(memory_veto(fused, x).log_q, fused.log_q)


def test_rows_are_vetoed_one_by_one():
    lp_full = torch.tensor([[0.6, 0.1, 0.3], [0.6, 0.1, 0.3]]).log()
    lp_q = torch.tensor([[0.7, 0.01, 0.29], [0.7, 0.01, 0.29]]).log()
    docs = torch.tensor([[False, True, True], [True, True, True]])
    x = StepInputs(lp_full, None, torch.ones(2), DecodingConfig(), begun=False, doc_tokens=docs)
    out = memory_veto(StepFusion(lp_full.clone(), None, torch.zeros(2), torch.zeros(2), lp_q), x).log_q
    assert out[0, PARIS] == -math.inf and torch.equal(out[1], lp_full[1])


def test_a_vetoed_token_that_was_the_fused_steps_only_one_leaves_the_full_streams_others():
    fused, x = _step([0.95, 0.01, 0.04], [0.9, 0.01, 0.09], [False, True, True])
    only_paris = torch.tensor([[0.0, -math.inf, -math.inf]])  # a plausible head holding one token
    out = memory_veto(StepFusion(only_paris, None, torch.zeros(1), torch.zeros(1), fused.reference), x).log_q.exp()[0]
    assert out[PARIS] == 0 and not torch.isnan(out).any()
    assert math.isclose(out[MARSEILLE].item(), 0.2, rel_tol=1e-5) and math.isclose(out[THE].item(), 0.8, rel_tol=1e-5)


def test_the_every_step_veto_rules_memory_out_past_the_first_token_but_never_the_end():
    fused, x = _step([0.6, 0.1, 0.3], [0.7, 0.01, 0.29], [False, True, True], begun=True)
    out = memory_veto(fused, x, every_step=True).log_q.exp()[0]
    assert out[PARIS] == 0 and math.isclose(out[MARSEILLE].item() / out[THE].item(), 0.1 / 0.3, rel_tol=1e-5)
    ends = torch.tensor([True, False, False])  # here token 0 ends the answer: both streams would stop
    x = StepInputs(x.lp_full, None, x.trust, x.config, begun=True, doc_tokens=x.doc_tokens, ends=ends)
    assert torch.equal(memory_veto(fused, x, every_step=True).log_q, fused.log_q)
