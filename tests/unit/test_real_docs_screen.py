"""The default screen (the rules, then the learned classifier, as shipped) on real documents people ingest: the
committed test pages (cookbook/data/real_docs/SOURCE.md) and the installed packages' descriptions of the test split,
chunked as ``grounded-rag ingest`` chunks them. The target: it never withholds a heading or a title, and it touches at
most 0.5% of passages. Settings were chosen on the validation pages only; measured once on the test split, it
touches 21 of 1,367 passages (1.5%; 178 before) and one ``#`` line (a code comment in a package's README), so the
target is an expected failure and a looser bound guards against sliding back (docs/security.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from grounded_rag.evaluation.screening_report import documents_report, package_docs, read_documents, screener

TEST = Path(__file__).parents[2] / "cookbook" / "data" / "real_docs" / "test"
SHARE = 0.005  # of passages with a sentence withheld, at most: the target
MEASURED = 0.02  # the bound that holds today (1.5% measured), against sliding back


@pytest.fixture(scope="module")
def reports() -> tuple[dict[str, dict[str, Any]], int]:
    sources = {sub.name: read_documents(str(sub)) for sub in sorted(TEST.iterdir()) if sub.is_dir()}
    assert len(sources) >= 3 and sum(map(len, sources.values())) >= 250  # the committed pages
    sources["packages"] = package_docs("test")
    docs = [d for group in sources.values() for d in group]
    assert len(docs) >= 500
    reader = screener([t for d in docs for t in (d.text, d.title or "")], learned=True)
    return {name: documents_report(group, reader) for name, group in sources.items()}, len(docs)


def _touched(reports: dict[str, dict[str, Any]]) -> int:
    return sum(r["with_a_sentence_withheld"] for r in reports.values())


@pytest.mark.xfail(strict=True, reason="measured on the test split: 1.5% of passages and one '#' line")
def test_the_default_screen_leaves_real_documents_alone(reports):
    by_source, passages = reports
    assert all(r["headings_withheld"] == 0 for r in by_source.values()), by_source
    assert _touched(by_source) <= SHARE * passages, by_source


def test_the_default_screen_takes_no_title_and_little_of_real_documents(reports):
    by_source, passages = reports
    assert sum(r["headings_withheld"] for r in by_source.values()) <= 1, by_source
    assert _touched(by_source) <= MEASURED * passages, by_source
    committed = [r for name, r in by_source.items() if name != "packages"]
    assert sum(r["with_a_sentence_withheld"] for r in committed) <= 0.03 * sum(r["passages"] for r in committed)
