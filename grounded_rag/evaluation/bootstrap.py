"""Paired bootstrap confidence intervals over examples (same resamples for every method)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def resample_indices(n: int, resamples: int = 10_000, seed: int = 0) -> np.ndarray:
    """``[resamples, n]`` example indices, drawn once and shared by every metric and method (paired)."""
    return np.random.default_rng(seed).integers(0, n, size=(resamples, n))


def bootstrap_ci(values: Sequence[float], indices: np.ndarray, level: float = 0.95) -> tuple[float, float, float]:
    """(mean, low, high) of the mean over the given resamples."""
    v = np.asarray(values, dtype=float)
    means = v[indices].mean(axis=1)
    alpha = (1 - level) / 2
    return float(v.mean()), float(np.quantile(means, alpha)), float(np.quantile(means, 1 - alpha))


def paired_difference_ci(a: Sequence[float], b: Sequence[float], indices: np.ndarray, level: float = 0.95):
    """(mean of a-b, low, high): the per-example differences resampled together."""
    return bootstrap_ci(np.asarray(a, dtype=float) - np.asarray(b, dtype=float), indices, level)


def _ranks(values: np.ndarray) -> np.ndarray:
    """1-based ranks, ties sharing their mean rank."""
    order = np.argsort(values, kind="mergesort")
    ranks = np.empty(len(values), dtype=float)
    ranks[order] = np.arange(1, len(values) + 1)
    _, inverse, counts = np.unique(values, return_inverse=True, return_counts=True)
    sums = np.bincount(inverse, weights=ranks)
    return (sums / counts)[inverse]


def auroc(positives: Sequence[float], negatives: Sequence[float]) -> float | None:
    """The chance a positive scores above a negative (a tie counts half): the Mann-Whitney U over both sizes. None
    where either side is empty."""
    pos, neg = np.asarray(positives, dtype=float), np.asarray(negatives, dtype=float)
    if not len(pos) or not len(neg):
        return None
    ranks = _ranks(np.concatenate([pos, neg]))
    return float((ranks[: len(pos)].sum() - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg)))


def auroc_ci(scores: Sequence[float], labels: Sequence[bool | None], resamples: int = 2_000, level: float = 0.95,
             seed: int = 0) -> tuple[float, float, float] | None:
    """(AUROC, low, high) of ``scores`` separating rows labelled True from rows labelled False (None: neither side),
    rows resampled with replacement. None where a side is empty."""
    s = np.asarray(scores, dtype=float)
    lab = np.array([np.nan if x is None else float(x) for x in labels])
    point = auroc(s[lab == 1], s[lab == 0])
    if point is None:
        return None
    draws = []
    for idx in resample_indices(len(s), resamples, seed):
        value = auroc(s[idx][lab[idx] == 1], s[idx][lab[idx] == 0])
        if value is not None:
            draws.append(value)
    alpha = (1 - level) / 2
    return point, float(np.quantile(draws, alpha)), float(np.quantile(draws, 1 - alpha))
