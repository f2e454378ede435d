"""A result shown to a person: the answer, the passages it rests on with the supporting spans, and its support.
Plain text for the terminal (``grounded-rag ask``), HTML for notebooks (``GenerationResult._repr_html_``)."""

from __future__ import annotations

import html
import textwrap
import unicodedata

from .types import Citation, Document, GenerationResult

QUOTE_CONTEXT = 60  # characters of the passage shown on each side of a supporting span
# bidirectional embeddings, overrides and isolates: they reorder what a terminal shows after them
_BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def terminal_text(text: str, newlines: bool = False) -> str:
    """Text from passages, file names or the model as a terminal may show it: control characters (an escape
    sequence that clears the screen, a carriage return that overwrites a line, a newline that forges a line of its
    own) and bidirectional overrides are written out as escapes; ``newlines`` keeps an answer's line breaks."""
    def shown(ch: str) -> str:
        if (newlines and ch in "\n\t") or (unicodedata.category(ch) != "Cc" and ch not in _BIDI):
            return ch
        return ch.encode("unicode_escape").decode("ascii")

    return "".join(map(shown, text))


def document_label(result: GenerationResult, number: int) -> str:
    """How a passage is named to a person: its source file or URL, title and id where it has them, else 'Doc k'."""
    doc = result.documents[result.numbers.index(number)]
    source = next((c.source for c in result.citations if c.document == number and c.source), None)
    parts = [p for p in (source, doc.title if doc.title != source else None, doc.id) if p]
    return f"[{number}] " + (" · ".join(dict.fromkeys(map(terminal_text, parts))) if parts else f"Doc {number}")


def _quote(doc: Document, citation: Citation) -> str:
    """The supporting span with a little of the passage around it, on one line."""
    assert citation.start is not None and citation.end is not None
    lo, hi = max(0, citation.start - QUOTE_CONTEXT), min(len(doc.text), citation.end + QUOTE_CONTEXT)
    before, span, after = doc.text[lo:citation.start], doc.text[citation.start:citation.end], doc.text[citation.end:hi]
    text = ("…" if lo > 0 else "") + before + "«" + span + "»" + after + ("…" if hi < len(doc.text) else "")
    return terminal_text(" ".join(text.split()))


def sources_text(result: GenerationResult, width: int = 100) -> str:
    """The lines ``grounded-rag ask`` prints under the answer: each cited passage and its supporting spans, the
    support score, what an abstention withheld, and the passages' sentences withheld as addressed to the model."""
    conflicts = [] if result.abstained else _conflict_lines(result, width)  # an abstention lists them itself
    return "\n".join(_source_lines(result, width) + conflicts + _withheld_lines(result, width))


def _conflict_lines(result: GenerationResult, width: int) -> list[str]:
    """What each passage that disagrees says, asked the question alone (grounded_rag.conflicts)."""
    if not result.conflicts:
        return []
    lines = ["Asked the question alone, another passage answers otherwise:"]
    for c in result.conflicts:
        said = terminal_text(" ".join(c.answer.split()))
        lines.append(textwrap.fill(f'{document_label(result, c.document)} says "{said}" (support {c.support:.2f})',
                                   width, initial_indent="  ", subsequent_indent="    "))
    return lines


def _source_lines(result: GenerationResult, width: int) -> list[str]:
    lines = []
    if result.abstained:
        why = "no passage is about the question" if result.unsupported_answer is None else \
            "the answer rests on no passage about the question"
        lines.append(f"(abstained: {why}; support {_support(result)})")
        if result.unsupported_answer is not None:
            lines.append(f"withheld answer: {terminal_text(result.unsupported_answer)}")
        return lines + _conflict_lines(result, width)
    if result.quoted:
        lines.append(f"(a quote: the answer \"{terminal_text(result.unsupported_answer or '')}\" rested on no passage "
                     "about the question)")
    if result.insisted:
        lines.append(f"(a second look taking the passages at their word: the answer "
                     f"\"{terminal_text(result.unsupported_answer or '')}\" "
                     "rested on no passage about the question)")
    if not result.citations:
        return [*lines, f"Sources: none cited (support {_support(result)})"]
    lines.append(f"Sources (support {_support(result)}):")
    for number in dict.fromkeys(c.document for c in result.citations):
        lines.append("  " + document_label(result, number))
        doc = result.documents[result.numbers.index(number)]
        for c in (c for c in result.citations if c.document == number):
            said = terminal_text(result.text[c.answer_start:c.answer_end])
            if c.kind == "conflict":
                body = f'"{said}" contradicted by ' + (_quote(doc, c) if c.start is not None else "this passage")
            elif c.start is not None:
                body = f'"{said}" ← {_quote(doc, c)}'
            elif c.kind == "model":
                body = f'"{said}": cited by the model'
            else:
                body = f'"{said}": raised by reading this passage (+{c.evidence:.1f} nats a token)'
            lines.append(textwrap.fill(body, width, initial_indent="      ", subsequent_indent="        "))
    return lines


