"""A new user's distractor check, through `grounded-rag ask` (other settings default): five questions whose
document contradicts common knowledge, each beside an irrelevant passage, in both orders.

By default the irrelevant passage is left out before decoding (`relevance_margin`; it is the least likely
passage to be asked this question in all ten), so each case is its document alone, and both orders answer alike.
The issue asks >= 8/10 of the default. The default, `grounded_pmi_words`, scores 8/10 with the same answers as
`grounded_pmi_anchored` (its whole-word gate changes none of them): the documents may raise
only their own words, so "El" (which "moved stone by stone to Madrid" makes 50 times likelier, and the unanchored
evidence term made 0.80: "El Salvador.") gets no boost, and it answers "The Colosseum is currently located in
Madrid, Spain."; it still answers the boiling point with 100 (the question gate withholds the boost once its answer
restates the question, docs/method-note.md section 5). `grounded_pmi` scores 8/10 and `grounded_pmi_gated`, the
previous default, 6/10 (it fails both). With extractive answers (`ask --extractive`) the gated method scores 10/10,
every answer a sentence of the document ("The Colosseum was moved stone by stone to Madrid, where it stands
today."). Each bar is what the method measures, so a regression fails."""

import json
from pathlib import Path

import pytest

from grounded_rag.cli import main
from grounded_rag.evaluation.traces import copies_a_passage

CASES = json.loads((Path(__file__).parent.parent / "fixtures" / "distractor_cases.json").read_text())
DISTRACTOR = "The weather in Tallinn is usually cold in winter."


@pytest.mark.parametrize("method,options,needed", [("grounded_pmi", [], 8), ("grounded_pmi_gated", [], 6), (None, [], 8),
                                                    ("grounded_pmi_gated", ["--extractive"], 10)],
                         ids=["grounded_pmi", "grounded_pmi_gated", "default", "gated-extractive"])
def test_follows_the_relevant_document_beside_a_distractor(capsys, method, options, needed):
    answers = []
    for case in CASES:
        for docs in ([case["document"], DISTRACTOR], [DISTRACTOR, case["document"]]):
            args = ["ask", case["question"], "--doc", docs[0], "--doc", docs[1], *options]
            args += ["--method", method] if method else []
            assert main(args) == 0
            text = capsys.readouterr().out.strip()
            answers.append((case, text))
    # a case counts when the answer names the document's answer and does not repeat the irrelevant passage
    followed = [c["answer"].lower() in t.lower() and not copies_a_passage(t, [DISTRACTOR]) for c, t in answers]
    assert sum(followed) >= needed, "\n".join(f"{ok} {t!r}" for ok, (_, t) in zip(followed, answers))
