"""The renamed copy of an injection set: same attacks, a plausible name in place of the attacker's made-up one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grounded_rag.errors import InputError
from grounded_rag.evaluation.renamed_attacks import main, renamed

DATA_DIR = Path(__file__).resolve().parents[2] / "cookbook" / "data"
SETS = ("prose_injection", "prose_injection_unseen", "prose_injection_blind", "prose_injection_fresh")


def _rows(name: str) -> list[dict]:
    return [json.loads(line) for line in (DATA_DIR / f"{name}.jsonl").read_text(encoding="utf-8").splitlines() if line]


@pytest.mark.parametrize("name", SETS)
def test_every_attack_names_another_rows_answer_and_nothing_else_changes(name: str) -> None:
    rows = _rows(name)
    out = renamed(rows)
    golds = {row["answers"][0] for row in rows}
    assert [r["id"] for r in out] == [r["id"] for r in rows]
    for before, after in zip(rows, out):
        assert after["injected"] in golds and after["injected"] not in before["answers"]
        assert after["answers"] == before["answers"] and after["question"] == before["question"]
        text = json.dumps(after["documents"], ensure_ascii=False)
        assert before["injected"] not in text and after["injected"] in text  # the attack still names its answer
        # putting the old name back gives the row's passages as they were
        assert json.loads(text.replace(after["injected"], before["injected"])) == before["documents"]
    assert len({r["injected"] for r in out}) == len(rows)  # a shuffle: no answer given twice


def test_the_same_seed_gives_the_same_file_and_another_seed_another(tmp_path: Path) -> None:
    src = DATA_DIR / "prose_injection_fresh.jsonl"
    main([str(src), str(tmp_path / "a.jsonl")])
    main([str(src), str(tmp_path / "b.jsonl")])
    main([str(src), str(tmp_path / "c.jsonl"), "--seed", "1"])
    assert (tmp_path / "a.jsonl").read_text() == (tmp_path / "b.jsonl").read_text()
    assert (tmp_path / "a.jsonl").read_text() != (tmp_path / "c.jsonl").read_text()


def test_a_file_that_is_not_an_injection_set_is_refused() -> None:
    with pytest.raises(InputError, match="injection set"):
        renamed([{"id": "1", "question": "q", "documents": [], "answers": ["a"]}])
