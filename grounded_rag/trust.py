"""Instance-level retrieval trust r(x, D) (paper Eq. 7-8) and the score scale it expects.

The trust gate reads one scale: *relevance*, higher is better, where for embedding stores it is
the cosine similarity of query and passage (1 = identical direction, 0 = unrelated). Use
:func:`normalize_scores` to bring a vector store's distances onto that scale; raw retriever scores
(e.g. Contriever inner products) are used as they are, with ``b`` calibrated on the user's own
validation questions by :func:`calibrate_bias`.
"""

from __future__ import annotations

import math
import numbers
import statistics
from collections.abc import Iterable, Sequence
from typing import Literal, get_args

DistanceSpace = Literal["l2", "cosine", "ip", "relevance", "exp_l2", "exp_cosine"]


def aggregate_score(scores: Sequence[float], tau_r: float = 1.0) -> float:
    """s_bar = sum_k softmax(s / tau_r)_k * s_k: a soft maximum of the retriever scores.

    Computed relative to the top score, so huge raw scores (1e308) or a tiny tau_r cannot overflow."""
    if not scores:
        raise ValueError("no retriever scores to aggregate")
    if tau_r <= 0:
        raise ValueError(f"tau_r must be > 0, got {tau_r}")
    top = max(scores)
    weights = [math.exp((s - top) / tau_r) for s in scores]  # the top one is 1, so the total is >= 1
    total = sum(weights)
    return top + sum(w / total * (s - top) for w, s in zip(weights, scores) if w > 0)


def retrieval_trust(scores: Sequence[float] | None, tau_r: float, gamma: float, b: float) -> float:
    """r = sigmoid(gamma * (s_bar - b)); 1.0 when the caller has no scores."""
    if scores is None:
        return 1.0
    z = gamma * (aggregate_score(scores, tau_r) - b) if gamma else 0.0  # gamma = 0: no gate (0 * inf is NaN)
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    ez = math.exp(z)
    return ez / (1.0 + ez)


def calibrate_bias(top_scores: Iterable[float]) -> float:
    """b = the median top-document score over validation questions (paper Sec. 3.3)."""
    values = [float(s) for s in top_scores]
    if not values:
        raise ValueError("calibrate_bias needs at least one validation score")
    return float(statistics.median(values))


def calibrate_bias_from_retrievals(retrievals: Iterable[Sequence[float]]) -> float:
    """b from per-question score lists: the median over questions of each question's best score."""
    return calibrate_bias(max(scores) for scores in retrievals if scores)


def is_number(value: object) -> bool:
    """A real number, NumPy's included (vector stores hand back ``np.float32``), that a float can hold; not a bool."""
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        return False
    try:
        float(value)
    except OverflowError:  # a whole number past 1e308
        return False
    return True


def normalize_scores(values: Sequence[float], space: DistanceSpace) -> list[float]:
    """Map a vector store's distances to cosine-similarity relevance (the trust gate's scale).

    - ``l2``: Chroma's squared L2 between unit vectors, d = 2 - 2 cos  ->  cos = 1 - d / 2
      (LangChain's default relevance for it, 1 - d / sqrt(2), goes negative; this does not).
    - ``cosine``: cosine distance d = 1 - cos  ->  cos = 1 - d.
    - ``ip``: Chroma's inner-product distance d = 1 - <q, p>  ->  <q, p> = 1 - d.
    - ``exp_l2`` / ``exp_cosine``: LlamaIndex's ChromaVectorStore similarity exp(-d) over an
      ``l2`` / ``cosine`` collection: d = -log(s), then as above.
    - ``relevance``: already on the scale; returned unchanged.
    The embeddings must be unit-normalized for ``l2`` and ``ip`` to equal cosine similarity
    (the packaged MiniLM embeddings are).
    """
    if space not in get_args(DistanceSpace):
        raise ValueError(f"unknown distance space {space!r}; use one of {', '.join(get_args(DistanceSpace))}")
    out: list[float] = []
    for v in values:
        if not is_number(v):
            raise ValueError(f"retriever score {v!r} is not a number")
        v = float(v)  # a NumPy score comes back as a Python float
        if not math.isfinite(v):
            raise ValueError(f"retriever score {v!r} is not finite; check the vector store's output")
        if space in ("exp_l2", "exp_cosine"):
            if v <= 0:
                raise ValueError(f"similarity {v!r} is not exp(-distance) (must be > 0)")
            v, space_d = -math.log(v), space[4:]
        else:
            space_d = space
        if space_d == "l2":
            out.append(1.0 - v / 2.0)
        elif space_d in ("cosine", "ip"):
            out.append(1.0 - v)
        else:  # relevance: already on the scale
            out.append(v)
    return out
