"""Matched prompt templates (paper App. "Prompt Templates").

The full and reference prompts are produced by one function from one set of messages, so they
differ *only* by the ``Question:`` field (retrieval reference) or by the documents (query
reference), never by template artefacts. ``documents_first`` places the question after the
documents, so the token sequences of both prompts share the whole document block as an exact
prefix and the engine prefills it once.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

from .errors import InputError
from .types import Document

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerBase

Reference = Literal["retrieval", "query", "none"]


def format_documents(documents: Sequence[Document], numbers: Sequence[int] | None = None) -> str:
    """``Doc 1: ...`` lines, numbered so an answer can cite ``Doc k``. ``numbers`` (1-based) keeps the caller's
    numbering when some documents were left out, so ``Doc k`` always names the caller's k-th document."""
    lines = []
    for k, doc in zip(numbers or range(1, len(documents) + 1), documents):
        head = f"Doc {k}" + (f" ({doc.title})" if doc.title else "")
        lines.append(f"{head}: {doc.text.strip()}")
    return "\n".join(lines)


def user_message(question: str | None, documents: Sequence[Document] | None, template: str,
                 numbers: Sequence[int] | None = None) -> str:
    parts_q = [f"Question: {question.strip()}"] if question is not None else []
    parts_d = [f"Documents:\n{format_documents(documents, numbers)}"] if documents else []
    if template == "paper":
        return "\n".join(parts_q + parts_d)
    if template == "documents_first":
        return "\n\n".join(parts_d + parts_q)
    raise ValueError(f"unknown template {template!r}; use 'paper' or 'documents_first'")


class RenderedPrompt(str):
    """A rendered prompt that remembers which of its characters came from the template.

    It is an ordinary ``str`` (printing, comparing and storing it are unchanged); ``pieces`` lists
    ``(text, trusted)`` spans that join to the string. Only trusted spans (the chat template's own
    text) may produce control tokens; see :func:`encode`.
    """

    pieces: tuple[tuple[str, bool], ...]

    def __new__(cls, pieces: Sequence[tuple[str, bool]]) -> RenderedPrompt:
        merged: list[tuple[str, bool]] = []
        for text, trusted in pieces:
            if not text:
                continue
            if merged and merged[-1][1] == trusted:
                merged[-1] = (merged[-1][0] + text, trusted)
            else:
                merged.append((text, trusted))
        self = super().__new__(cls, "".join(text for text, _ in merged))
        self.pieces = tuple(merged)
        return self

    def __getnewargs__(self) -> tuple[tuple[tuple[str, bool], ...]]:  # type: ignore[override]
        return (self.pieces,)  # so copies and pickles keep the marks


_SENTINEL = "GRSENTINEL{}X9Q"  # letters and digits only, so no template filter (escape, tojson) changes it


def _chat_template_pieces(tokenizer: PreTrainedTokenizerBase, contents: Sequence[str]) -> list[str] | None:
    """The template's own text around the two messages: [before system, between, after user].

    Rendered with placeholders instead of the messages, so untrusted text never enters the template
    engine's output that is searched for control tokens. None when the template drops or repeats a
    message (then the placeholders cannot be located exactly once each)."""
    marks = [_SENTINEL.format(i) for i in range(len(contents))]
    messages = [{"role": "system", "content": marks[0]}, {"role": "user", "content": marks[1]}]
    layout = tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
    pieces: list[str] = []
    for mark in marks:
        if layout.count(mark) != 1:
            return None
        head, layout = layout.split(mark)
        pieces.append(head)
    return pieces + [layout]


_TURN = re.compile(r"(?im)^([ \t]*)(system|user|assistant)([ \t]*):")


def quote_turns(text: str) -> str:
    """Untrusted text for the plain layout: a line that opens like one of its turns ("Assistant: ...") is quoted
    ("> Assistant: ..."), so a document cannot forge a turn with the very tokens the layout's own turns are."""
    return _TURN.sub(r"\1> \2\3:", text)


def plain_layout(tokenizer: PreTrainedTokenizerBase) -> bool:
    """Whether prompts use the plain-text layout: the tokenizer has no chat template (a base model)."""
    return not getattr(tokenizer, "chat_template", None)


PLAIN_TURN_END = "\n\n"  # the plain layout's turns are separated by a blank line


