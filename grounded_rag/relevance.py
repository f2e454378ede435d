"""Which retrieved passages the question is about, read by the model itself.

A passage retrieved for another question (a distractor) captures small models: they copy its
salient text, or answer from it. Before decoding, each passage is scored by the question's
likelihood given the passage alone — the mean log p(question token | passage) under the same LM
(UPR, Sachan et al. 2022: "Improving Passage Retrieval with Zero-Shot Question Generation"). A
passage that answers the question makes the question likely; one about something else does not,
whatever the retriever's score said. Passages more than ``relevance_margin`` nats per question
token below the best are left out of every stream's prompt, and reported on the result, unless they are about the
question in their own right: a passage that makes the question :data:`ABOUT_QUESTION_NATS` likelier per token than
no passage stays however far the best one reads above it (a planted FAQ that repeats the question's words reads far
above the passage that answers it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from transformers import PreTrainedTokenizerBase

from .prompts import encode, encode_text, render
from .scoring import continuation_log_probs
from .types import Document

if TYPE_CHECKING:  # transformers' modeling (2 s, 120 MB to import) is not needed on llama.cpp
    from transformers import PreTrainedModel

SYSTEM = "You are a helpful assistant."
INSTRUCTION = "Write a question that this passage answers."
BASELINE = "Write a question."
PASSAGE_TOKENS = 512  # a passage's head is enough to say what it is about, and keeps the scoring pass short


def relevance_prompt(tokenizer: PreTrainedTokenizerBase, document: Document) -> list[int]:
    """Token ids of the prompt the question is scored after: one passage, untrusted, head only."""
    text = f"{document.title}: {document.text.strip()}" if document.title else document.text.strip()
    ids = encode_text(tokenizer, text)
    if len(ids) > PASSAGE_TOKENS:
        text = tokenizer.decode(ids[:PASSAGE_TOKENS])
    return encode(tokenizer, render(tokenizer, SYSTEM, f"Passage: {text}\n\n{INSTRUCTION}"))


def question_likelihood(
    model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase, question: str, documents: Sequence[Document],
    pad_id: int,
) -> list[float]:
    """Mean log p(question token | passage) per document, in nats (higher: the passage is about the question)."""
    return question_likelihoods(model, tokenizer, [(question, documents)], pad_id)[0]


def question_likelihoods(
    model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase,
    requests: Sequence[tuple[str, Sequence[Document] | None]], pad_id: int,
) -> list[list[float]]:
    """:func:`question_likelihood` for many questions at once: every passage of every request in one
    scoring call, so a batch's short passages share forward passes. A request whose documents are ``None`` gets one
    value: the question's likelihood after no passage at all (:func:`baseline_prompt`), which a passage's is read
    against (:func:`grounded_rag.support.support_of`)."""
    pairs = [(relevance_prompt(tokenizer, d) if d is not None else baseline_prompt(tokenizer),
              encode_text(tokenizer, question.strip()))
             for question, documents in requests for d in (documents if documents is not None else [None])]
    means = [float(lp.mean()) for lp in continuation_log_probs(model, pairs, pad_id)]
    out, start = [], 0
    for _, documents in requests:
        n = len(documents) if documents is not None else 1
        out.append(means[start : start + n])
        start += n
    return out


def baseline_prompt(tokenizer: PreTrainedTokenizerBase) -> list[int]:
    """The prompt a question's likelihood is read against: the same request with no passage."""
    return encode(tokenizer, render(tokenizer, SYSTEM, BASELINE))


# nats per question token over no passage: chosen on NQ-Swap validation rows with two distractors (other questions'
# passages), above every distractor's gain there (docs/citations.md)
ABOUT_QUESTION_NATS = 1.5


def relevant(likelihoods: Sequence[float], margin: float, baseline: float | None = None,
             floor: float = ABOUT_QUESTION_NATS) -> list[int]:
    """Indices of the passages within ``margin`` nats per token of the most relevant one, or (given the question's
    ``baseline``: its likelihood after no passage) ``floor`` nats per token above the baseline, in order."""
    best = max(likelihoods)
    return [i for i, v in enumerate(likelihoods)
            if v >= best - margin or (baseline is not None and v - baseline >= floor)]
