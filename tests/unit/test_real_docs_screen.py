"""The default screen (the rules, then the learned classifier, as shipped) on real documents people ingest, chunked
as ``grounded-rag ingest`` chunks them. The target: it never withholds a heading or a title, and it touches at most
0.5% of passages, on pages nobody tuned it on: the second held-out set (cookbook/data/real_docs/SOURCE.md: Artsy's
handbook, the Open Source Guides, the Ministry of Justice's Cloud Platform runbooks, Helm's docs), measured once
after the third round was chosen on the pages before it (the validation and test halves, the first held-out set and
PostHog's pages in cookbook/data/real_handbook, and the installed packages' descriptions), which the rules alone must
keep leaving alone. Measured once, the default touches 4 of the 618 passages (0.65%; the screen before the third
round, the same 4) and no heading: the share is an expected failure, and a bound that holds guards against sliding
further (docs/security.md says what it misreads)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from grounded_rag.evaluation.screening_report import documents_report, package_docs, read_documents, screener

DATA = Path(__file__).parents[2] / "cookbook" / "data"
HELD_OUT = sorted(p for p in (DATA / "real_docs" / "heldout2").iterdir() if p.is_dir())
TUNED = [*(p for half in ("validation", "test", "heldout") for p in sorted((DATA / "real_docs" / half).iterdir())
           if p.is_dir()), DATA / "real_handbook"]
SHARE = 0.005  # of passages with a sentence withheld, at most: the target
MEASURED = 0.01  # the bound that holds (0.65% measured once on the second held-out set), against sliding back


@pytest.fixture(scope="module")
def held_out() -> tuple[dict[str, dict[str, Any]], int]:
    """Each held-out source's report, its sentences judged by the classifier in one pass."""
    sources = {path.name: read_documents(str(path)) for path in HELD_OUT}
    docs = [d for group in sources.values() for d in group]
    assert len(sources) >= 4 and len(docs) >= 600
    reader = screener([t for d in docs for t in (d.text, d.title or "")], learned=True)
    return {name: documents_report(group, reader) for name, group in sources.items()}, len(docs)


def _touched(reports: dict[str, dict[str, Any]]) -> int:
    return sum(r["with_a_sentence_withheld"] for r in reports.values())


def test_the_default_screen_takes_no_heading_of_unseen_documents(held_out):
    by_source, _ = held_out
    assert all(r["headings_withheld"] == 0 for r in by_source.values()), by_source


@pytest.mark.xfail(strict=True, reason="measured once on the second held-out set: 4 of 618 passages (0.65%)")
def test_the_default_screen_leaves_unseen_documents_alone(held_out):
    by_source, passages = held_out
    assert _touched(by_source) <= SHARE * passages, by_source


def test_the_default_screen_takes_little_of_unseen_documents(held_out):
    by_source, passages = held_out
    assert _touched(by_source) <= MEASURED * passages, by_source


def test_the_rules_leave_the_pages_they_were_tuned_on_alone():
    """No model: the pages and READMEs every setting was chosen on lose no sentence to the rules (a few at most, as
    the installed packages vary), and no heading."""
    sources = {path.name: read_documents(str(path)) for path in TUNED}
    sources["packages"] = package_docs("all")
    reports = {name: documents_report(group) for name, group in sources.items()}
    assert all(r["headings_withheld"] == 0 for r in reports.values()), reports
    assert _touched(reports) <= 0.002 * sum(map(len, sources.values())), reports
