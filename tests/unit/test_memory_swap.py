"""The memory swap (research ablation ``pmi_words_memory_swap``): model-free, on hand-made distributions."""

from __future__ import annotations

import math

import torch

from grounded_rag.config import DecodingConfig
from grounded_rag.evaluation.ablations import memory_swap
from grounded_rag.methods import StepFusion, StepInputs

PARIS, ROME, THE, RARE = 0, 1, 2, 3


def _step(full, question_only, in_docs, begun=False):
    lp_full, lp_q = torch.tensor([full]).log(), torch.tensor([question_only]).log()
    x = StepInputs(lp_full, None, torch.ones(1), DecodingConfig(), begun=begun, doc_tokens=torch.tensor([in_docs]))
    return StepFusion(lp_full.clone(), None, torch.zeros(1), torch.zeros(1), lp_q), x


def test_memorys_first_token_gives_way_to_the_documents_token_the_evidence_favours():
    # memory says Paris (not in the documents); the passage's Rome is unlikely to the full stream but far likelier
    # than to the question alone; "The" is in the documents but the passage adds nothing to it
    fused, x = _step([0.5, 0.02, 0.4, 0.08], [0.6, 0.0005, 0.3, 0.0995], [False, True, True, False])
    out = memory_swap(fused, x).log_q
    assert out.argmax().item() == ROME
    assert out[0, PARIS] == -math.inf and out[0, RARE] == -math.inf, "only the documents' tokens"
    assert math.isclose(out.exp().sum().item(), 1.0, rel_tol=1e-6)


def test_a_document_token_below_the_floor_or_without_evidence_is_out_of_reach():
    # Rome: a token the full stream all but rules out (0.0001 < 0.001 x 0.5) wins no contrast, however large;
    # "The": the passage adds nothing to it (PMI 0.29 nats, under 1). Nothing in reach: the fused step stands.
    fused, x = _step([0.5, 0.0001, 0.4, 0.0999], [0.6, 1e-9, 0.3, 0.1], [False, True, True, False])
    assert torch.equal(memory_swap(fused, x).log_q, fused.log_q)
    assert memory_swap(fused, x, evidence=0.0).log_q.argmax().item() == THE


def test_nothing_changes_where_memory_is_not_speaking_or_the_answer_has_begun():
    cases = [
        ([0.5, 0.02, 0.4, 0.08], [0.6, 0.0005, 0.3, 0.0995], [True, True, True, False], False),  # documents say Paris
        ([0.5, 0.02, 0.4, 0.08], [0.2, 0.0005, 0.7, 0.0995], [False, True, True, False], False),  # streams disagree
        ([0.5, 0.02, 0.4, 0.08], [0.6, 0.0005, 0.3, 0.0995], [False, True, True, False], True),  # past the first
        ([0.5, 0.02, 0.4, 0.08], [0.6, 0.0005, 0.3, 0.0995], [False, False, False, False], False),  # no doc token
    ]
    for full, question_only, in_docs, begun in cases:
        fused, x = _step(full, question_only, in_docs, begun)
        assert torch.equal(memory_swap(fused, x).log_q, fused.log_q)


def test_rows_are_swapped_one_by_one():
    lp_full = torch.tensor([[0.5, 0.02, 0.4, 0.08]] * 2).log()
    lp_q = torch.tensor([[0.6, 0.0005, 0.3, 0.0995]] * 2).log()
    docs = torch.tensor([[False, True, True, False], [True, True, True, False]])
    x = StepInputs(lp_full, None, torch.ones(2), DecodingConfig(), begun=False, doc_tokens=docs)
    out = memory_swap(StepFusion(lp_full.clone(), None, torch.zeros(2), torch.zeros(2), lp_q), x).log_q
    assert out[0].argmax().item() == ROME and torch.equal(out[1], lp_full[1])
