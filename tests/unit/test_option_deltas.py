"""What an option or an ablation changes: ``grounded-rag eval`` reads every ``METHOD+option`` against ``METHOD``, and
every research ablation against the menu method it varies, where the run has both (paired Δs in report.json's
``diffs_vs`` and a table in the markdown), beside the Δs against standard and CAD."""

from grounded_rag.evaluation.bootstrap import paired_difference_ci, resample_indices
from grounded_rag.evaluation.harness import _paired_deltas
from grounded_rag.evaluation.report import to_markdown


def test_an_option_is_read_against_its_method_without_it():
    values = {"standard": {"substring": [0.0, 0.0, 1.0, 0.0], "em": [0.0, 0.0, 0.0, 0.0]},
              "cad": {"substring": [1.0, 0.0, 1.0, 0.0], "em": [0.0, 0.0, 1.0, 0.0]},
              "cad+extractive": {"substring": [1.0, 1.0, 1.0, 0.0], "em": [1.0, 1.0, 1.0, 0.0]},
              "cad+extractive+screened": {"substring": [1.0, 1.0, 0.0, 0.0], "em": [1.0, 0.0, 0.0, 0.0]},
              "grounded+screened": {"substring": [1.0, 1.0, 1.0, 1.0], "em": [1.0, 1.0, 1.0, 1.0]}}
    per_method = {spec: {} for spec in values}
    _paired_deltas(per_method, values, "substring", lambda n: resample_indices(n, 200))
    assert per_method["cad+extractive"]["diffs_vs"].keys() == {"standard", "cad"}
    assert per_method["cad+extractive+screened"]["diffs_vs"].keys() == {"standard", "cad", "cad+extractive"}
    assert per_method["grounded+screened"]["diffs_vs"].keys() == {"standard", "cad"}, "no grounded in the run"
    got = per_method["cad+extractive+screened"]["diffs_vs"]["cad+extractive"]["em"]
    assert got == paired_difference_ci(values["cad+extractive+screened"]["em"], values["cad+extractive"]["em"],
                                       resample_indices(4, 200))
    methods = {spec: {"params": {}, "avg_tokens": None, **per_method[spec],
                      "metrics": {k: (sum(v) / 4, 0.0, 1.0) for k, v in values[spec].items()}} for spec in values}
    report = {"model": "m", "split": "test",
              "datasets": {"d": {"n_test": 4, "n_validation": 0, "main_metric": "substring", "methods": methods}}}
    md = to_markdown(report)
    assert "| method | against | Δ substring | Δ em |" in md
    assert "| cad+extractive+screened | cad+extractive | " in md and "| grounded+screened | grounded |" not in md


def test_a_research_ablation_is_read_against_the_menu_method_it_varies_with_the_same_options():
    from grounded_rag.evaluation.protocol import counterparts  # registers the ablations it reads

    assert counterparts("pmi_words_memory_extract") == ["grounded_contrast"]
    assert counterparts("pmi_words_echo+screened") == ["pmi_words_echo", "grounded_contrast+screened"]
    assert counterparts("static") == ["grounded"], "the paper's method, one part off"
    assert counterparts("cad+extractive") == ["cad"] and counterparts("cad") == []
    values = {"grounded_contrast+screened": {"substring": [0.0, 1.0, 0.0, 0.0]},
              "pmi_words_echo+screened": {"substring": [1.0, 1.0, 0.0, 0.0]}}
    per_method = {spec: {} for spec in values}
    _paired_deltas(per_method, values, "substring", lambda n: resample_indices(n, 200))
    assert per_method["pmi_words_echo+screened"]["diffs_vs"].keys() == {"grounded_contrast+screened"}
    methods = {spec: {"params": {}, "avg_tokens": None, **per_method[spec],
                      "metrics": {k: (sum(v) / 4, 0.0, 1.0) for k, v in values[spec].items()}} for spec in values}
    report = {"model": "m", "split": "test",
              "datasets": {"d": {"n_test": 4, "n_validation": 0, "main_metric": "substring", "methods": methods}}}
    assert "| pmi_words_echo+screened | grounded_contrast+screened | " in to_markdown(report)
