"""What an answer costs when another process wants a core: the same answers timed on an idle machine and beside busy
processes, with OpenMP's idle threads waiting as its default has them (spinning about 300,000 rounds, which a program
gets where torch is imported before grounded_rag), as grounded_rag sets them (a short spin, then asleep), and asleep
at once (``OMP_WAIT_POLICY=PASSIVE``).

torch's operators and llama.cpp's graph each run as a team of threads (one per core by default). Spinning, a team's
idle threads hold their cores between operators; beside another busy process each operator then waits for the team
member the spinning pushed off its core. Asleep at once, every operator pays for waking its team. docs/speed.md ("A
busy machine") cites this script.

``python cookbook/research/busy_machine.py [--answers 3] [--busy 1] [--backends torch,llama_cpp]`` prints JSON: per
backend, wait and number of busy processes (each a Python loop that never sleeps), the median seconds per answer
(three handbook-like passages, the package's defaults, 24 new tokens, each answer after a warm one, the relevance
scores forgotten between answers), or null where the answers ran past ``--timeout``. The threads are torch's default
(one per core) unless ``OMP_NUM_THREADS`` says otherwise. Run it on an otherwise idle machine.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

from grounded_rag.process import WAITS

POLICIES = ("spin", "short spin", "passive")

CHILD = r"""
import json, statistics, sys, time
policy, backend, answers = sys.argv[1], sys.argv[2], int(sys.argv[3])
if policy == "spin":
    import torch  # before the package: OpenMP starts with its own default wait
from grounded_rag import GroundedDecoder
import torch

PASSAGES = ["Project Halcyon is led by Priya Ramanathan, who joined the platform team in 2019 and reports to the CTO.",
            "The Halcyon service is written in Rust; its data pipelines use Python and run nightly on the batch cluster.",
            "Employees get 25 days of paid vacation a year, plus public holidays; unused days carry over until March."]
QUESTION = "Who leads Project Halcyon, and which language is it written in?"
decoder = GroundedDecoder.from_pretrained(backend=backend)
decoder.generate(QUESTION, PASSAGES, max_new_tokens=24)
seconds = []
for _ in range(answers):
    decoder.clear_cache()
    start = time.perf_counter()
    decoder.generate(QUESTION, PASSAGES, max_new_tokens=24)
    seconds.append(time.perf_counter() - start)
print(json.dumps({"median_s": round(statistics.median(seconds), 2), "threads": torch.get_num_threads()}))
"""

BUSY = "while True:\n    pass"


def child_env(policy: str) -> dict[str, str]:
    """The environment of one timed process: none of the user's waits; ``passive`` sets OpenMP's, ``spin`` and
    ``short spin`` leave it to the import order (torch first: OpenMP's default; the package first: its own)."""
    env = {k: v for k, v in os.environ.items() if k not in WAITS}
    return (env | {"OMP_WAIT_POLICY": "PASSIVE"}) if policy == "passive" else env


def timed(policy: str, backend: str, answers: int, busy: int, timeout: float) -> dict[str, object]:
    """One process's median seconds per answer, with ``busy`` spinning processes beside it (ended after)."""
    hogs = [subprocess.Popen([sys.executable, "-c", BUSY]) for _ in range(busy)]
    try:
        done = subprocess.run([sys.executable, "-c", CHILD, policy, backend, str(answers)], env=child_env(policy),
                              capture_output=True, text=True, timeout=timeout, check=True)
        return json.loads(done.stdout.strip().splitlines()[-1])
    except subprocess.TimeoutExpired:
        return {"median_s": None, "over_s": timeout}
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--answers", type=int, default=3, help="timed answers per process (default 3)")
    parser.add_argument("--busy", type=int, default=1, help="busy processes beside the busy runs (default 1)")
    parser.add_argument("--backends", default="torch,llama_cpp", help="comma-separated (default torch,llama_cpp)")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds one process may take (default 600)")
    args = parser.parse_args(argv)
    if args.answers < 1 or args.busy < 1:
        parser.error("--answers and --busy must be at least 1")
    report: dict[str, dict[str, object]] = {}
    for backend in args.backends.split(","):
        for busy in (0, args.busy):
            for policy in POLICIES:
                report.setdefault(backend, {})[f"{policy}, {busy} busy"] = timed(policy, backend, args.answers, busy,
                                                                                 args.timeout)
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
