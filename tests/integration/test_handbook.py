"""A user's check, as the README has it: eleven handbook files of a company the model cannot know, ingested with
``grounded-rag ingest`` and asked 28 questions with ``grounded-rag ask --store`` at package defaults. Seven
questions are not answered anywhere in the handbook. What a user reads off each answer is scored
(:mod:`grounded_rag.evaluation.handbook`, which runs the same check as a command): right answers, the right file among
the printed sources, and abstentions."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from grounded_rag import DecodingConfig
from grounded_rag.cli import main
from grounded_rag.evaluation.handbook import QUESTIONS as QUESTIONS_FILE
from grounded_rag.evaluation.handbook import PATIENT_S, ask_each, read_output, report, retrieved

from .test_serving import local_server

ROOT = Path(__file__).parent.parent.parent
HANDBOOK = ROOT / "cookbook" / "data" / "handbook"  # the README's example files
FILES = sorted(str(p) for p in HANDBOOK.glob("*.md"))
QUESTIONS = [json.loads(line) for line in (ROOT / QUESTIONS_FILE).read_text().splitlines()]
ABSTENTION = DecodingConfig().abstention_text


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> str:
    path = str(tmp_path_factory.mktemp("handbook") / "store")
    assert main(["ingest", *FILES, "--store", path]) == 0
    return path


@pytest.fixture(scope="module")
def answers(store, decoder) -> list[dict]:
    """Each question through ``ask --store``, answered by a ``serve --store`` of the same store (the answer ``ask``
    gives by itself, tests/integration/test_ask_served.py; here without loading the model 28 times)."""
    with local_server(decoder, store=store, max_queue_wait_s=PATIENT_S) as (url, _):
        return ask_each(url, store, QUESTIONS, [])


def test_the_console_script_answers_with_its_sources(store):
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    done = subprocess.run([sys.executable, "-m", "grounded_rag.cli", "ask", "Who leads Project Halcyon?",
                           "--store", store], capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    answer, sources, withheld = read_output(done.stdout)
    assert "Priya Ramanathan" in answer and "projects.md" in sources and withheld is None, done.stdout


def test_the_handbook_check(answers):
    counts = report(answers)
    print("handbook check:", json.dumps(counts))
    assert all(a["answer"] == ABSTENTION for a in answers if a["abstained"])
    assert all(a["sources"] for a in answers if not a["abstained"]), "every shown answer names its sources"
    assert counts["right"] >= 7, counts
    assert counts["right_with_its_file_cited"] == counts["right"], "a right answer cites the file it comes from"
    assert counts["unanswerable_withheld"] >= 4, counts
    assert counts["right_answers_withheld"] <= 2, counts


def test_retrieval_finds_each_answers_file(store):
    """The handbook's wrong answers are the model's reading: the packaged embeddings put each answerable question's
    file among the passages ``ask`` reads (docs/citations.md). A question whose file is missing fails here."""
    answerable = [row for row in QUESTIONS if row["answers"]]
    found = retrieved(store, answerable, 3)
    assert all(found), [row["question"] for row, ok in zip(answerable, found) if not ok]
    assert not any(retrieved(store, [{**row, "source": "no-such-file.md"} for row in answerable[:3]], 3))


# ------------------------------------------------------------------ a real company's handbook
REAL = ROOT / "cookbook" / "data" / "real_handbook"  # 26 pages of PostHog's public handbook (real_handbook_SOURCE.md)
REAL_QUESTIONS = [q for q in (json.loads(line) for line in
                              (ROOT / "cookbook" / "data" / "real_handbook_questions.jsonl").read_text().splitlines())
                  if q["split"] == "test"]  # written without sight of the code; the validation half chose settings


@pytest.fixture(scope="module")
def real_answers(tmp_path_factory, decoder) -> list[dict]:
    """The real handbook's test questions through ``ingest`` and ``ask --store``, as for the made-up one; about a
    third ask a fact the handbook states nowhere about a subject it covers (a per-diem beside the hotel budget)."""
    store = str(tmp_path_factory.mktemp("real_handbook") / "store")
    assert main(["ingest", str(REAL), "--store", store]) == 0
    with local_server(decoder, store=store, max_queue_wait_s=PATIENT_S) as (url, _):
        return ask_each(url, store, REAL_QUESTIONS, [])


def test_the_real_handbook_check(real_answers):
    """Bounds that hold, set from the one measurement of the test half (29 answerable, 13 unanswerable questions): 10
    right, 9 of the unanswerable withheld, 2 right answers withheld, 1 answer touched by the screen."""
    counts = report(real_answers)
    print("real handbook check:", json.dumps(counts))
    assert counts["right"] >= 8 and counts["right_with_its_file_cited"] >= 8, counts
    assert counts["unanswerable_withheld"] >= 8, counts
    assert counts["right_answers_withheld"] <= 3, counts
    assert counts["screened"] <= 1, [a["question"] for a in real_answers if a["screened"]]


@pytest.mark.xfail(strict=True, reason="measured on the test half: 9 of 13 unanswerable withheld (69%), 2 of 12 "
                   "right answers withheld (17%); no answer touched by the screen since its third round")
def test_the_real_handbook_check_meets_its_targets(real_answers):
    """The targets (issue 74): nothing lost to the screen, at least 80% of unanswerable questions withheld, at most
    10% of right answers withheld."""
    counts = report(real_answers)
    right_if_shown = sum(a["right_if_shown"] for a in real_answers)
    assert counts["screened"] == 0
    assert counts["unanswerable_withheld"] >= 0.8 * counts["unanswerable"]
    assert counts["right_answers_withheld"] <= 0.1 * right_if_shown
