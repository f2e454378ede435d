"""The question echo (research ablation ``pmi_words_echo``): model-free, on hand-made distributions."""

from __future__ import annotations

import torch

from grounded_rag.config import DecodingConfig
from grounded_rag.evaluation.ablations import question_echo
from grounded_rag.methods import StepFusion, StepInputs

JUNIPER, KESTREL, THE = 0, 1, 2  # after "Project" in an answer to "Who leads Project Juniper?"


def _step(full, question_only, in_question, in_docs, begun=True):
    lp_full = torch.tensor(full).log()
    x = StepInputs(lp_full, None, torch.ones(len(full)), DecodingConfig(), begun=begun,
                   doc_tokens=torch.tensor(in_docs), question_tokens=torch.tensor(in_question))
    contrast = torch.tensor([[0.001, 0.998, 0.001]] * len(full)).log()  # the evidence term lifted the other entity
    rows = len(full)
    return StepFusion(contrast, None, torch.zeros(rows), torch.zeros(rows), torch.tensor(question_only).log()), x


def test_a_step_restating_the_question_is_the_full_streams():
    fused, x = _step([[0.5, 0.3, 0.2]], [[0.9, 0.0001, 0.0999]], [[True, False, True]], [[True, True, True]])
    assert torch.equal(question_echo(fused, x).log_q, x.lp_full)


def test_nothing_changes_at_the_first_token_or_where_the_token_is_not_the_questions_the_documents_or_both_streams():
    cases = [
        ([[0.5, 0.3, 0.2]], [[0.9, 0.0001, 0.0999]], [[True, False, True]], [[True, True, True]], False),  # first
        ([[0.5, 0.3, 0.2]], [[0.9, 0.0001, 0.0999]], [[False, False, True]], [[True, True, True]], True),  # not asked
        ([[0.5, 0.3, 0.2]], [[0.9, 0.0001, 0.0999]], [[True, False, True]], [[False, True, True]], True),  # not in docs
        ([[0.5, 0.3, 0.2]], [[0.1, 0.0001, 0.8999]], [[True, False, True]], [[True, True, True]], True),  # disagree
    ]
    for full, question_only, in_question, in_docs, begun in cases:
        fused, x = _step(full, question_only, in_question, in_docs, begun)
        assert torch.equal(question_echo(fused, x).log_q, fused.log_q)


def test_rows_are_judged_one_by_one():
    fused, x = _step([[0.5, 0.3, 0.2]] * 2, [[0.9, 0.0001, 0.0999]] * 2, [[True, False, True], [False, False, True]],
                     [[True, True, True]] * 2)
    out = question_echo(fused, x).log_q
    assert torch.equal(out[0], x.lp_full[0]) and torch.equal(out[1], fused.log_q[1])
