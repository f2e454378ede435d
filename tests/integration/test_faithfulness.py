"""A new user's distractor check, through `grounded-rag ask` (other settings default): five questions whose
document contradicts common knowledge, each beside an irrelevant passage, in both orders.

By default the irrelevant passage is left out before decoding (`relevance_margin`; it is the least likely
passage to be asked this question in all ten), so each case is its document alone, and both orders answer alike.
The issue asks >= 8/10 of the default. The default, `grounded_contrast`, scores 8/10 with the same answers as
`grounded_pmi_anchored` (its whole-word gate changes none of them): the documents may raise
only their own words, so "El" (which "moved stone by stone to Madrid" makes 50 times likelier, and the unanchored
evidence term made 0.80: "El Salvador.") gets no boost, and it answers "The Colosseum is currently located in
Madrid, Spain."; it still answers the boiling point with 100 (the question gate withholds the boost once its answer
restates the question: docs/method-note.md, "The question gate and planted instructions"). `grounded_pmi` scores 8/10 and `grounded_pmi_gated`, the
previous default, 6/10 (it fails both). With extractive answers (`ask --extractive`) the gated method scores 10/10,
every answer a sentence of the document ("The Colosseum was moved stone by stone to Madrid, where it stands
today."). Each bar is what the method measures, so a regression fails."""

import json
import re
from pathlib import Path

import pytest

from grounded_rag.cli import main
from grounded_rag.evaluation.ablations import register as register_ablations

register_ablations()  # the research ablations decode here as in grounded-rag eval

CASES = json.loads((Path(__file__).parent.parent / "fixtures" / "distractor_cases.json").read_text())
DISTRACTOR = "The weather in Tallinn is usually cold in winter."


def copies_a_passage(text: str, passages: list[str], words: int = 4) -> bool:
    """True when the answer repeats ``words`` consecutive words of one of ``passages``."""
    tokens = re.findall(r"\w+", text.lower())
    grams = {" ".join(tokens[i:i + words]) for i in range(len(tokens) - words + 1)}
    for passage in passages:
        p = re.findall(r"\w+", passage.lower())
        if any(" ".join(p[i:i + words]) in grams for i in range(len(p) - words + 1)):
            return True
    return False


def _followed(answers: list[tuple[dict, str]]) -> tuple[int, str]:
    """How many answers name the document's answer without repeating the irrelevant passage, and the answers."""
    followed = [c["answer"].lower() in t.lower() and not copies_a_passage(t, [DISTRACTOR]) for c, t in answers]
    return sum(followed), "\n".join(f"{ok} {t!r}" for ok, (_, t) in zip(followed, answers))


def _cases():
    for case in CASES:
        for docs in ([case["document"], DISTRACTOR], [DISTRACTOR, case["document"]]):
            yield case, docs


def test_the_default_follows_the_relevant_document_beside_a_distractor(capsys):
    answers = []
    for case, docs in _cases():
        assert main(["ask", case["question"], "--doc", docs[0], "--doc", docs[1], "--no-sources"]) == 0
        answers.append((case, capsys.readouterr().out.strip()))
    followed, shown = _followed(answers)
    assert followed >= 8, shown


@pytest.mark.parametrize("method,extractive,needed", [("grounded_pmi", False, 8), ("grounded_pmi_gated", False, 6),
                                                      ("grounded_pmi_gated", True, 10)],
                         ids=["grounded_pmi", "grounded_pmi_gated", "gated-extractive"])
def test_the_ablations_score_what_they_measured(decoder, method, extractive, needed):
    """The research ablations (evaluation package), in-process with the CLI's other defaults; what they decode is
    scored, abstention off (this test is about which passage an answer follows, not whether it is shown)."""
    cases = list(_cases())  # one batch: each answer equals its own decode (test_engine.py)
    results = decoder.generate_batch([{"question": case["question"], "documents": docs} for case, docs in cases],
                                     method=method, extractive=extractive, support_threshold=None)
    answers = [(case, r.text) for (case, _), r in zip(cases, results, strict=True)]
    followed, shown = _followed(answers)
    assert followed >= needed, shown
