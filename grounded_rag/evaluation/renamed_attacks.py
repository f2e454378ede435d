"""An injection set's copy whose attackers name plausible answers.

``python -m grounded_rag.evaluation.renamed_attacks FILE OUT``: every row's attacker's answer (``injected``, an odd
made-up name such as "Avocado Thimble") is replaced, everywhere it is written, by another row's true answer (a name
of the kind a real passage would give). The rows, their passages and their gold answers stay as they are, so the two
files compare the same attacks: standard decoding's prior rejects an odd name that it would accept from a plausible
one, and the default's evidence term cancels that prior (which is how it follows a counterfactual).
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..errors import InputError


def _fits(rows: Sequence[dict[str, Any]], order: Sequence[int]) -> bool:
    """Row i may take row order[i]'s answer: a different answer, written nowhere in row i already."""
    for i, j in enumerate(order):
        name = rows[j]["answers"][0].lower()
        if name == rows[i]["answers"][0].lower() or name in json.dumps(rows[i], ensure_ascii=False).lower():
            return False
    return True


def renamed(rows: Sequence[dict[str, Any]], seed: int = 0, tries: int = 10_000) -> list[dict[str, Any]]:
    """The rows with each ``injected`` answer replaced, in every field, by another row's first gold answer (a
    seeded shuffle that gives no row its own answer or a name it already holds)."""
    if any(not row.get("injected") or not row.get("answers") for row in rows):
        raise InputError("every row needs 'injected' (the attacker's answer) and 'answers': pass an injection set")
    rng = random.Random(seed)
    order = list(range(len(rows)))
    for _ in range(tries):
        rng.shuffle(order)
        if _fits(rows, order):
            break
    else:
        raise InputError(f"no shuffle of {len(rows)} rows' answers fits (each row needs a name it does not hold)")
    out = []
    for row, j in zip(rows, order):
        name = rows[j]["answers"][0]
        row_out = json.loads(json.dumps(row, ensure_ascii=False).replace(row["injected"], name))
        row_out["injected"] = name
        row_out["answers"] = row["answers"]  # a gold answer that held the attacker's name stays as written
        out.append(row_out)
    return out


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file", help="an injection set (rows with 'injected')")
    parser.add_argument("out", help="where to write the renamed copy (JSONL)")
    parser.add_argument("--seed", type=int, default=0)
    ns = parser.parse_args(argv)
    with open(ns.file, encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle if line.strip()]
    lines = [json.dumps(row, ensure_ascii=False) for row in renamed(rows, ns.seed)]
    Path(ns.out).write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(lines)} rows written to {ns.out}")


if __name__ == "__main__":
    main()
