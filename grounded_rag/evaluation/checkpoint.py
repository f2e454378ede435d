"""Resumable evaluation records: an append-only JSONL checkpoint, and whole-file writes for reports."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .protocol import PROTOCOL


def read_records(path: Path) -> Iterator[dict[str, Any]]:
    """The records of a checkpoint (a run's ``generations.jsonl``), read only: blank lines, and a line cut off by an
    interruption (redone by the run), are no records."""
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            try:
                yield json.loads(line)
            except json.JSONDecodeError:
                continue


class Checkpoint:
    """Append-only JSONL of finished records, keyed so a rerun skips what is done. A run killed
    mid-write (SIGKILL, OOM) leaves at most one torn last line: it is cut off on reopening, so the
    next record starts on a line of its own and the torn one is redone."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.records: dict[str, dict[str, Any]] = {}
        if path.exists():
            data = path.read_bytes()
            if data and not data.endswith(b"\n"):
                with path.open("r+b") as handle:
                    handle.truncate(data.rfind(b"\n") + 1)
            self.records = {rec["key"]: rec for rec in read_records(path)}

    @staticmethod
    def key(dataset: str, method: str, params: dict[str, Any], example_id: str, kind: str = "gen") -> str:
        return f"{PROTOCOL}|{kind}|{dataset}|{method}|{json.dumps(params, sort_keys=True)}|{example_id}"

    def add(self, records: list[dict[str, Any]]) -> None:
        with self.path.open("a", encoding="utf-8") as handle:
            for rec in records:
                handle.write(json.dumps(rec) + "\n")
                self.records[rec["key"]] = rec
            handle.flush()


def write_atomic(path: Path, text: str) -> None:
    """Whole file or the previous one, never half of it: write beside, then rename over."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
