"""The handbook check: what a user reads off ``grounded-rag ask --store`` over a company handbook the model cannot
know.

The handbook's files (``cookbook/data/handbook``) are ingested with ``grounded-rag ingest`` and asked the questions
of ``cookbook/data/handbook_questions.jsonl`` (some of them answered nowhere in the handbook) with
``grounded-rag ask --store`` through a running ``grounded-rag serve --store`` (the answer ``ask`` gives by itself,
without loading the model once per question). Each printed answer is scored as its reader would: right, its file
among the printed sources, withheld; and, apart from reading, whether retrieval found the answer's file at all
(among the ``--k`` passages ``ask`` reads). ``python -m grounded_rag.evaluation.handbook [ASK OPTIONS]`` prints the
counts at package defaults, or with the ``ask`` options given (``--quote``, ``--insist``, ``--support-threshold 0``).
"""

from __future__ import annotations

import argparse
import glob
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

FILES = "cookbook/data/handbook/*.md"
QUESTIONS = "cookbook/data/handbook_questions.jsonl"
CLI = [sys.executable, "-m", "grounded_rag.cli"]  # the console script, in this interpreter


PATIENT_S = 3600  # the check's server queues its asks this long before it would refuse one as busy


def read_output(out: str) -> tuple[str, list[str], str | None]:
    """The answer, the source files listed under it, and the answer withheld by an abstention (None if it answered,
    "" if it abstained before decoding), from what ``ask`` printed. A quote's or a second look's note (the answer it
    replaced) is not part of the answer."""
    tails = ("\n\nSources", "\n\n(abstained", "\n\n(a quote", "\n\n(a second look")
    ends = [out.find(tail) for tail in tails if tail in out]
    answer, rest = (out[:min(ends)], out[min(ends):]) if ends else (out, "")
    sources = [Path(line.split("]", 1)[1].split(" · ")[0].strip()).name
               for line in rest.splitlines() if line.startswith("  [")]
    withheld = None
    if "(abstained" in out:
        withheld = out.split("withheld answer: ", 1)[1].strip() if "withheld answer: " in out else ""
    return answer.strip(), sources, withheld


def ask_each(url: str, store: str, questions: list[dict[str, Any]], ask_args: list[str],
             concurrent: int = 16) -> list[dict[str, Any]]:
    """Each question through ``grounded-rag ask QUESTION --store STORE --server URL ASK_ARGS``, read as printed. Up to
    ``concurrent`` asks at a time, as several users would: the server batches them, and each answer equals the one it
    gives alone (tests/integration/test_serving.py)."""
    with ThreadPoolExecutor(concurrent) as pool:
        return list(pool.map(lambda row: _asked(row, url, store, ask_args), questions))


def _asked(row: dict[str, Any], url: str, store: str, ask_args: list[str]) -> dict[str, Any]:
    """One question asked in its own ``grounded-rag ask`` process, its printed answer scored."""
    done = subprocess.run([*CLI, "ask", row["question"], "--store", store, "--server", url,
                           "--timeout", str(PATIENT_S), *ask_args],
                          capture_output=True, text=True, encoding="utf-8",
                          env={**os.environ, "PYTHONIOENCODING": "utf-8"})
    if done.returncode != 0:
        raise RuntimeError(f"ask failed on {row['question']!r}: {done.stderr[-2000:]}")
    answer, sources, withheld = read_output(done.stdout)
    shown = answer if withheld is None else withheld
    return {**row, "answer": answer, "sources": sources, "abstained": withheld is not None,
            "screened": "Withheld, as addressed to the model:" in done.stdout,
            "conflict": "another passage answers otherwise" in done.stdout,
            "right": any(a.lower() in answer.lower() for a in row["answers"]) and withheld is None,
            "right_if_shown": any(a.lower() in shown.lower() for a in row["answers"])}


def retrieved(store: str, questions: list[dict[str, Any]], k: int) -> list[bool]:
    """Whether each question's ``source`` file is among the ``k`` passages ``ask --store`` reads for it: a wrong
    answer to a question whose file was retrieved is the model's reading, not the retrieval."""
    from ..retrieval import ChromaStore

    opened = ChromaStore.open(store)
    files = [{Path(h.document.metadata.get("source", "")).name for h in opened.search(row["question"], k)}
             for row in questions]
    return [row.get("source") in names for row, names in zip(questions, files, strict=True)]


