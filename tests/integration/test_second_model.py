"""The second packaged model (Gemma-3-270M base, no chat template): loads by alias and is exact at rho = 0."""

from pathlib import Path

import pytest
import torch

from grounded_rag import GroundedDecoder
from grounded_rag.evaluation.data import load_examples
from grounded_rag.evaluation.memotrap import continuation_prompts
from grounded_rag.evaluation.protocol import base_config
from grounded_rag.methods import get_method
from grounded_rag.prompts import encode

from ..conftest import DOCUMENTS, QUESTION

FIXTURE = Path(__file__).parents[1] / "fixtures" / "nq_swap_6.jsonl"
MEMOTRAP = Path(__file__).parents[1] / "fixtures" / "memotrap_8.jsonl"


@pytest.fixture(scope="module")
def gemma() -> GroundedDecoder:
    return GroundedDecoder.from_pretrained("gemma3-270m")


def test_gemma_plain_text_template_and_exact_rho_zero(gemma):
    assert gemma.name == "gemma3-270m" and gemma.context_window == 32768
    result = gemma.generate(QUESTION, DOCUMENTS, method="grounded", rho_max=0.0, max_new_tokens=8)
    assert result.prompts.full.startswith("System: ") and result.prompts.full.endswith("Assistant:")
    ids = torch.tensor([encode(gemma.tokenizer, result.prompts.full)])
    expected = gemma.model.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=8, do_sample=False,
                                    eos_token_id=sorted(gemma.eos_ids), pad_token_id=gemma.pad_id)[0, ids.shape[1]:]
    assert result.token_ids == [t for t in expected.tolist() if t not in gemma.eos_ids]
    grounded = gemma.generate(QUESTION, DOCUMENTS, max_new_tokens=8)
    assert len(grounded.trace) > 0 and all(0 <= s.conflict <= 1 for s in grounded.trace)


def test_gemma_short_answer_protocol_answers_instead_of_a_blank_line(gemma):
    """The plain layout's ``Assistant:`` and the protocol's ``Answer:`` need the space a reply opens with:
    glued together ("Assistant:Answer:") the base model opened most answers with a blank line, which the
    protocol's newline stop turned into an empty answer."""
    cfg = base_config("standard", {}, 12)
    results = [gemma.generate(ex.question, ex.documents, config=cfg) for ex in load_examples(FIXTURE)[:4]]
    assert results[0].prompts.full.endswith("\n\nAssistant: Answer:")
    assert [r.text != "" for r in results] == [True] * 4, [r.text for r in results]


def test_gemma_memotrap_reply_opens_like_every_reply(gemma):
    """MemoTrap's reply continues the proverb, which the protocol appends after the prompt: after the plain
    layout's ``Assistant:`` it gets the space every reply opens with (as ``Answer:`` does), not glued on.
    (Even so the base model mostly closes the restated turn: a blank line, 0.41, after "... heart grow"; the README
    reports MemoTrap on Gemma by log-likelihood.)"""
    ex = load_examples(MEMOTRAP)[0]
    cfg = base_config("cad", {"beta": 1.0}, 6, short_answer=False)
    request = gemma.prepare(ex.question, ex.documents, None, cfg, get_method("cad"))
    prompts = continuation_prompts(gemma, request, ex.question)
    assert len(prompts) == 2
    for ids in prompts:
        assert gemma.tokenizer.decode(ids).endswith("\n\nAssistant: Absence makes the heart grow"), ids
