"""A result shown in a terminal (``grounded-rag ask``): the passages it rests on with the supporting spans, its
support, any passage that answers otherwise, what screening withheld, the second looks that found nothing, and the
per-token trace. The notebook's HTML view lives in grounded_rag.result_view."""

from __future__ import annotations

import textwrap

from .result_view import document_label, support_text, terminal_text
from .types import Citation, Document, GenerationResult

QUOTE_CONTEXT = 60  # characters of the passage shown on each side of a supporting span


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
        lines.append(f"(abstained: {why}; support {support_text(result)})")
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
        return [*lines, f"Sources: none cited (support {support_text(result)})"]
    lines.append(f"Sources (support {support_text(result)}):")
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


def format_trace(result) -> str:
    """A readable per-token table: token, c_t, rho_t, eta_t, p_full, p_ref, q."""
    rows = [f"{'token':<18}{'JS c_t':>8}{'rho_t':>8}{'eta_t':>8}{'p_full':>8}{'p_ref':>8}{'q':>8}"]
    for s in result.trace:
        c = "-" if s.conflict is None else f"{s.conflict:.3f}"
        pr = "-" if s.p_ref is None else f"{s.p_ref:.3f}"
        rows.append(f"{s.token!r:<18}{c:>8}{s.rho:>8.3f}{s.eta:>8.3f}{s.p_full:>8.3f}{pr:>8}{s.q:>8.3f}")
    return "\n".join(rows)


def second_looks_note(result: GenerationResult) -> str | None:
    """What ``ask`` says where second looks (``--insist``, ``--quote``) ran on a withheld answer and found nothing to
    show, so a flag that changed nothing is not mistaken for one that was ignored; None elsewhere."""
    if not result.abstained or not result.second_looks:
        return None
    tried = " and ".join(f"--{look}" for look in result.second_looks)
    return f"({tried}: tried, nothing to show; the answer stays withheld)"
