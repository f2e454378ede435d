"""The attribution figures of ``grounded-rag bench``: present, and ratios to the answer's own decoding. Times are not
asserted (the machine is shared and noisy); the report's shape is. The whole bench is too slow for the suite."""

from __future__ import annotations

from grounded_rag.bench import _attribution_figures, bench_documents, first_answer_figures


def test_bench_reports_attribution_as_a_ratio_to_answering(decoder):
    report = _attribution_figures(decoder, bench_documents()[:2], new_tokens=4, rounds=1)
    assert report["answer_ms"] > 0 and 1 <= report["answer_tokens"] <= 4
    for key in ("attribution_over_answer", "attribution_over_answer_one_passage"):
        assert isinstance(report[key], float) and report[key] == report[key], key  # a number, not NaN
    assert abs(report["attribution_ms"] - report["attribution_over_answer"] * report["answer_ms"]) <= \
        0.001 * report["answer_ms"] + 0.1


def test_bench_times_a_whole_ask_process_next_to_the_same_answer_in_process():
    report = first_answer_figures(None, bench_documents()[:2])
    assert set(report) == {"ask_process_s", "model_load_s", "generate_first_s", "generate_warm_s",
                           "ask_over_load_plus_generate", "ask_served_s", "ask_served_over_load_plus_generate"}
    assert all(v > 0 for v in report.values()), report
    base = report["model_load_s"] + report["generate_warm_s"]
    for process, ratio in (("ask_process_s", "ask_over_load_plus_generate"),
                           ("ask_served_s", "ask_served_over_load_plus_generate")):
        expected = report[process] / base
        assert abs(report[ratio] - expected) < 0.05 * expected + 0.02, report  # from unrounded times
