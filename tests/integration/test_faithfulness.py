"""A new user's distractor check, through `grounded-rag ask --method grounded_pmi` (other settings default): five
questions whose document contradicts common knowledge, each beside an irrelevant passage, in both orders."""

import json
from pathlib import Path

from grounded_rag.cli import main
from grounded_rag.evaluation.traces import copies_a_passage

CASES = json.loads((Path(__file__).parent.parent / "fixtures" / "distractor_cases.json").read_text())
DISTRACTOR = "The weather in Tallinn is usually cold in winter."


def test_grounded_pmi_follows_the_relevant_document_beside_a_distractor(capsys):
    answers = []
    for case in CASES:
        for docs in ([case["document"], DISTRACTOR], [DISTRACTOR, case["document"]]):
            assert main(["ask", case["question"], "--doc", docs[0], "--doc", docs[1], "--method", "grounded_pmi"]) == 0
            text = capsys.readouterr().out.strip()
            answers.append((case, text))
    # a case counts when the answer names the document's answer and does not repeat the irrelevant passage
    followed = [c["answer"].lower() in t.lower() and not copies_a_passage(t, [DISTRACTOR]) for c, t in answers]
    assert sum(followed) >= 8, "\n".join(f"{ok} {t!r}" for ok, (_, t) in zip(followed, answers))
