"""Answer metrics (SQuAD normalization), conflict rates, evidence support and citation scores."""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Sequence

from ..attribution import find_citations

_ARTICLES = re.compile(r"\b(a|an|the)\b")


def normalize_answer(text: str) -> str:
    """SQuAD v1.1: lower-case, drop punctuation and articles, collapse whitespace."""
    text = text.lower()
    text = "".join(ch for ch in text if ch not in set(string.punctuation))
    text = _ARTICLES.sub(" ", text)
    return " ".join(text.split())


def exact_match(prediction: str, answers: Sequence[str]) -> float:
    pred = normalize_answer(prediction)
    return float(any(pred == normalize_answer(a) for a in answers))


def token_f1(prediction: str, answers: Sequence[str]) -> float:
    """Best SQuAD token F1 over the gold answers."""
    pred = normalize_answer(prediction).split()
    best = 0.0
    for answer in answers:
        gold = normalize_answer(answer).split()
        common = Counter(pred) & Counter(gold)
        same = sum(common.values())
        if not pred or not gold:
            best = max(best, float(pred == gold))
            continue
        if same == 0:
            continue
        precision, recall = same / len(pred), same / len(gold)
        best = max(best, 2 * precision * recall / (precision + recall))
    return best


def substring_match(prediction: str, answers: Sequence[str]) -> float:
    """1 if any normalized gold answer occurs in the normalized prediction."""
    pred = f" {normalize_answer(prediction)} "
    return float(any(f" {normalize_answer(a)} " in pred for a in answers if normalize_answer(a)))


def evidence_support(prediction: str, documents: Sequence[str]) -> float:
    """1 if the (normalized) answer string occurs in some retrieved document."""
    answer = normalize_answer(prediction)
    if not answer:
        return 0.0
    return float(any(f" {answer} " in f" {normalize_answer(d)} " for d in documents))


def citation_scores(prediction: str, documents: Sequence[str], answers: Sequence[str]) -> tuple[float, float]:
    """(precision, recall) of the ``Doc k`` an answer cites vs the documents that contain a gold answer."""
    cited = set(find_citations(prediction, len(documents)))
    relevant = {k for k, d in enumerate(documents, start=1) if substring_match(d, answers)}
    precision = len(cited & relevant) / len(cited) if cited else 0.0
    recall = len(cited & relevant) / len(relevant) if relevant else 0.0
    return precision, recall


def _first_word(text: str) -> str:
    words = "".join(ch if ch not in string.punctuation else " " for ch in text.lower()).split()
    return words[0] if words else ""


def choice_generated(generation: str, choices: Sequence[str]) -> int | None:
    """MemoTrap by generation: the index of the choice whose first word the generation starts with
    (case and punctuation ignored; articles kept, since ``A``/``B`` are choices), else None."""
    first = _first_word(generation)
    matches = [k for k, c in enumerate(choices) if first and _first_word(c) == first]
    return matches[0] if len(matches) == 1 else None


def cited_scores(cited: set[int], gold: set[int]) -> tuple[float, float]:
    """(precision, recall) of the passages an answer cites against the row's own passages (0 precision when it
    cites none)."""
    hit = len(cited & gold)
    return (hit / len(cited) if cited else 0.0), (hit / len(gold) if gold else 0.0)


def says_abstention(text: str, abstention: str) -> bool:
    """The answer is the abstention sentence (a prompted model's "The documents do not say.", however wrapped)."""
    said, target = normalize_answer(text), normalize_answer(abstention)
    return bool(target) and target in said


def auc(positive: Sequence[float], negative: Sequence[float]) -> float:
    """P(a positive scores above a negative), ties counted half: how well a per-passage score separates two sets."""
    pairs = sum((p > n) + 0.5 * (p == n) for p in positive for n in negative)
    return pairs / (len(positive) * len(negative))
