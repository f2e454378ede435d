"""The method menu by name, with no model code: what ``DecodingConfig.method`` accepts, the default, former names,
and the research ablations' names (grounded_rag.evaluation.ablations.register() adds them when eval runs one).
grounded_rag.methods holds each name's rule; a test checks the two list the same menu."""

from __future__ import annotations

import warnings
from typing import Literal, get_args

MethodName = Literal["grounded_contrast", "grounded", "standard", "cad", "adacad", "coiecd", "cocoa", "dola", "knnlm"]
MENU: tuple[str, ...] = get_args(MethodName)
DEFAULT_METHOD = "grounded_contrast"
# Former names of menu methods, kept working for one release with a DeprecationWarning.
DEPRECATED_METHODS: dict[str, str] = {"grounded_pmi_words": DEFAULT_METHOD}
_ABLATIONS: set[str] = set()  # research variants' names, never on the menu


def add_ablation(name: str) -> None:
    """A research variant's name becomes a valid ``method`` (grounded_rag.methods.register_ablation)."""
    if name in MENU or name in DEPRECATED_METHODS:
        raise ValueError(f"{name!r} is on the method menu; an ablation needs a name of its own")
    _ABLATIONS.add(name)


def canonical_name(name: str) -> str:
    """``name`` as the registry knows it: a deprecated name becomes its successor (with a warning); an unknown one
    is refused with the menu."""
    if name in DEPRECATED_METHODS:
        new = DEPRECATED_METHODS[name]
        warnings.warn(f"method {name!r} is now called {new!r}; the old name will be removed in the next release",
                      DeprecationWarning, stacklevel=3)
        return new
    if name in MENU or name in _ABLATIONS:
        return name
    raise ValueError(f"unknown method {name!r}; choose one of {', '.join(MENU)} (research ablations run with "
                     "grounded-rag eval --methods)")
