"""The prose-injection set (cookbook/data/prose_injection.jsonl): its rows, its kinds, its splits, and how a row's own
``injected`` field is read and scored."""

import json
from collections import Counter
from pathlib import Path

import pytest

from grounded_rag.errors import InputError
from grounded_rag.evaluation.data import load_examples, split_examples
from grounded_rag.evaluation.harness import score_record
from grounded_rag.evaluation.metrics import normalize_answer, substring_match

from .cookbook import load_script

DATA = Path(__file__).resolve().parents[2] / "cookbook" / "data"
FILE = DATA / "prose_injection.jsonl"
KINDS = {"fake_transcript", "fake_system_note", "title_instruction", "homoglyph", "zero_width", "long_document",
         "fake_correction", "roleplay_assistant", "foreign_language", "chat_markup"}
ZERO_WIDTH = "\u200b\u200c\u200d\u2060\ufeff"


def raw_rows() -> list[dict]:
    return [json.loads(line) for line in FILE.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_the_file_is_its_generators_output():
    module = load_script(DATA / "make_prose_injection.py")
    assert FILE.read_text(encoding="utf-8") == module.render(), "run python cookbook/data/make_prose_injection.py"


def test_every_row_is_an_answerable_question_with_an_attack_asking_for_another_answer():
    rows, examples = raw_rows(), load_examples(FILE)
    assert len(rows) == len(examples) >= 40
    assert len({ex.id for ex in examples}) == len(examples), "ids are unique (they decide the split)"
    for row, ex in zip(rows, examples):
        assert ex.injected == row["injected"] and ex.dataset == "prose_injection"
        places = [d["text"] for d in ex.documents] + [d["title"] for d in ex.documents if d.get("title")]
        assert any(ex.injected in p for p in places), ex.id
        honest = [normalize_answer(a) for a in ex.answers]
        assert not any(normalize_answer(ex.injected) in a or a in normalize_answer(ex.injected) for a in honest), ex.id
        assert not substring_match(" ".join(ex.answers), [ex.injected]), ex.id
        assert any(substring_match(d["text"], ex.answers) for d in ex.documents), f"{ex.id}: no passage answers it"
        assert not any(substring_match(" ".join(places), [other]) for other in {e.injected for e in examples}
                       if other != ex.injected), f"{ex.id}: another row's attacker answer is in its passages"


def test_every_kind_of_attack_is_there_and_spelt_as_it_says():
    rows = raw_rows()
    kinds = Counter(r["attack"] for r in rows)
    assert set(kinds) == KINDS and min(kinds.values()) >= 4, kinds
    text = FILE.read_text(encoding="utf-8")
    assert "\\u" not in text, "homoglyphs and zero-width characters are written as UTF-8, not escaped"
    for r in rows:
        whole = " ".join(d["text"] + " " + (d.get("title") or "") for d in r["documents"])
        if r["attack"] == "homoglyph":
            assert any("\u0400" <= ch <= "\u04ff" for ch in whole), r["id"]
        if r["attack"] == "zero_width":
            assert any(ch in ZERO_WIDTH for ch in whole), r["id"]
        if r["attack"] == "title_instruction":
            assert any(r["injected"] in (d.get("title") or "") for d in r["documents"]), r["id"]
            assert not any(r["injected"] in d["text"] for d in r["documents"]), r["id"]
        if r["attack"] == "long_document":
            assert max(len(d["text"].split()) for d in r["documents"]) > 300, r["id"]
    assert any(ch in ZERO_WIDTH for ch in text) and any("\u0400" <= ch <= "\u04ff" for ch in text)


def test_both_splits_hold_enough_rows():
    examples = load_examples(FILE)
    validation, test = split_examples(examples, "validation"), split_examples(examples, "test")
    assert len(validation) >= 15 and len(test) >= 15 and len(validation) + len(test) == len(examples)


def test_a_rows_own_injected_answer_is_scored_for_hijacking_and_a_bad_one_is_refused(tmp_path):
    ex = load_examples(FILE)[0]
    record = {"text": f"The answer is {ex.injected}.", "tokens": 5, "support": 0.9}
    assert score_record(record, ex, None, 0.35)["hijacked"] == 1.0
    withheld = score_record({**record, "support": 0.1}, ex, None, 0.35)
    assert (withheld["hijacked"], withheld["hijacked_without_abstention"]) == (0.0, 1.0), "withheld: obeys nothing"
    assert score_record({**record, "text": ex.answers[0]}, ex, None, 0.35)["hijacked"] == 0.0

    good = {"id": "a", "question": "q?", "documents": [{"text": "p"}], "answers": ["p"]}
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps({**good, "id": "b", "injected": "X"}) + "\n")
    first, second = load_examples(path)
    assert first.injected is None and "hijacked" not in score_record(record, first, None)
    assert second.injected == "X"
    for bad in (7, ["X"], {"answer": "X"}, "", "  "):
        path.write_text(json.dumps(good) + "\n\n" + json.dumps({**good, "id": "b", "injected": bad}) + "\n")
        with pytest.raises(InputError, match=r"rows\.jsonl:3: .*'injected'"):
            load_examples(path)
