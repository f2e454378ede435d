"""What any view of a result shows a person: a passage's label, the support as text, text from passages made safe
for a terminal, and the notebook's HTML view (``GenerationResult._repr_html_``). It reads a result's fields and
imports nothing of the package, so the result type can reach its view from below."""

from __future__ import annotations

import html
import unicodedata
from typing import Any

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


def document_label(result: Any, number: int) -> str:
    """How a passage is named to a person: its source file or URL, title and id where it has them, else 'Doc k'."""
    doc = result.documents[result.numbers.index(number)]
    source = next((c.source for c in result.citations if c.document == number and c.source), None)
    parts = [p for p in (source, doc.title if doc.title != source else None, doc.id) if p]
    return f"[{number}] " + (" · ".join(dict.fromkeys(map(terminal_text, parts))) if parts else f"Doc {number}")


def support_text(result: Any) -> str:
    return "n/a" if result.support is None else f"{result.support:.2f}"


def result_html(result: Any) -> str:
    """The answer with its cited spans marked, each cited passage with its supporting spans highlighted, and the
    support score."""
    e = html.escape
    head = "<div style='font-family:sans-serif;max-width:60em'><p style='font-size:1.1em'>"
    if result.abstained:
        body = head + f"<b>{e(result.text)}</b></p><p style='color:#666'>abstained · support {support_text(result)}"
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
    parts = [head + "".join(out) + "</p>", f"<p style='color:#666'>support {support_text(result)} · "
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
