"""What a whole answer costs on each backend: the packaged model answers handbook questions over the passages
``ask --store`` retrieves for them (package defaults: the default method, relevance, attribution, support, the
conflict check), on torch and on llama.cpp in the same run, each warm, one question at a time.

The per-token figures of docs/backends.md time a decode step; a RAG answer is mostly its prompt (three passages
and the question, read by several streams and again by the scoring passes), so its time is mostly prefill.

``python cookbook/research/backend_answer_time.py [--questions 6] [--model gemma3-270m]`` ingests the real handbook
(cookbook/data/real_handbook) into a temporary store and prints JSON: per backend, the median seconds per answer,
the mean answer length in tokens, and the answers; then llama.cpp's median over torch's and how many answers agree.
Run it on an idle machine (its threads: torch's, ``OMP_NUM_THREADS``): the figures are ratios within one run.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGES = ROOT / "cookbook" / "data" / "real_handbook"
QUESTIONS = ROOT / "cookbook" / "data" / "real_handbook_questions.jsonl"
BACKENDS = ("torch", "llama_cpp")


def validation_questions(n: int) -> list[str]:
    """The first ``n`` validation questions of the real handbook (the test half stays for the handbook check)."""
    rows = [json.loads(line) for line in QUESTIONS.read_text(encoding="utf-8").splitlines() if line]
    return [row["question"] for row in rows if row["split"] == "validation"][:n]


def timed_answers(decoder, asked: list[tuple[str, list]]) -> dict[str, object]:
    """Each question answered once unmeasured (the first call warms the backend), then once timed."""
    decoder.generate(*asked[0])
    seconds, tokens, texts = [], [], []
    for question, documents in asked:
        start = time.perf_counter()
        result = decoder.generate(question, documents)
        seconds.append(time.perf_counter() - start)
        tokens.append(len(result.token_ids))
        texts.append(result.text)
    return {"median_s": round(statistics.median(seconds), 2), "mean_tokens": round(statistics.mean(tokens), 1),
            "answers": texts}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--questions", type=int, default=6, help="validation questions to answer (default 6)")
    parser.add_argument("--model", default=None, help="a packaged alias or GGUF file (default: the packaged one)")
    args = parser.parse_args(argv)
    if args.questions < 1:
        parser.error("--questions must be at least 1")
    from grounded_rag import GroundedDecoder
    from grounded_rag.retrieval import ChromaStore

    with tempfile.TemporaryDirectory() as tmp:
        store = str(Path(tmp) / "store")
        subprocess.run([sys.executable, "-m", "grounded_rag.cli", "ingest", str(PAGES), "--store", store],
                       check=True, capture_output=True)
        opened = ChromaStore.open(store)
        asked = [(q, [hit.document for hit in opened.search(q, 3)]) for q in validation_questions(args.questions)]
    report: dict[str, object] = {}
    for backend in BACKENDS:
        report[backend] = timed_answers(GroundedDecoder.from_pretrained(args.model, backend=backend), asked)
    torch_run, llama_run = report["torch"], report["llama_cpp"]
    report["llama_cpp_over_torch"] = round(llama_run["median_s"] / torch_run["median_s"], 2)
    report["same_answers"] = sum(a == b for a, b in zip(torch_run["answers"], llama_run["answers"], strict=True))
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
