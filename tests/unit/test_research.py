"""The research scripts of ``cookbook/research`` (not the package), model-free: the quote table that chose
``quote_threshold`` and the instruction probe's passages and report."""

from __future__ import annotations

import json

import numpy as np

from grounded_rag.evaluation.metrics import auc
from grounded_rag.evaluation.protocol import PROTOCOL

from .cookbook import DATA_DIR, research


def test_the_quote_table_replaces_only_withheld_answers_with_quotes_that_reach_the_threshold(tmp_path):
    rows = {"a": {"question": "Who painted it?", "answers": ["Gauguin"]},
            "b": {"question": "Which planet is red?", "answers": ["Venus"]}}
    free, quote = '{"pmi_gate": 1.0}', '{"extractive": true, "pmi_gate": 1.0}'
    records = [("s", "a", free, "van Gogh", 0.1), ("s", "a", quote, "an oil painting by Paul Gauguin", 0.85),
               ("s", "b", free, "Venus", 0.9), ("s", "b", quote, "Venus", 0.99),
               ("s+unanswerable", "b", free, "Mars", 0.2), ("s+unanswerable", "b", quote, "planet is red", 0.95)]
    path = tmp_path / "generations.jsonl"
    path.write_text("\n".join(json.dumps({"key": f"{PROTOCOL}|gen|{ds}|grounded_contrast|{params}|{i}", "id": i,
                                          "text": text, "support": support})
                              for ds, i, params, text, support in records))
    table = {(line["set"], line["quote_threshold"]): (line["right"], line["shown"])
             for line in research("quote_table").quote_table(rows, path, "grounded_contrast")}
    assert table[("s", None)] == (1, 1), "no quote: the withheld answer stays withheld"
    assert table[("s", 0.8)] == (2, 2) and table[("s", 0.9)] == (1, 1)
    assert table[("s+unanswerable", 0.8)] == (0, 0), "a quote that only restates the question is not shown"


def test_instruction_probe_splits_attack_passages_and_scores_them():
    """The probe's attack passages are those spelling the attacker's answer; the report's AUC and flagged counts."""
    probe = research("instruction_probe")
    attacks, clean = probe.passages(DATA_DIR, None)
    assert len(attacks) > 150 and {name for name, _ in attacks} == set(probe.ATTACK_SETS)
    assert {name for name, _ in clean} == set(probe.ATTACK_SETS) | {"counterfactuals"}
    assert auc([2.0, 3.0], [1.0, 2.0]) == 0.875
    result = probe.report([("prose_injection", 18.5), ("prose_injection_fresh", 0.0)],
                          [("counterfactuals", float(i)) for i in range(20)])  # one clean passage in 20 above the cut
    assert result["flagged_at_5pct_clean"]["prose_injection"] == "1/1"
    assert result["flagged_at_5pct_clean"]["prose_injection_fresh"] == "0/1" and result["auc"] == round(19.5 / 40, 3)


