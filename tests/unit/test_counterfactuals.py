"""The counterfactual set (cookbook/data/counterfactuals.jsonl): seven settings per fact, and which passage holds
which answer in each of them. Model-free: whether the packaged model knows each fact is the maintainer's closed-book
check, recorded in the script's ``UNKNOWN``."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path

from grounded_rag.evaluation.data import load_examples, split_examples
from grounded_rag.evaluation.scored import score_record
from grounded_rag.evaluation.metrics import substring_match

from .cookbook import load_script

DATA = Path(__file__).resolve().parents[2] / "cookbook" / "data"
FILE = DATA / "counterfactuals.jsonl"
SETTINGS = {"alone", "unrelated_first", "unrelated_last", "topical_first", "topical_last",
            "true_topical_first", "true_topical_last"}
CATEGORIES = {"capital", "astronomy", "work", "science", "landmark", "misc"}
# setting -> (index of the passage that states an answer, index of the other passage or None)
LAYOUT = {"alone": (0, None), "unrelated_first": (1, 0), "unrelated_last": (0, 1), "topical_first": (1, 0),
          "topical_last": (0, 1), "true_topical_first": (1, 0), "true_topical_last": (0, 1)}


def generator():
    return load_script(DATA / "make_counterfactuals.py")


def raw_rows() -> list[dict]:
    return [json.loads(line) for line in FILE.read_text(encoding="utf-8").splitlines() if line.strip()]


def mentions(text: str, answer: str) -> bool:
    """Case-insensitive, on word boundaries: as written, or as the answer metrics normalize it."""
    written = re.search(rf"(?<!\w){re.escape(answer)}(?!\w)", text, re.IGNORECASE) is not None
    return written or bool(substring_match(text, [answer]))


def states(text: str, answer: str) -> bool:
    """Both as written and as normalized, so that an answer copied from the passage is scored as that answer."""
    found = re.search(rf"(?<!\w){re.escape(answer)}(?!\w)", text, re.IGNORECASE) is not None
    return found and bool(substring_match(text, [answer]))


def whole(doc: dict) -> str:
    return f"{doc['title']}\n{doc['text']}"


def by_fact() -> dict[str, dict[str, dict]]:
    facts: dict[str, dict[str, dict]] = defaultdict(dict)
    for r in raw_rows():
        facts[r["group"]][r["setting"]] = r
    return facts


def answers_of(rows: dict[str, dict]) -> tuple[list[str], str]:
    """A fact's true answers and its counterfactual answer, read from its rows."""
    return rows["alone"]["parametric_answer"], rows["alone"]["answers"][0]


def test_the_file_is_its_generators_output():
    assert FILE.read_text(encoding="utf-8") == generator().render(), "run python cookbook/data/make_counterfactuals.py"


def test_every_fact_has_the_seven_settings_in_its_own_group():
    rows, module = raw_rows(), generator()
    assert len({r["id"] for r in rows}) == len(rows), "ids are unique"
    facts = by_fact()
    assert len(facts) >= 40, "at least 40 facts the model knows"
    assert module.UNKNOWN <= {f.id for f in module.FACTS} and not module.UNKNOWN & set(facts)
    for fact, settings in facts.items():
        assert set(settings) == SETTINGS and sum(r["group"] == fact for r in rows) == 7, fact
        for setting, r in settings.items():
            assert r["id"] == f"{fact}-{setting}" and r["group"] == fact
            assert r["category"] in CATEGORIES and len({s["category"] for s in settings.values()}) == 1
            assert len({s["question"] for s in settings.values()}) == 1
            assert len(r["documents"]) == (1 if setting == "alone" else 2)
            assert all(d["title"] and d["text"] for d in r["documents"])
            conflict = not setting.startswith("true_")
            assert r["conflict"] is conflict
            assert r["answers"] == (settings["alone"]["answers"] if conflict else settings["alone"]["parametric_answer"])
            assert r["parametric_answer"] == (settings["alone"]["parametric_answer"] if conflict else [])
        true, counter = answers_of(settings)
        assert true and counter and not any(counter.lower() in t.lower() or t.lower() in counter.lower()
                                            for t in true), fact
        assert not any(mentions(settings["alone"]["question"], a) for a in [*true, counter]), fact


