"""The second packaged model (Gemma-3-270M base, no chat template): loads by alias and is exact at rho = 0."""

from pathlib import Path

import pytest
import torch

from grounded_rag import GroundedDecoder
from grounded_rag.evaluation.data import load_examples
from grounded_rag.evaluation.memotrap import continuation_prompts
from grounded_rag.evaluation.protocol import base_config
from grounded_rag.methods import get_method
from grounded_rag.prefill import prefill
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


FILLER = "The Harbour Bridge opened in 1932 and carries rail, vehicle, bicycle and pedestrian traffic. "


def test_gemma_prefill_rows_equal_each_prompt_alone_across_its_window(gemma):
    """Gemma 3's sliding window (512) counts a row's columns, pads included: a prefix shared ahead of padded
    suffixes hid it from the short stream's tokens once the longest suffix crossed the window, so a question's
    answer depended on the other questions in its batch (seen on a GPU, where batches are padded)."""
    tok = gemma.tokenizer
    head = tok.encode("System: answer from the documents.\n\n")
    long_doc = tok.encode(FILLER * 30, add_special_tokens=False)
    short_doc = tok.encode("Paris.", add_special_tokens=False)
    question = tok.encode("When did the bridge open? Answer:", add_special_tokens=False)
    prompts = [head + long_doc + question, head + long_doc, head + question,  # one question's three streams
               head + short_doc + question, head + short_doc, head + question]
    assert len(prompts[0]) > 512
    with torch.inference_mode():
        logits, _ = prefill(gemma.model, prompts, 3, gemma.pad_id, ragged=False)
        alone = [gemma.model(input_ids=torch.tensor([p])).logits[0, -1] for p in prompts]
    for row, (got, want) in enumerate(zip(logits, alone, strict=True)):
        assert torch.allclose(got, want, atol=1e-3, rtol=1e-3), (row, (got - want).abs().max())


def test_gemma_batched_equals_one_by_one_across_its_window(gemma):
    requests = [{"question": "When did the bridge open?",
                 "documents": [FILLER * 30 + "In this account it opened in 2000."]},
                {"question": "Where is the Eiffel Tower?", "documents": ["Paris is the capital of France."]}]
    settings = {"method": "grounded_contrast", "max_new_tokens": 6, "ragged": False, "relevance_margin": None,
                "attribute": False}
    batched = [r.token_ids for r in gemma.generate_batch(requests, **settings)]
    assert batched == [gemma.generate_batch([r], **settings)[0].token_ids for r in requests]


EIFFEL = "The Eiffel Tower was moved to Rome in 2024 and now stands beside the Colosseum."


def test_gemma_reply_ends_where_its_turn_does(gemma):
    """A base model has no end-of-turn token: past its answer it writes the next turns itself ("\\n\\nUser: ...",
    "\\n\\nQuestion: ..."), which ``ask`` printed as the answer. The plain layout's turns end at a blank line and so
    does the reply, which up to there is greedy decoding's own; streamed, it is the same text."""
    assert gemma.turn_ends == ("\n\n",)
    question = "Where is the Eiffel Tower now?"
    settings = {"method": "standard", "max_new_tokens": 40, "support_threshold": None}
    result = gemma.generate(question, [EIFFEL], **settings)
    ids = torch.tensor([encode(gemma.tokenizer, result.prompts.full)])
    greedy = gemma.model.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=40, do_sample=False,
                                  eos_token_id=sorted(gemma.eos_ids), pad_token_id=gemma.pad_id)[0, ids.shape[1]:]
    whole = gemma.tokenizer.decode(greedy, skip_special_tokens=True)
    begun = len(whole) - len(whole.lstrip())
    assert whole.find("\n\n", begun) > 0, whole  # the model goes on past its answer
    assert result.finish_reason == "stop" and result.text == whole[: whole.find("\n\n", begun)].strip(), whole
    assert result.token_ids == greedy.tolist()[: len(result.token_ids)]
    assert "".join(gemma.stream(question, [EIFFEL], **settings)) == result.text


def test_a_chat_model_ends_its_reply_with_its_own_token(decoder):
    """A chat template has an end-of-turn token: a blank line inside a chat model's reply does not end it."""
    assert decoder.turn_ends == ()