def test_the_answerability_probe_tells_a_signal_bound_to_articles_from_one_that_carries_to_new_articles():
    """A state that marks answerable rows only through their article's own direction reads well with rows held
    out and at chance with whole articles held out; a direction shared by every article reads well both ways."""
    probe = research("answerability_probe")
    rng = np.random.default_rng(0)

    def rows(articles: list[str], shared: bool) -> dict[str, np.ndarray]:
        n, dim = 60 * len(articles), 16
        article = np.repeat(articles, 60)
        answerable = np.tile([True, False], n // 2)
        states = rng.normal(size=(n, 1, dim))
        for i, name in enumerate(article):
            axis = 0 if shared else sum(map(ord, name)) % dim  # each article its own axis, or one for all
            states[i, 0, axis] += 3.0 if answerable[i] else -3.0
        return {"states": states, "answerable": answerable, "article": article}

    bound = probe.layer_aurocs(rows(["a", "b", "c", "d"], False), rows(["e", "f"], False))[0]
    assert bound["rows_held_out"] > 0.9 and bound["articles_held_out"] < 0.7 and bound["test"] < 0.75
    shared = probe.layer_aurocs(rows(["a", "b", "c", "d"], True), rows(["e", "f"], True))[0]
    assert shared["articles_held_out"] > 0.9 and shared["test_low"] > 0.9 and shared["layer"] == probe.EVERY


def test_the_answerability_signal_table_multiplies_support_by_the_probe_and_cuts_at_a_tenth_of_right_answers():
    probe = research("answerability_probe")
    kind = np.array(["right"] * 10 + ["wrong"] * 10 + ["unanswerable"] * 10)
    support = np.array([0.9] * 10 + [0.9] * 10 + [0.9] * 10)  # support alone tells nothing apart
    scores = np.array([0.8] * 10 + [0.8] * 10 + [0.2] * 10)  # the probe tells answerable rows from the rest
    table = {r["power"]: r for r in probe.signal_table(scores, support, kind)}
    assert table[0.0]["right_unanswerable"] == 0.5 and table[0.0]["withheld"] == 0.0
    assert table[1.0]["right_unanswerable"] == 1.0 and table[1.0]["withheld"] == 1.0
    assert table[None]["right_wrong"] == 0.5 and list(table) == [*probe.POWERS, None]


def test_backend_agreement_matches_rows_by_method_and_id_and_normalises_answers(tmp_path):
    def run(name, answers):
        path = tmp_path / f"{name}.jsonl"
        path.write_text("\n".join(json.dumps({"key": f"{PROTOCOL}|gen|d|{m}|{{}}|{i}", "id": i, "text": t})
                                  for (m, i), t in answers.items()) + "\n" + json.dumps(
            {"key": f"{PROTOCOL}|loglik|d|standard|{{}}|x", "id": "x", "text": "not an answer"}))
        return research("backend_agreement").answers_by_method(path)

    torch_run = run("a", {("standard", "1"): "Paris.", ("standard", "2"): "Rome", ("standard", "3"): "Oslo",
                          ("cad", "1"): "Paris"})
    llama_run = run("b", {("standard", "1"): "paris", ("standard", "2"): "Milan", ("standard", "4"): "Bern"})
    gold = {"1": ["Paris"], "2": ["Rome"], "3": ["Oslo"], "4": ["Bern"]}
    [row] = research("backend_agreement").agreement(torch_run, llama_run, gold)
    assert torch_run["standard"].keys() == {"1", "2", "3"}  # the log-likelihood record is no answer
    assert (row["method"], row["rows"]) == ("standard", 2)  # rows both decoded; cad only in one run
    assert row["same"][0] == 0.5 and (row["substring_a"], row["substring_b"]) == (1.0, 0.5)
    assert row["difference"][0] == 0.5


def test_llama_step_cost_times_each_call_after_one_unmeasured_and_undoes_every_call():
    calls, undone = [], []
    ms = research("llama_step_cost").median_ms(lambda: calls.append(len(calls)), lambda: undone.append(len(calls)))
    repeats = research("llama_step_cost").REPEATS
    assert isinstance(ms, float)
    assert len(calls) == repeats + 1, "one warm call, then the measured ones"
    assert undone == list(range(1, repeats + 2)), "each call's cells are removed before the next"


def test_backend_answer_time_asks_validation_questions_only():
    """The whole-answer timing reads the real handbook's validation questions: the test half stays unseen."""
    script = research("backend_answer_time")
    rows = [json.loads(line) for line in script.QUESTIONS.read_text(encoding="utf-8").splitlines() if line]
    asked = script.validation_questions(6)
    assert len(asked) == 6 and len(script.validation_questions(1000)) == sum(r["split"] == "validation" for r in rows)
    assert not set(asked) & {r["question"] for r in rows if r["split"] == "test"}


def test_busy_machine_reports_a_process_past_its_timeout_and_ends_the_busy_ones(monkeypatch):
    """A spinning answer can take many minutes beside a busy process: the study records that as past its timeout
    (null), and the busy processes it started end with the run (``timed`` waits for each after killing it)."""
    monkeypatch.setenv("OMP_WAIT_POLICY", "ACTIVE")
    monkeypatch.setenv("GOMP_SPINCOUNT", "INFINITY")
    script = research("busy_machine")
    for policy in ("spin", "short spin"):  # each gets the wait its import order gives
        assert not set(script.WAITS) & set(script.child_env(policy))
    assert script.child_env("passive")["OMP_WAIT_POLICY"] == "PASSIVE" and "GOMP_SPINCOUNT" not in script.child_env("passive")
    assert script.timed("passive", "torch", 1, busy=2, timeout=0.5) == {"median_s": None, "over_s": 0.5}


def test_title_format_writes_each_variants_head_and_reads_validation_questions_only():
    """The title study's variants differ only in how a passage's head is written (the package's own is "current"),
    and it asks validation questions alone: the real handbook's test half and the made-up handbook's test file stay
    unseen."""
    from grounded_rag.prompts import format_documents
    from grounded_rag.types import Document

    script = research("title_format")
    docs = [Document(text="Staff use Tunnelstone. ", title="IT"), Document(text="Laptops last three years.")]
    assert script.formatter("current")(docs, [2, 5]) == format_documents(docs, [2, 5])
    assert script.formatter("none")(docs) == "Doc 1: Staff use Tunnelstone.\nDoc 2: Laptops last three years."
    assert script.formatter("line")(docs).startswith("Doc 1: IT\nStaff use Tunnelstone.\nDoc 2: Laptops")
    real, made_up = (script.questions(q, split_only=name == "real") for name, (_, q) in script.SETS.items())
    assert real and all(r["split"] == "validation" for r in real)
    assert "handbook_validation" in str(script.SETS["made_up"][1]) and made_up