def report(answers: list[dict[str, Any]]) -> dict[str, int]:
    """The counts a user would read off the answers (``answers`` from :func:`ask_each`; ``its_file_retrieved`` where
    they carry ``retrieved``, :func:`retrieved`)."""
    answerable = [a for a in answers if a["answers"]]
    unanswerable = [a for a in answers if not a["answers"]]
    right = [a for a in answerable if a["right"]]
    return {"answerable": len(answerable), "its_file_retrieved": sum(bool(a.get("retrieved")) for a in answerable),
            "right": len(right),
            "right_with_its_file_cited": sum(a["source"] in a["sources"] for a in right),
            "unanswerable": len(unanswerable), "unanswerable_withheld": sum(a["abstained"] for a in unanswerable),
            "answerable_withheld": sum(a["abstained"] for a in answerable),
            "right_answers_withheld": sum(a["abstained"] and a["right_if_shown"] for a in answerable),
            "wrong_and_shown": sum(not a["right"] and not a["abstained"] for a in answerable),
            "screened": sum(bool(a.get("screened")) for a in answers),
            "conflict_flagged": sum(bool(a.get("conflict")) for a in answers)}


def main(argv: list[str] | None = None) -> int:
    """The check as a command: the counts at package defaults, or with the ``ask`` options after the command's own."""
    parser = argparse.ArgumentParser(prog="python -m grounded_rag.evaluation.handbook", description=__doc__)
    parser.add_argument("--files", default=FILES, help="the handbook's files (a glob)")
    parser.add_argument("--questions", default=QUESTIONS, help="JSONL rows: question, answers, source")
    parser.add_argument("--model", default=None, help="the model to serve (default: the packaged one)")
    parser.add_argument("--k", type=int, default=3, help="passages retrieved per question (ask's --k)")
    parser.add_argument("--split", choices=("validation", "test"), default=None,
                        help="only the questions of this split (rows with a 'split' field; default: every question)")
    ns, ask_args = parser.parse_known_args(argv)
    if ns.k < 1:
        parser.error(f"--k {ns.k}: retrieve at least one passage (e.g. --k 3)")
    ask_args = ["--k", str(ns.k), *ask_args]
    files = sorted(glob.glob(ns.files))
    if not files:
        parser.error(f"--files {ns.files}: no file matches (run from the repository's root, or pass --files)")
    if not Path(ns.questions).is_file():
        parser.error(f"--questions {ns.questions}: no such file (run from the repository's root, or pass --questions)")
    if importlib.util.find_spec("fastapi") is None:
        parser.error("the check asks through grounded-rag serve: pip install 'grounded-rag[serve]'")
    questions = [json.loads(line) for line in Path(ns.questions).read_text(encoding="utf-8").splitlines() if line]
    questions = [q for q in questions if ns.split is None or q.get("split") == ns.split]
    if not questions:
        parser.error(f"--questions {ns.questions} has no {ns.split} questions")
    model_args = ["--model", ns.model] if ns.model else []
    from ..bench import running_server  # torch: only once the arguments are known to be good

    with tempfile.TemporaryDirectory() as tmp:
        store = str(Path(tmp) / "store")
        ingested = subprocess.run([*CLI, "ingest", *files, "--store", store], capture_output=True, text=True)
        if ingested.returncode != 0:
            sys.stderr.write(ingested.stderr)
            parser.error(f"ingesting {ns.files} failed (the error above)")
        # the check paces its own asks (ask_each's ``concurrent`` at a time): its server waits them out however slow
        # the machine
        with running_server(CLI, store, [*model_args, "--max-queue-wait-s", str(PATIENT_S)]) as url:
            answers = ask_each(url, store, questions, [*model_args, *ask_args])
        answers = [{**a, "retrieved": r} for a, r in zip(answers, retrieved(store, questions, ns.k), strict=True)]
    for a in answers:
        print(json.dumps({k: a[k] for k in ("question", "answer", "abstained", "right", "screened")}, ensure_ascii=False))
    print(json.dumps(report(answers)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
