"""Matched prompt templates (paper App. "Prompt Templates").

The full and reference prompts are produced by one function from one set of messages, so they
differ *only* by the ``Question:`` field (retrieval reference) or by the documents (query
reference), never by template artefacts. ``documents_first`` places the question after the
documents, so the token sequences of both prompts share the whole document block as an exact
prefix and the engine prefills it once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from transformers import PreTrainedTokenizerBase

from .types import Document

Reference = Literal["retrieval", "query", "none"]


def format_documents(documents: Sequence[Document]) -> str:
    """``Doc 1: ...`` lines, numbered so an answer can cite ``Doc k``."""
    lines = []
    for k, doc in enumerate(documents, start=1):
        head = f"Doc {k}" + (f" ({doc.title})" if doc.title else "")
        lines.append(f"{head}: {doc.text.strip()}")
    return "\n".join(lines)


def user_message(question: str | None, documents: Sequence[Document] | None, template: str) -> str:
    parts_q = [f"Question: {question.strip()}"] if question is not None else []
    parts_d = [f"Documents:\n{format_documents(documents)}"] if documents else []
    if template == "paper":
        return "\n".join(parts_q + parts_d)
    if template == "documents_first":
        return "\n\n".join(parts_d + parts_q)
    raise ValueError(f"unknown template {template!r}; use 'paper' or 'documents_first'")


def render(tokenizer: PreTrainedTokenizerBase, system: str, user: str) -> str:
    """The tokenizer's chat template when it has one, else the paper's plain-text layout."""
    if getattr(tokenizer, "chat_template", None):
        messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
        return tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
    return f"System: {system}\n\nUser: {user}\n\nAssistant:"


def build_prompts(
    tokenizer: PreTrainedTokenizerBase,
    question: str,
    documents: Sequence[Document],
    references: Reference | Sequence[Reference],
    template: str,
    system: str,
    answer_prefix: str = "",
) -> list[str]:
    """[full prompt, one prompt per reference stream] for one question.

    ``retrieval`` drops the question, ``query`` drops the documents; everything else is shared.
    ``answer_prefix`` opens the assistant turn in every stream alike (e.g. ``Answer:`` asks for a
    short answer the same way for every method)."""
    kinds = [references] if isinstance(references, str) else list(references)
    parts = {
        "full": (question, documents),
        "retrieval": (None, documents),
        "query": (question, None),
    }
    out = []
    for kind in ["full", *(k for k in kinds if k != "none")]:
        q, docs = parts[kind]
        out.append(render(tokenizer, system, user_message(q, docs, template)) + answer_prefix)
    return out


def encode(tokenizer: PreTrainedTokenizerBase, text: str) -> list[int]:
    """Token ids of a rendered prompt (chat templates already carry their special tokens)."""
    add_special = not getattr(tokenizer, "chat_template", None)
    return tokenizer(text, add_special_tokens=add_special)["input_ids"]
