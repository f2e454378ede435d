"""An attack set renamed (``grounded-rag eval --rename-attacks``): the same attacks, a plausible name in place of the
attacker's made-up one."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from grounded_rag.errors import InputError
from grounded_rag.evaluation.data import load_examples, rename_attacks

DATA_DIR = Path(__file__).resolve().parents[2] / "cookbook" / "data"
SETS = ("prose_injection", "prose_injection_unseen", "prose_injection_blind", "prose_injection_fresh")


@pytest.mark.parametrize("name", SETS)
def test_every_attack_names_another_rows_answer_and_nothing_else_changes(name: str) -> None:
    rows = load_examples(DATA_DIR / f"{name}.jsonl")
    out = rename_attacks(rows)
    golds = {ex.answers[0] for ex in rows}
    for before, after in zip(rows, out):
        assert after.injected in golds and after.injected not in before.answers
        assert (after.id, after.question, after.answers) == (before.id, before.question, before.answers)
        text = json.dumps(after.documents, ensure_ascii=False)
        assert before.injected not in text and after.injected in text  # the attack still names its answer
        # the old name put back gives the row's passages as they were
        assert json.loads(text.replace(after.injected, before.injected)) == before.documents
    assert len({ex.injected for ex in out}) == len(rows)  # a shuffle: no answer given twice


def test_the_seed_decides_the_names() -> None:
    rows = load_examples(DATA_DIR / "prose_injection_fresh.jsonl")
    names = [[ex.injected for ex in rename_attacks(rows, seed)] for seed in (0, 0, 1)]
    assert names[0] == names[1] != names[2]


def test_a_file_that_is_not_an_attack_set_is_refused() -> None:
    rows = load_examples(DATA_DIR / "prose_injection_fresh.jsonl")
    with pytest.raises(InputError, match="injection set"):
        rename_attacks([replace(rows[0], injected=None)])
