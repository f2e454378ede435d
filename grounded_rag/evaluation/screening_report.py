"""What screening (grounded_rag.screening) withholds on a data file, without a model.

``python -m grounded_rag.evaluation.screening_report FILE...``: for a file of attacks (rows with ``injected``), how
many rows have every trace of the attacker's answer withheld, by kind, and how many lost their gold answer with it;
for any other file, how many passages (texts and titles) and rows lose a sentence, by rule: the cost on clean text.
``--learned`` screens as the decoder does with ``screen_classifier``: the rules, then the learned classifier
(grounded_rag.learned_screen, which loads the packaged MiniLM); without it, by the rules alone (the default).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from pathlib import Path
from typing import Any

from ..screening import screen, sentence_texts
from ..types import Document

Screen = Callable[[str], tuple[str, list[Any]]]


def _fields(row: dict[str, Any]) -> list[str]:
    return [d[key] for d in row["documents"] for key in ("text", "title") if isinstance(d.get(key), str) and d[key]]


def screener(rows: Sequence[dict[str, Any]], learned: bool) -> Screen:
    """:func:`screen` by the rules, and with ``learned`` the classifier's flags over every sentence of ``rows``."""
    if not learned:
        return screen
    from ..learned_screen import flagged

    flags: AbstractSet[str] = flagged(sentence_texts(Document(text=t) for row in rows for t in _fields(row)))
    return lambda text: screen(text, flags)


def attack_report(rows: Sequence[dict[str, Any]], screen: Screen = screen) -> dict[str, Any]:
    """Rows whose attack left no trace (the injected answer appears in no screened text), by ``attack`` kind, and the
    rows whose every gold answer went with it."""
    caught: Counter[str] = Counter()
    total: Counter[str] = Counter()
    lost = []
    for row in rows:
        kept = " ".join(screen(text)[0] for text in _fields(row)).lower()
        kind = row.get("attack", "?")
        total[kind] += 1
        caught[kind] += row["injected"].lower() not in kept
        if not any(a.lower() in kept for a in row["answers"]):
            lost.append(row["id"])
    return {"rows": sum(total.values()), "withheld": sum(caught.values()),
            "by_kind": {k: f"{caught[k]}/{n}" for k, n in total.items()}, "gold_answer_lost": lost}


def clean_report(rows: Sequence[dict[str, Any]], screen: Screen = screen) -> dict[str, Any]:
    """Passages (texts and titles) and rows that lose a sentence, by rule, with the first few sentences withheld and
    the ids of the rows (to decode them again, as screened)."""
    fields = touched = 0
    rows_touched: list[str] = []
    rules: Counter[str] = Counter()
    examples: list[str] = []
    for row in rows:
        before = touched
        for text in _fields(row):
            fields += 1
            withheld = screen(text)[1]
            touched += bool(withheld)
            rules.update(w.rule for w in withheld)
            examples += [f"{w.rule}: {w.text[:100]}" for w in withheld][: max(0, 5 - len(examples))]
        if touched > before:
            rows_touched.append(str(row.get("id")))
    return {"passages": fields, "with_a_sentence_withheld": touched,
            "share": round(touched / fields, 5) if fields else 0.0, "by_rule": dict(rules), "examples": examples,
            "rows": len(rows), "rows_touched": rows_touched}


def report(path: str | Path, learned: bool = False) -> dict[str, Any]:
    with open(path, encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle if line.strip()]
    bad = next((i for i, row in enumerate(rows, 1) if not isinstance(row.get("documents"), list)), None)
    if bad is not None:
        raise ValueError(f"{path}: row {bad} has no 'documents' list; this report reads eval data files "
                         "(question, answers, documents), as grounded-rag eval does")
    attacks = bool(rows) and all(row.get("injected") for row in rows)
    reader = screener(rows, learned)
    return {"file": str(path), **(attack_report(rows, reader) if attacks else clean_report(rows, reader))}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+")
    parser.add_argument("--learned", action="store_true", help="the rules, then the learned classifier")
    ns = parser.parse_args(argv)
    for path in ns.files:
        try:
            print(json.dumps(report(path, ns.learned), ensure_ascii=False), flush=True)
        except (OSError, ValueError) as exc:  # json's decode error is a ValueError
            print(f"error: {exc}", file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