def _withheld_lines(result: GenerationResult, width: int) -> list[str]:
    """Each sentence screening withheld (DecodingConfig.screen_instructions), so a user sees what was not read; a
    sentence taken along with an instruction's paragraph says so."""
    if not result.withheld:
        return []
    lines = ["Withheld, as addressed to the model:"]
    for w in result.withheld:
        where = f"Doc {w.document}" + (" title" if w.field == "title" else "")
        text = terminal_text(w.text if len(w.text) <= 160 else w.text[:157] + "...")
        rule = "in the paragraph of one" if w.rule == "paragraph" else w.rule
        lines.append(textwrap.fill(f'{where} ({rule}): "{text}"', width, initial_indent="  ",
                                   subsequent_indent="    "))
    return lines


def _support(result: GenerationResult) -> str:
    return "n/a" if result.support is None else f"{result.support:.2f}"


def result_html(result: GenerationResult) -> str:
    """The answer with its cited spans marked, each cited passage with its supporting spans highlighted, and the
    support score."""
    e = html.escape
    head = "<div style='font-family:sans-serif;max-width:60em'><p style='font-size:1.1em'>"
    if result.abstained:
        body = head + f"<b>{e(result.text)}</b></p><p style='color:#666'>abstained · support {_support(result)}"
        if result.unsupported_answer is not None:
            body += f" · withheld answer: <i>{e(result.unsupported_answer)}</i>"
        return body + "</p></div>"
    out, at = [], 0
    for c in sorted(result.citations, key=lambda c: c.answer_start):
        if c.answer_start < at:
            continue
        out.append(e(result.text[at:c.answer_start]))
        out.append(f"<mark title='Doc {c.document}'>{e(result.text[c.answer_start:c.answer_end])}</mark>"
                   f"<sup>[{c.document}]</sup>")
        at = c.answer_end
    out.append(e(result.text[at:]))
    quoted = f" · a quote in place of the answer <i>{e(result.unsupported_answer or '')}</i>" if result.quoted else ""
    if result.insisted:
        quoted = f" · a second look in place of the answer <i>{e(result.unsupported_answer or '')}</i>"
    disagree = "".join(f"<br>another passage answers otherwise: <b>{e(document_label(result, c.document))}</b>, "
                       f"asked alone, says <i>{e(c.answer)}</i>" for c in result.conflicts)
    parts = [head + "".join(out) + "</p>", f"<p style='color:#666'>support {_support(result)} · "
             f"{len(result.citations)} cited span(s) · method {e(result.method)}{quoted}{disagree}</p>"]
    for number in dict.fromkeys(c.document for c in result.citations):
        doc = result.documents[result.numbers.index(number)]
        spans = sorted({(c.start, c.end) for c in result.citations
                        if c.document == number and c.start is not None}, key=lambda s: s[0] or 0)
        marked, at = [], 0
        for lo, hi in spans:
            if lo is None or hi is None or lo < at:
                continue
            marked += [e(doc.text[at:lo]), f"<mark>{e(doc.text[lo:hi])}</mark>"]
            at = hi
        marked.append(e(doc.text[at:]))
        parts.append(f"<blockquote style='border-left:3px solid #ccc;margin:.5em 0;padding-left:.8em'>"
                     f"<b>{e(document_label(result, number))}</b><br>{''.join(marked)}</blockquote>")
    return "".join(parts) + "</div>"
