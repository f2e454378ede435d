"""The default screen (the rules, then the learned classifier, as shipped) on real documents people ingest: the
committed test pages (cookbook/data/real_docs/SOURCE.md) and the installed packages' descriptions of the test split,
chunked as ``grounded-rag ingest`` chunks them. It never withholds a heading or a title, and it touches at most
0.5% of passages. Settings were chosen on the validation pages only."""

from __future__ import annotations

from pathlib import Path

from grounded_rag.evaluation.screening_report import documents_report, package_docs, read_documents, screener

TEST = Path(__file__).parents[2] / "cookbook" / "data" / "real_docs" / "test"
SHARE = 0.005  # of passages with a sentence withheld, at most


def test_the_default_screen_leaves_real_documents_alone():
    sources = {sub.name: read_documents(str(sub)) for sub in sorted(TEST.iterdir()) if sub.is_dir()}
    assert len(sources) >= 3 and sum(map(len, sources.values())) >= 250  # the committed pages
    sources["packages"] = package_docs("test")
    docs = [d for group in sources.values() for d in group]
    assert len(docs) >= 500
    reader = screener([t for d in docs for t in (d.text, d.title or "")], learned=True)
    reports = {name: documents_report(group, reader) for name, group in sources.items()}
    assert all(r["headings_withheld"] == 0 for r in reports.values()), reports
    touched = sum(r["with_a_sentence_withheld"] for r in reports.values())
    assert touched <= SHARE * len(docs), reports
