"""Distractor passages for the evaluation: deterministic, from other questions only, at varied positions."""

from pathlib import Path

from grounded_rag.evaluation.data import add_distractors, load_examples

DATA = Path(__file__).parent.parent / "fixtures" / "nq_swap_6.jsonl"


def test_distractors_come_from_other_questions_at_seeded_positions():
    rows = load_examples(DATA)
    with_d = add_distractors(rows, rows, 2, seed=0)
    assert add_distractors(rows, rows, 2, seed=0) == with_d, "seeded: the same distractors on every run"
    assert add_distractors(rows[::-1], rows, 2, seed=0) == with_d[::-1], "per example, whatever the order"
    assert add_distractors(rows, rows, 0) == rows
    positions = set()
    for ex, new in zip(rows, with_d):
        assert len(new.documents) == len(ex.documents) + 2 and new.answers == ex.answers
        own = {d["text"] for d in ex.documents}
        same_question = {d["text"] for r in rows if r.question == ex.question for d in r.documents}
        added = [k for k, d in enumerate(new.documents) if d["text"] not in own]
        assert len(added) == 2 and not any(new.documents[k]["text"] in same_question for k in added)
        assert [d for d in new.documents if d["text"] in own] == ex.documents, "the row's own passages keep their order"
        positions.update(added)
    assert len(positions) > 1, "distractors land at different positions"
    assert add_distractors(rows, rows, 2, seed=1) != with_d
