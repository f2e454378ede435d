"""The scripts of ``cookbook/data`` and ``cookbook/research``, loaded as modules (they are scripts, not a package),
and the injection sets as their tests read them."""

from __future__ import annotations

import functools
import importlib.util
import json
import re
import sys
from pathlib import Path
from types import ModuleType

# The injection sets' row schema (the project's JSONL schema plus the attacker's answer and the attack's kind).
ROW_KEYS = {"id", "question", "documents", "answers", "injected", "attack"}
DOC_KEYS = {"title", "text"}
ROOT = Path(__file__).resolve().parents[2]


def load_script(path: Path) -> ModuleType:
    """``path`` executed as a fresh module named after its folder and file (registered, as dataclasses need), its
    folder on the import path as when it is run (``make_injection_set.py`` imports ``injection_rows`` from beside
    it)."""
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
    return [doc["text"]] + ([doc["title"]] if doc.get("title") is not None else [])


DATA_DIR = ROOT / "cookbook" / "data"


class InjectionSet:
    """An injection set's generator (``make_injection_set.py``'s, from ``injection_sets/<name>.py``), its rows as
    committed, the same rows rendered without the attack, and each row's planted span: what the model-free tests of
    a set read. A set written as data only (no ``injection_sets`` module) has rows and nothing else."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.jsonl = DATA_DIR / f"{name}.jsonl"
        self.rows = [json.loads(line) for line in self.jsonl.read_text(encoding="utf-8").splitlines()]
        self.ids = [r["id"] for r in self.rows]
        self.generator = injection_rows().load(name) if name in injection_rows().SETS else None
        self.kinds = self.generator.kinds if self.generator else tuple(dict.fromkeys(r["attack"] for r in self.rows))
        self.clean = {row["id"]: row for row in self.generator.rows(with_attack=False)} if self.generator else {}
        self.attacks = self.generator.attacks() if self.generator else {}  # each row's planted span, by id

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


@functools.cache
def injection_rows() -> ModuleType:
    """``cookbook/data/injection_rows.py``, with its folder left on the import path: the sets' data modules import it
    by name, and it imports them (``injection_sets.<name>``) when a set is loaded."""
    if str(DATA_DIR) not in sys.path:
        sys.path.insert(0, str(DATA_DIR))
    import injection_rows as module  # noqa: PLC0415 (its folder is on the path only from here)

    return module
