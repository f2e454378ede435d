"""Matched-protocol evaluation: data, metrics, paired bootstrap, and the ``grounded-rag eval`` harness."""

from .bootstrap import bootstrap_ci, paired_difference_ci, resample_indices
from .data import Example, load_examples, split_examples
from .harness import run_eval
from .metrics import exact_match, normalize_answer, substring_match, token_f1
from .protocol import GRIDS

__all__ = ["GRIDS", "Example", "bootstrap_ci", "exact_match", "load_examples", "normalize_answer",
           "paired_difference_ci", "resample_indices", "run_eval", "split_examples", "substring_match", "token_f1"]
