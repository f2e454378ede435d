"""Evaluation metrics against hand-checked examples; the bootstrap against a known case."""

import numpy as np
import pytest

from grounded_rag.evaluation.bootstrap import bootstrap_ci, paired_difference_ci, resample_indices
from grounded_rag.evaluation.metrics import (
    choice_generated,
    citation_scores,
    evidence_support,
    exact_match,
    normalize_answer,
    substring_match,
    token_f1,
)


def test_squad_normalization_and_exact_match():
    assert normalize_answer("The  Eiffel-Tower!") == "eiffeltower"
    assert normalize_answer("An apple, a pear") == "apple pear"
    assert exact_match("the Rome.", ["Rome"]) == 1.0
    assert exact_match("Rome, Italy", ["Rome"]) == 0.0


def test_token_f1_hand_checked():
    # pred tokens {rome, italy}, gold {rome}: P = 1/2, R = 1, F1 = 2/3
    assert token_f1("Rome, Italy", ["Rome"]) == pytest.approx(2 / 3)
    assert token_f1("Paris", ["Rome", "Paris France"]) == pytest.approx(2 / 3)
    assert token_f1("London", ["Rome"]) == 0.0


def test_substring_and_evidence_support():
    assert substring_match("It is in Rome, Italy.", ["rome"]) == 1.0
    assert substring_match("Romeo", ["Rome"]) == 0.0, "whole-token matches only"
    assert evidence_support("Rome", ["The tower is in Rome."]) == 1.0
    assert evidence_support("Paris", ["The tower is in Rome."]) == 0.0


def test_citation_precision_recall():
    docs = ["The tower is in Rome.", "Paris is in France.", "Rome has the Colosseum."]
    p, r = citation_scores("Rome [Doc 1], see also Doc 2", docs, ["Rome"])
    assert (p, r) == (0.5, 0.5)  # cited {1,2}; relevant {1,3}
    assert citation_scores("Rome", docs, ["Rome"]) == (0.0, 0.0)


def test_memotrap_choice_generated_hand_checked():
    choices = [" heavy.", " fonder."]
    assert choice_generated("heavy.", choices) == 0
    assert choice_generated("Fonder, as they say", choices) == 1
    assert choice_generated("heavier.", choices) is None, "whole first word only"
    assert choice_generated("", choices) is None
    assert choice_generated("A. Because", [" A", " B"]) == 0, "letter choices keep the article-like 'a'"
    assert choice_generated("B", [" A", " B"]) == 1


def test_bootstrap_known_case():
    idx = resample_indices(100, 10_000, seed=1)
    const = bootstrap_ci([1.0] * 100, idx)
    assert const == (1.0, 1.0, 1.0)
    values = np.array([1.0] * 50 + [0.0] * 50)
    mean, lo, hi = bootstrap_ci(values, idx)
    # the mean of 100 Bernoulli(0.5) draws: sd 0.05, so the 95% interval is about 0.5 +- 0.098
    assert mean == 0.5 and lo == pytest.approx(0.402, abs=0.02) and hi == pytest.approx(0.598, abs=0.02)
    diff = paired_difference_ci(values, values, idx)
    assert diff == (0.0, 0.0, 0.0), "paired: identical methods differ by exactly 0 in every resample"
