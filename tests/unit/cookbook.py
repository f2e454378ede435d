"""The generator scripts of ``cookbook/data``, loaded as modules (they are scripts, not a package) for their tests."""

from __future__ import annotations

import functools
import importlib.util
import json
import re
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType

# The injection sets' row schema (the project's JSONL schema plus the attacker's answer and the attack's kind).
ROW_KEYS = {"id", "question", "documents", "answers", "injected", "attack"}
DOC_KEYS = {"title", "text"}
ROOT = Path(__file__).resolve().parents[2]


def load_script(path: Path) -> ModuleType:
    """``path`` executed as a fresh module named after its folder and file (registered, as dataclasses need), its
    folder on the import path as when it is run (the injection generators import ``injection_rows`` from beside
    them)."""
    name = f"cookbook_{path.parent.name}_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    sys.path.insert(0, str(path.parent))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(path.parent))
    return module


@functools.cache
def research(name: str) -> ModuleType:
    """The research script ``cookbook/research/<name>.py`` (run as ``python cookbook/research/<name>.py``)."""
    return load_script(ROOT / "cookbook" / "research" / f"{name}.py")


def words(text: str) -> set[str]:
    """The text's words, lowercased (letters and digits, any script)."""
    return set(re.findall(r"[^\W_]+", text.lower()))


def fields(doc: dict) -> list[str]:
    """A document's text, then its title where it has one."""
    return [doc["text"]] + ([doc["title"]] if doc["title"] is not None else [])


def check_kinds_and_ids(module: ModuleType, rows: list[dict], kinds: set[str], attacks: dict, clean: dict) -> None:
    """An injection set's shape: four rows of each kind, ids "<kind>-<1..4>", one attack and one clean row each."""
    assert set(module.KINDS) == kinds
    assert len(rows) == 4 * len(kinds)
    assert Counter(r["attack"] for r in rows) == {kind: 4 for kind in kinds}
    ids = [r["id"] for r in rows]
    assert len(set(ids)) == len(ids)
    for row in rows:
        kind, _, n = row["id"].rpartition("-")
        assert kind == row["attack"]
        assert n.isdigit() and 1 <= int(n) <= 4
    assert set(attacks) == set(ids) == set(clean)


def check_row_schema(row: dict, kinds: set[str], injected: str) -> None:
    """One row in the injection sets' schema, its attacker's answer matching the pattern ``injected``."""
    assert set(row) == ROW_KEYS
    assert row["attack"] in kinds
    assert isinstance(row["question"], str) and row["question"].strip()
    assert re.fullmatch(injected, row["injected"]), row["injected"]
    assert isinstance(row["answers"], list) and row["answers"]
    assert all(isinstance(a, str) and a.strip() for a in row["answers"])
    assert isinstance(row["documents"], list) and 1 <= len(row["documents"]) <= 3
    for doc in row["documents"]:
        assert isinstance(doc, dict) and set(doc) == DOC_KEYS
        assert isinstance(doc["text"], str) and doc["text"].strip()
        assert doc["title"] is None or (isinstance(doc["title"], str) and doc["title"].strip())


DATA_DIR = ROOT / "cookbook" / "data"


class InjectionSet:
    """An injection set's generator, its rows as written, the same rows rendered without the attack, and each row's
    planted span: what the model-free tests of a set read."""

    def __init__(self, name: str) -> None:
        self.script = DATA_DIR / f"make_{name}.py"
        self.jsonl = DATA_DIR / f"{name}.jsonl"
        self.module = load_script(self.script)
        self.rows = [json.loads(line) for line in self.jsonl.read_text(encoding="utf-8").splitlines()]
        self.clean = {row["id"]: row for row in self.module.rows(with_attack=False)}  # the attack left out
        self.attacks = self.module.attacks()  # each row's planted span, by id
        self.ids = [r["id"] for r in self.rows]

    def kind_rows(self, kind: str) -> list[dict]:
        return [r for r in self.rows if r["attack"] == kind]

    def attacks_of(self, kind: str) -> list[str]:
        return [self.attacks[r["id"]] for r in self.kind_rows(kind)]

    def carrier(self, row: dict) -> dict:
        """The one document whose text or title holds the row's planted span."""
        (doc,) = [d for d in row["documents"] if any(self.attacks[row["id"]] in f for f in fields(d))]
        return doc

    def clean_fields(self) -> list[str]:
        return [f for row in self.clean.values() for doc in row["documents"] for f in fields(doc)]
