"""Whether and how a passage's title belongs in the prompt: the packaged model answers the validation questions of
the two handbooks (the real one, cookbook/data/real_handbook, and the made-up validation one) over the passages
``ask --store`` retrieves for them, at package defaults, with each passage's head written one way per variant.

Found by a newcomer: the README's VPN passage with ``title="IT"`` abstained where the same passage without a title
answered (``Doc 1 (IT): ...``). Ingested files always carry a title (their file's stem).

``python cookbook/research/title_format.py [--variants current,none,line] [--limit N] [--backend torch]`` prints
JSON: per variant and set, answerable questions answered right, unanswerable ones withheld, answerable ones withheld,
and the answers.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from grounded_rag.prompts import format_documents as PACKAGE_FORMAT  # kept: main() swaps each variant in

ROOT = Path(__file__).resolve().parents[2]
SETS = {"real": (ROOT / "cookbook/data/real_handbook", ROOT / "cookbook/data/real_handbook_questions.jsonl"),
        "made_up": (ROOT / "cookbook/data/handbook_validation",
                    ROOT / "cookbook/data/handbook_validation_questions.jsonl")}


def _head(k: int, title: str | None, variant: str) -> str:
    """How the passage numbered ``k`` opens in the prompt under a variant other than the package's own."""
    if not title or variant == "none":
        return f"Doc {k}: "
    if variant == "line":
        return f"Doc {k}: {title}\n"
    raise ValueError(f"unknown variant {variant!r}")


def formatter(variant: str) -> Callable:
    """The package's own ``format_documents`` for "current" (as the prompt is written, never a copy of it); else one
    that writes each passage's head as ``variant`` says."""
    if variant == "current":
        return PACKAGE_FORMAT

    def format_documents(documents: Sequence, numbers: Sequence[int] | None = None) -> str:
        return "\n".join(_head(k, d.title, variant) + d.text.strip()
                         for k, d in zip(numbers or range(1, len(documents) + 1), documents))
    return format_documents


def questions(path: Path, split_only: bool) -> list[dict]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    return [r for r in rows if not split_only or r.get("split") == "validation"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--variants", default="current,none,line")
    parser.add_argument("--limit", type=int, default=0, help="questions per set (0: all validation questions)")
    parser.add_argument("--backend", default="auto", help="where the packaged model runs (auto, torch, llama_cpp)")
    args = parser.parse_args(argv)
    from grounded_rag import GroundedDecoder, prompts
    from grounded_rag.retrieval import ChromaStore

    asked: dict[str, list] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, (pages, qfile) in SETS.items():
            store = str(Path(tmp) / name)
            subprocess.run([sys.executable, "-m", "grounded_rag.cli", "ingest", str(pages), "--store", store],
                           check=True, capture_output=True)
            opened = ChromaStore.open(store)
            rows = questions(qfile, split_only=name == "real")
            rows = rows[:args.limit] if args.limit else rows
            asked[name] = [(r, [h.document for h in opened.search(r["question"], 3)]) for r in rows]
    decoder = GroundedDecoder.from_pretrained(backend=args.backend)
    report: dict = {}
    for variant in args.variants.split(","):
        prompts.format_documents = formatter(variant)
        for name, pairs in asked.items():
            out = []
            for row, docs in pairs:
                r = decoder.generate(row["question"], docs)
                right = not r.abstained and any(a.lower() in r.text.lower() for a in row["answers"])
                out.append({"q": row["question"], "answerable": bool(row["answers"]), "right": right,
                            "abstained": r.abstained, "text": r.text if not r.abstained else r.unsupported_answer})
            ans = [o for o in out if o["answerable"]]
            una = [o for o in out if not o["answerable"]]
            report[f"{variant}/{name}"] = {
                "answerable": len(ans), "right": sum(o["right"] for o in ans),
                "answerable_withheld": sum(o["abstained"] for o in ans),
                "unanswerable": len(una), "unanswerable_withheld": sum(o["abstained"] for o in una), "rows": out}
            print(variant, name, {k: v for k, v in report[f"{variant}/{name}"].items() if k != "rows"},
                  file=sys.stderr, flush=True)
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
