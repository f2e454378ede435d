"""What screening (grounded_rag.screening) withholds on a data file or a folder of documents, without a model.

``python -m grounded_rag.evaluation.screening_report FILE...``: for a file of attacks (rows with ``injected``), how
many rows have every trace of the attacker's answer withheld, by kind, and how many lost their gold answer with it;
for any other eval file, how many passages (texts and titles) and rows lose a sentence, by rule: the cost on clean
text. A folder, a text or markdown file, or a glob (``'docs/*.md'``) is read as ``grounded-rag ingest`` reads it
(chunked, titled by file name), one source per argument, and reported the same way with the headings it withheld
(a markdown ``#`` line outside code, a front matter's ``title:`` or a file's title; never an instruction). ``--packages validation|test|all``: the same for the
long descriptions (READMEs) of the Python packages installed beside grounded-rag, split by a hash of each package's
name as ``cookbook/data/real_docs`` is by file: real documents every machine that runs this has. ``--learned``
screens as the decoder does with ``screen_classifier``: the rules, then the learned classifier
(grounded_rag.learned_screen, which loads the packaged MiniLM); without it, by the rules alone (the default).
"""

from __future__ import annotations

import argparse
import glob
import hashlib
import json
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from collections.abc import Set as AbstractSet
from pathlib import Path
from typing import Any

from ..screening import heading_pieces, screen, sentence_texts
from ..types import Document

Screen = Callable[[str], tuple[str, list[Any]]]
PACKAGE_CHARS = 12_000  # of one package's description: the README, not the changelog many append
OWN_PACKAGES = ("grounded-rag", "langchain-grounded-rag", "llama-index-llms-grounded-rag")  # written by us: left out


def _fields(row: dict[str, Any]) -> list[str]:
    return [d[key] for d in row["documents"] for key in ("text", "title") if isinstance(d.get(key), str) and d[key]]


def screener(texts: Iterable[str], learned: bool) -> Screen:
    """:func:`screen` by the rules, and with ``learned`` the classifier's flags over every sentence of ``texts``."""
    if not learned:
        return screen
    from ..learned_screen import flagged

    flags: AbstractSet[str] = flagged(sentence_texts(Document(text=t) for t in texts))
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
    counts = _Counts()
    rows_touched: list[str] = []
    for row in rows:
        before = counts.touched
        for text in _fields(row):
            counts.add(screen(text)[1], headings=heading_pieces(text))
        if counts.touched > before:
            rows_touched.append(str(row.get("id")))
    return {**counts.summary(), "rows": len(rows), "rows_touched": rows_touched}


class _Counts:
    """Passages screened, those that lost a sentence, sentences withheld by rule, headings among them, examples."""

    def __init__(self) -> None:
        self.passages = self.touched = self.sentences = self.headings = 0
        self.rules: Counter[str] = Counter()
        self.examples: list[str] = []

    def add(self, withheld: Sequence[Any], titles: Sequence[Any] = (), headings: AbstractSet[str] = frozenset()
            ) -> None:
        """One passage: what was withheld from its text, and from its title; ``headings``, its text's headings."""
        self.passages += 1
        self.touched += bool(withheld or titles)
        self.sentences += len(withheld) + len(titles)
        self.headings += len(titles) + sum(w.text in headings for w in withheld)
        self.rules.update(w.rule for w in [*withheld, *titles])
        self.examples += [f"{w.rule}: {w.text[:100]}" for w in [*withheld, *titles]][: max(0, 5 - len(self.examples))]

    def summary(self) -> dict[str, Any]:
        return {"passages": self.passages, "with_a_sentence_withheld": self.touched,
                "share": round(self.touched / self.passages, 5) if self.passages else 0.0,
                "sentences_withheld": self.sentences, "headings_withheld": self.headings,
                "by_rule": dict(self.rules), "examples": self.examples}