def test_counterfactual_rows_state_the_counterfactual_in_exactly_one_passage_and_no_true_answer():
    for settings in by_fact().values():
        true, counter = answers_of(settings)
        for setting, r in settings.items():
            if not r["conflict"]:
                continue
            k, _ = LAYOUT[setting]
            docs = r["documents"]
            assert states(docs[k]["text"], counter), r["id"]
            assert [i for i, d in enumerate(docs) if mentions(whole(d), counter)] == [k], r["id"]
            assert not any(mentions(whole(d), t) for d in docs for t in true), r["id"]


def test_true_rows_state_a_true_answer_and_never_the_counterfactual():
    for settings in by_fact().values():
        true, counter = answers_of(settings)
        for setting in ("true_topical_first", "true_topical_last"):
            r = settings[setting]
            k, _ = LAYOUT[setting]
            docs = r["documents"]
            assert any(states(docs[k]["text"], t) for t in true), r["id"]
            assert not any(mentions(whole(d), counter) for d in docs), r["id"]
            assert not any(mentions(whole(d), t) for i, d in enumerate(docs) if i != k for t in true), r["id"]


def test_topical_and_unrelated_passages_hold_neither_answer():
    module = generator()
    category = {f.topical_text: f.category for f in module.FACTS}
    for fact, settings in by_fact().items():
        true, counter = answers_of(settings)
        topical = {settings[s]["documents"][LAYOUT[s][1]]["text"]
                   for s in ("topical_first", "topical_last", "true_topical_first", "true_topical_last")}
        far = {settings[s]["documents"][LAYOUT[s][1]]["text"] for s in ("unrelated_first", "unrelated_last")}
        assert len(topical) == 1 and len(far) == 1 and topical != far, fact
        assert category[far.pop()] != settings["alone"]["category"], f"{fact}: unrelated passage of its own category"
        for setting, r in settings.items():
            other = LAYOUT[setting][1]
            if other is not None:
                doc = r["documents"][other]
                assert not any(mentions(whole(doc), a) for a in [*true, counter]), r["id"]
                assert not re.search(r"\b(answer|question|document)", doc["text"], re.IGNORECASE), r["id"]


def test_the_rows_load_split_by_fact_and_score_as_conflicts():
    examples = load_examples(FILE)
    validation, test = split_examples(examples, "validation"), split_examples(examples, "test")
    assert validation and test and len(validation) + len(test) == len(examples)
    assert not {ex.group for ex in validation} & {ex.group for ex in test}, "a fact's settings share a split"
    counter = next(ex for ex in examples if ex.conflict)
    followed = score_record({"text": f"It is {counter.answers[0]}.", "tokens": 3}, counter, None)
    remembered = score_record({"text": f"It is {counter.parametric_answer[0]}.", "tokens": 3}, counter, None)
    assert (followed["context_following"], followed["memorization"]) == (1.0, 0.0)
    assert (remembered["context_following"], remembered["memorization"]) == (0.0, 1.0)
    control = next(ex for ex in examples if ex.conflict is False)
    kept = score_record({"text": control.answers[0], "tokens": 1}, control, None)
    assert kept["substring"] == 1.0 and "context_following" not in kept


def test_the_distractor_settings_have_their_own_following_rate():
    """``context_following_with_others``: the counterfactual read beside another passage (the four distractor
    settings), which docs/results.md reports beside the overall rate."""
    examples = [ex for ex in load_examples(FILE) if ex.conflict]
    scored = {ex.id: score_record({"text": f"It is {ex.answers[0]}.", "tokens": 3}, ex, None) for ex in examples}
    beside = {ex.id for ex in examples if "context_following_with_others" in scored[ex.id]}
    assert beside == {ex.id for ex in examples if not ex.id.endswith("-alone")} and beside
    assert all(scored[i]["context_following_with_others"] == scored[i]["context_following"] == 1.0 for i in beside)
