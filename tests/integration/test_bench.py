"""The attribution figures of ``grounded-rag bench``: present, and ratios to the answer's own decoding. Times are not
asserted (the machine is shared and noisy); the report's shape is. The whole bench is too slow for the suite."""

from __future__ import annotations

from grounded_rag.bench import _attribution_figures, bench_documents


def test_bench_reports_attribution_as_a_ratio_to_answering(decoder):
    report = _attribution_figures(decoder, bench_documents()[:2], new_tokens=4, rounds=1)
    assert report["answer_ms"] > 0 and 1 <= report["answer_tokens"] <= 4
    for key in ("attribution_over_answer", "attribution_over_answer_one_passage"):
        assert isinstance(report[key], float) and report[key] == report[key], key  # a number, not NaN
    assert abs(report["attribution_ms"] - report["attribution_over_answer"] * report["answer_ms"]) <= \
        0.001 * report["answer_ms"] + 0.1
