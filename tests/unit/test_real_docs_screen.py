"""The default screen (the rules; the learned classifier is opt-in) on real documents people ingest, chunked as
``grounded-rag ingest`` chunks them. The target: it never withholds a heading or a title, and it touches at most 0.5%
of passages, on pages nobody tuned it on: the third held-out set (cookbook/data/real_docs/SOURCE.md: GOV.UK's
developer manual, thoughtbot's guides, Kubernetes' contributor guide, Netflix Dispatch's docs), written after the
fourth round was chosen on the pages before it (the validation and test halves, the first and second held-out sets,
PostHog's pages in cookbook/data/real_handbook, and the installed packages' descriptions), which the rules must keep
leaving alone. Measured once, the rules touched 3 of its 631 passages (0.48%), one of them by a heading ("### System",
read as a prompt template's): a role heading alone is a section's name now, so the set is no longer unseen for that
(2 of 631). The classifier, then on by default, touched 12 (docs/security.md), which made it opt-in."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from grounded_rag.evaluation.screening_report import documents_report, package_docs, read_documents

DATA = Path(__file__).parents[2] / "cookbook" / "data"
HELD_OUT = sorted(p for p in (DATA / "real_docs" / "heldout3").iterdir() if p.is_dir())
TUNED = [*(p for half in ("validation", "test", "heldout", "heldout2")
           for p in sorted((DATA / "real_docs" / half).iterdir()) if p.is_dir()), DATA / "real_handbook"]
SHARE = 0.005  # of passages with a sentence withheld, at most: the target


@pytest.fixture(scope="module")
def held_out() -> tuple[dict[str, dict[str, Any]], int]:
    """Each held-out source's report, screened as the package screens by default."""
    sources = {path.name: read_documents(str(path)) for path in HELD_OUT}
    docs = [d for group in sources.values() for d in group]
    assert len(sources) >= 4 and len(docs) >= 600
    return {name: documents_report(group) for name, group in sources.items()}, len(docs)


def _touched(reports: dict[str, dict[str, Any]]) -> int:
    return sum(r["with_a_sentence_withheld"] for r in reports.values())


def test_the_default_screen_takes_no_heading_of_unseen_documents(held_out):
    by_source, _ = held_out
    assert all(r["headings_withheld"] == 0 for r in by_source.values()), by_source


def test_the_default_screen_leaves_unseen_documents_alone(held_out):
    by_source, passages = held_out
    assert _touched(by_source) <= SHARE * passages, by_source


def test_the_rules_leave_the_pages_they_were_tuned_on_alone():
    """No model: the pages and READMEs every setting was chosen on lose no sentence to the rules (a few at most, as
    the installed packages vary), and no heading."""
    sources = {path.name: read_documents(str(path)) for path in TUNED}
    sources["packages"] = package_docs("all")
    reports = {name: documents_report(group) for name, group in sources.items()}
    assert all(r["headings_withheld"] == 0 for r in reports.values()), reports
    assert _touched(reports) <= 0.002 * sum(map(len, sources.values())), reports
