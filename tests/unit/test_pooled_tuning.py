"""``grounded-rag eval --pool`` without a model: the ``FILE+Kdistractors`` entries, the refusals made before anything
loads, and the margins table read off a report."""

from pathlib import Path

import pytest

from grounded_rag.cli import main
from grounded_rag.evaluation.harness import data_variant
from grounded_rag.evaluation.report import to_markdown
from grounded_rag.evaluation.tuning import margins

DATA = Path(__file__).parent.parent / "fixtures" / "nq_swap_6.jsonl"


def test_a_data_entry_names_its_distractors_and_a_real_file_is_never_read_as_one(tmp_path):
    assert data_variant(f"{DATA}+2distractors", 0) == (str(DATA), 2)
    assert data_variant(str(DATA), 3) == (str(DATA), 3), "no suffix: --distractors"
    odd = tmp_path / "rows.jsonl+2distractors"  # a file whose own name ends so is that file
    odd.write_text("")
    assert data_variant(str(odd), 0) == (str(odd), 0)


def test_pool_refusals_come_before_anything_loads(capsys):
    base = ["eval", "--data", str(DATA), "--data", f"{DATA}+2distractors", "--methods", "standard,cad", "--dry-run"]
    assert main([*base, "--pool"]) == 0
    assert "each setting chosen once on every file's validation rows pooled" in capsys.readouterr().out
    assert main([*base, "--pool", "--no-tune"]) == 2
    assert "--pool chooses every method's setting on the pooled validation rows; drop --no-tune" in capsys.readouterr().err
    assert main([*base, "--data", str(DATA)]) == 2
    assert "--data names a file twice" in capsys.readouterr().err
    assert main([*base, "--trusted"]) == 2, "a +Kdistractors entry is retrieved text, as --distractors is"
    assert main(["eval", "--data", f"{DATA}+xdistractors", "--dry-run"]) == 2
    assert "FILE+Kdistractors" in capsys.readouterr().err


def test_margins_read_validation_and_test_at_the_pooled_settings():
    table = lambda a, b: [{"params": {"beta": 1.0}, "per_set": {"a": a, "b": b}, "mean": (a + b) / 2}]
    pooled = {"standard": {"params": {}, "table": [{"params": {}, "per_set": {"a": 0.2, "b": 0.5}, "mean": 0.35}]},
              "cad": {"params": {"beta": 1.0}, "table": table(0.4, 0.5)}}
    method = lambda delta: {"params": {}, "avg_tokens": None, "metrics": {"substring": (0.5, 0.4, 0.6)},
                            "diffs_vs": {"standard": {"substring": delta}, "cad": {"substring": (-delta[0], 0, 0)}}}
    report = {"model": "m", "split": "test", "datasets": {
        name: {"n_test": 4, "n_validation": 2, "pooled": True, "main_metric": "substring",
               "methods": {"standard": method((0.0, 0.0, 0.0)), "cad": method(delta)}}
        for name, delta in (("a", (0.1, -0.1, 0.3)), ("b", (-0.05, -0.2, 0.1)))}}
    out = margins(report, pooled, ("standard", "cad"))
    assert set(out) == {"cad vs standard", "standard vs cad"}
    assert margins(report, pooled, ("standard",)).keys() == {"cad vs standard"}, "only the references asked for"
    a, b = out["cad vs standard"]["a"], out["cad vs standard"]["b"]
    assert a["validation"] == pytest.approx(0.2) and a["test"] == (0.1, -0.1, 0.3) and a["kept"] == pytest.approx(0.5)
    assert b["validation"] == 0.0 and b["kept"] is None, "no margin on validation: no share of it"
    report["pooled"] = {"settings": pooled, "margins": out}
    md = to_markdown(report)
    assert "settings chosen on every file's validation rows pooled, 2 of them this file's" in md
    assert "| cad | **beta=1.0** | 40.0 | 50.0 | 45.0 |" in md
    assert "| cad vs standard | a | +20.0 | 10.0 [-10.0, 30.0] | 0.50 |" in md
