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