def turn_ends(tokenizer: PreTrainedTokenizerBase) -> tuple[str, ...]:
    """Where a reply ends besides an end-of-turn token. A model that uses the plain layout has no token that ends
    its turn (a base model): after its answer it goes on to write the next turns itself ("\\n\\nUser: ...",
    "\\n\\nQuestion: ..."), so its reply ends at its first blank line, where the layout's turns end."""
    return (PLAIN_TURN_END,) if plain_layout(tokenizer) else ()


def render(tokenizer: PreTrainedTokenizerBase, system: str, user: str) -> RenderedPrompt:
    """The tokenizer's chat template when it has one, else the paper's plain-text layout.

    ``system`` and ``user`` are untrusted (they carry the question, documents, titles and metadata):
    the result marks them so :func:`encode` tokenizes them as plain text, never as control tokens.
    The string is exactly what the template renders; when a template edits message text in a way
    other than trimming it, the messages are placed verbatim between the template's own pieces.
    """
    if plain_layout(tokenizer):
        return RenderedPrompt([("System: ", True), (quote_turns(system), False), ("\n\nUser: ", True),
                               (quote_turns(user), False), ("\n\nAssistant:", True)])
    frame = _chat_template_pieces(tokenizer, (system, user))
    if frame is None:
        raise InputError(
            "the model's chat template does not place the system and user messages once each; "
            "grounded-rag cannot keep document text apart from its control tokens (use a model whose "
            "template renders both messages, or remove chat_template to use the plain-text layout)"
        )
    messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
    exact = tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
    for edit in (lambda t: t, str.strip):
        body = [edit(system), edit(user)]
        if frame[0] + body[0] + frame[1] + body[1] + frame[2] == exact:
            break
    else:
        body = [system, user]
    return RenderedPrompt([(frame[0], True), (body[0], False), (frame[1], True), (body[1], False), (frame[2], True)])


def build_prompts(
    tokenizer: PreTrainedTokenizerBase,
    question: str,
    documents: Sequence[Document],
    references: Reference | Sequence[Reference],
    template: str,
    system: str,
    answer_prefix: str = "",
    numbers: Sequence[int] | None = None,
) -> list[RenderedPrompt]:
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
        out.append(open_answer(render(tokenizer, system, user_message(q, docs, template, numbers)), answer_prefix))
    return out


def reply_start(prompt: str, text: str) -> str:
    """``text`` as the opening of the reply that follows ``prompt``: after the plain layout's
    ``Assistant:`` it gets the space a reply opens with. Glued on ("Assistant:Answer:",
    "Assistant:Absence makes the heart grow") it made Gemma-3-270M answer with a blank line."""
    if text and prompt.endswith(":") and not text[0].isspace():
        return " " + text
    return text


def open_answer(prompt: RenderedPrompt, answer_prefix: str) -> RenderedPrompt:
    """The prompt with the assistant turn opened by ``answer_prefix``, kept untrusted (plain text)."""
    return RenderedPrompt([*prompt.pieces, (reply_start(prompt, answer_prefix), False)])


def control_token_ids(tokenizer: PreTrainedTokenizerBase) -> set[int]:
    """Ids of the tokenizer's control tokens (:func:`control_names`): BOS/EOS, turn markers (Gemma's
    ``<start_of_turn>``, SmolLM's ``<|im_start|>``), Gemma's ``<start_of_image>``, ... Untrusted text yields none."""
    return set(_controls(tokenizer)[1])


def _special_pattern(tokenizer: PreTrainedTokenizerBase) -> re.Pattern[str] | None:
    names = {tok.content for tok in tokenizer.added_tokens_decoder.values() if tok.special}
    names |= set(tokenizer.all_special_tokens)
    if not names:
        return None
    return re.compile("(" + "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True)) + ")")


_TEXT_LIKE = re.compile(r"\s+|</?[a-z][a-z0-9]*>")  # added tokens that are ordinary text (Gemma's "\n\n", "<td>")
_ADDED: weakref.WeakKeyDictionary[PreTrainedTokenizerBase, re.Pattern[str] | None] = weakref.WeakKeyDictionary()


_CONTROLS: weakref.WeakKeyDictionary[PreTrainedTokenizerBase, tuple[frozenset[str], frozenset[int]]] = (
    weakref.WeakKeyDictionary())