def documents_report(docs: Sequence[Document], screen: Screen = screen) -> dict[str, Any]:
    """:func:`clean_report` for chunked documents: each chunk (its text and its title, the file's name) a passage,
    and the headings withheld (a ``#`` line outside code, a front matter's ``title:``, a file's title)."""
    counts = _Counts()
    for doc in docs:
        counts.add(screen(doc.text)[1], screen(doc.title)[1] if doc.title else (), heading_pieces(doc.text))
    return {**counts.summary(), "files": len({d.metadata.get("file") for d in docs})}


def split_of(name: str) -> str:
    """A package's split by a hash of its name, as ``cookbook/data/real_docs/make_real_docs.py`` splits files."""
    return "test" if hashlib.sha256(name.lower().encode()).hexdigest()[0] in "01234567" else "validation"


def package_docs(split: str = "all", chunk_chars: int = 800) -> list[Document]:
    """The installed packages' descriptions (their PyPI pages: READMEs, most in markdown or reStructuredText), the
    first :data:`PACKAGE_CHARS` of each, chunked as ingest chunks a file and titled by the package's name; not ours
    (:data:`OWN_PACKAGES`), which describe attacks."""
    from importlib import metadata

    from ..sources import chunk_text

    docs: list[Document] = []
    seen: set[str] = set()
    for dist in sorted(metadata.distributions(), key=lambda d: (d.metadata["Name"] or "").lower()):
        name = dist.metadata["Name"] or ""
        if not name or name.lower() in seen or name.lower() in OWN_PACKAGES or split not in ("all", split_of(name)):
            continue
        seen.add(name.lower())
        body = (dist.metadata.get_payload() or dist.metadata.get("Description") or "").strip()[:PACKAGE_CHARS]
        if body and body != "UNKNOWN":
            docs += [Document(text=t, title=name, metadata={"file": name}) for t in chunk_text(body, chunk_chars)]
    return docs


def read_documents(argument: str) -> list[Document]:
    """A folder, file or glob, chunked as ``grounded-rag ingest`` chunks it."""
    from ..sources import chunk_files

    names = sorted(glob.glob(argument)) if any(c in argument for c in "*?[") else [argument]
    if not names:
        raise ValueError(f"{argument}: matches no file")
    return chunk_files(names)


def report(path: str | Path, learned: bool = False) -> dict[str, Any]:
    """The report on an eval data file (rows of question, answers, documents), or on documents as ingest reads them."""
    if Path(path).is_dir() or Path(path).suffix != ".jsonl":
        docs = read_documents(str(path))
        reader = screener([t for d in docs for t in (d.text, d.title or "")], learned)
        return {"source": str(path), **documents_report(docs, reader)}
    with open(path, encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle if line.strip()]
    bad = next((i for i, row in enumerate(rows, 1) if not isinstance(row.get("documents"), list)), None)
    if bad is not None:
        raise ValueError(f"{path}: row {bad} has no 'documents' list; this report reads eval data files "
                         "(question, answers, documents), as grounded-rag eval does")
    attacks = bool(rows) and all(row.get("injected") for row in rows)
    reader = screener([t for row in rows for t in _fields(row)], learned)
    return {"file": str(path), **(attack_report(rows, reader) if attacks else clean_report(rows, reader))}


def packages_report(split: str, learned: bool = False) -> dict[str, Any]:
    docs = package_docs(split)
    reader = screener([t for d in docs for t in (d.text, d.title or "")], learned)
    return {"source": f"packages:{split}", **documents_report(docs, reader)}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", help="eval data files (.jsonl), or folders, files or globs of documents")
    parser.add_argument("--learned", action="store_true", help="the rules, then the learned classifier")
    parser.add_argument("--packages", choices=("validation", "test", "all"), default=None,
                        help="also the installed packages' descriptions, this split of them")
    ns = parser.parse_args(argv)
    if not ns.files and not ns.packages:
        parser.error("name a file, a folder or a glob, or --packages")
    try:
        for path in ns.files:
            print(json.dumps(report(path, ns.learned), ensure_ascii=False), flush=True)
        if ns.packages:
            print(json.dumps(packages_report(ns.packages, ns.learned), ensure_ascii=False), flush=True)
    except (OSError, ValueError) as exc:  # json's decode error is a ValueError; so is ingest's InputError
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