def _controls(tokenizer: PreTrainedTokenizerBase) -> tuple[frozenset[str], frozenset[int]]:
    """(texts, ids) of the tokenizer's control tokens, worked out once per tokenizer (``added_tokens_decoder``
    rebuilds a dict of thousands of entries on every access)."""
    key = tokenizer
    if key not in _CONTROLS:
        added = tokenizer.added_tokens_decoder
        chosen = {i: t.content for i, t in added.items() if t.special or not _TEXT_LIKE.fullmatch(t.content)}
        names = {n for n in set(chosen.values()) | set(tokenizer.all_special_tokens) if n}
        _CONTROLS[key] = frozenset(names), frozenset(chosen) | frozenset(tokenizer.all_special_ids)
    return _CONTROLS[key]


def control_names(tokenizer: PreTrainedTokenizerBase) -> set[str]:
    """The text of every control token: special tokens, and added tokens that are not ordinary text (Gemma's
    ``<start_of_image>`` is added but not flagged special; its whitespace runs and HTML tags are text)."""
    return set(_controls(tokenizer)[0])


def _added_pattern(tokenizer: PreTrainedTokenizerBase) -> re.Pattern[str] | None:
    """The text of every control token the tokenizer would still match in text with special-token matching off
    (the added tokens not flagged special), longest first; compiled once per tokenizer."""
    key = tokenizer
    if key not in _ADDED:
        names = {t.content for t in tokenizer.added_tokens_decoder.values()
                 if not t.special and not _TEXT_LIKE.fullmatch(t.content)}
        _ADDED[key] = re.compile("|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))) if names \
            else None
    return _ADDED[key]


def encode_text(tokenizer: PreTrainedTokenizerBase, text: str) -> list[int]:
    """Token ids of untrusted text: no control token (:func:`control_names`) comes out of it. Special-token strings
    are split by the tokenizer itself; an added token it would still match (Gemma's ``<start_of_image>``) is cut
    after its first character, so it is spelt in ordinary tokens too."""
    pattern = _added_pattern(tokenizer)
    if pattern is None or not pattern.search(text):
        return tokenizer(text, add_special_tokens=False, split_special_tokens=True)["input_ids"]
    ids: list[int] = []
    last = 0
    for match in pattern.finditer(text):
        for piece in (text[last:match.start()], match.group()[:1], match.group()[1:]):
            if piece:
                ids += tokenizer(piece, add_special_tokens=False, split_special_tokens=True)["input_ids"]
        last = match.end()
    if text[last:]:
        ids += tokenizer(text[last:], add_special_tokens=False, split_special_tokens=True)["input_ids"]
    return ids


def encode(tokenizer: PreTrainedTokenizerBase, text: str) -> list[int]:
    """Token ids of a prompt. A :class:`RenderedPrompt` gets control tokens only where the template
    put them: its untrusted spans are tokenized as plain text, so a document containing
    ``<|im_end|>`` or ``<end_of_turn>`` cannot close the turn or open a new one. A plain ``str`` is
    trusted whole (chat templates already carry their special tokens).

    The template's control tokens are cut out first and the text between them is tokenized as one
    run (template text and message text together), which is what the tokenizer itself does, so a
    clean prompt gets the same ids either way.
    """
    plain = plain_layout(tokenizer)
    pieces = getattr(text, "pieces", None)
    if pieces is None:
        return tokenizer(text, add_special_tokens=plain)["input_ids"]
    if plain:  # the layout's own text has no control tokens; the tokenizer adds its BOS
        added = _added_pattern(tokenizer)
        if added is None or not any(added.search(piece) for piece, trusted in pieces if not trusted):
            return tokenizer(str(text), add_special_tokens=True, split_special_tokens=True)["input_ids"]
        ids = tokenizer("", add_special_tokens=True)["input_ids"]  # the BOS alone
        for piece, trusted in pieces:
            ids += tokenizer(piece, add_special_tokens=False)["input_ids"] if trusted else encode_text(tokenizer, piece)
        return ids
    pattern = _special_pattern(tokenizer)
    runs: list[str | int] = [""]  # text runs, and control token ids between them
    for piece, trusted in pieces:
        parts = pattern.split(piece) if trusted and pattern is not None else [piece]
        for k, part in enumerate(parts):
            if k % 2 == 0:
                runs[-1] += part  # type: ignore[operator]
            else:
                runs += [tokenizer.convert_tokens_to_ids(part), ""]
    ids: list[int] = []
    for run in runs:
        if isinstance(run, int):
            ids.append(run)
        elif run:
            ids += encode_text(tokenizer, run)
    return ids
