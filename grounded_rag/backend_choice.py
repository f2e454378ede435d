"""Where the LM runs: ``torch`` (the reference engine, and the GPU's) or ``llama_cpp`` (a GGUF file decoded by
llama.cpp as it ships, quantized: no fp32 copy, llama.cpp's CPU kernels).

The engine's seams take a ``model``: :func:`grounded_rag.engine.decode`, :func:`grounded_rag.engine.score_continuation`
and :func:`grounded_rag.scoring.continuation_log_probs`. A llama.cpp model
(:class:`~grounded_rag.backends.llama_cpp.LlamaCppLM`) says ``backend = "llama_cpp"``, and those functions hand it to
:mod:`grounded_rag.backends.llama_engine`, which runs the same fusion, post-fusion steps and sampling on the logits
llama.cpp returns. Nothing here imports llama_cpp: it is an optional dependency (the ``llama`` extra).
"""

from __future__ import annotations

import importlib.util
import os
from typing import Any, Literal

import torch

from .errors import InputError, ModelLoadError

Backend = Literal["auto", "torch", "llama_cpp"]
BACKENDS: tuple[str, ...] = ("auto", "torch", "llama_cpp")
ENV = "GROUNDED_RAG_BACKEND"
INSTALL_HINT = "pip install 'grounded-rag[llama]' (it builds llama-cpp-python; docs/backends.md, \"Installing\")"


def on_llama(model: Any) -> bool:
    """Whether ``model`` runs on llama.cpp (a :class:`~grounded_rag.backends.llama_cpp.LlamaCppLM`)."""
    return getattr(model, "backend", None) == "llama_cpp"


_engines: dict[str, Any] = {}  # a backend's engine module by its name, registered by the module itself


def register_engine(backend: str, module: Any) -> None:
    """A backend's engine (its ``decode``, ``score_continuation`` and ``continuation_log_probs``) registers itself when
    imported, and its model's loader imports it: the torch engine, which it builds on, reaches it without an import."""
    _engines[backend] = module


def engine_on_llama() -> Any:
    """:mod:`grounded_rag.backends.llama_engine`, registered when a llama.cpp model was loaded."""
    if "llama_cpp" not in _engines:
        raise RuntimeError("a llama.cpp model without its engine: load it with grounded_rag.models.load_model (or "
                           "import grounded_rag.backends.llama_engine first)")
    return _engines["llama_cpp"]


def llama_installed() -> bool:
    return importlib.util.find_spec("llama_cpp") is not None


def choose_backend(backend: str | None, gguf: bool, device: torch.device) -> str:
    """The backend a load runs on: ``auto`` is llama.cpp for a GGUF file on a CPU where llama-cpp-python is installed
    (no de-quantized copy, and a fraction of torch's time per new token; docs/backends.md on a whole answer), torch
    elsewhere. ``GROUNDED_RAG_BACKEND`` (torch or llama_cpp) sets what ``auto`` means for every surface that loads a
    model, the framework wrappers included."""
    backend = backend or "auto"
    if backend not in BACKENDS:
        raise InputError(f"unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}")
    if backend == "auto":
        preferred = os.environ.get(ENV, "auto") or "auto"
        if preferred not in BACKENDS:
            raise InputError(f"{ENV}={preferred!r} is no backend; set it to one of {', '.join(BACKENDS)}")
        if preferred == "torch" or not gguf:
            return "torch"
        if preferred == "llama_cpp":
            backend = "llama_cpp"
        else:
            return "llama_cpp" if device.type == "cpu" and llama_installed() else "torch"
    if backend == "llama_cpp" and not llama_installed():
        raise ModelLoadError(f"backend='llama_cpp' needs llama-cpp-python, which is not installed: {INSTALL_HINT}; "
                             "or load with backend='torch'")
    return backend


def require_torch(model: Any, what: str) -> None:
    """Refuse, with what to do, work that reads a torch model's insides (hidden states) when ``model`` is llama.cpp's."""
    if on_llama(model):
        raise InputError(f"{what} reads the model's hidden states, which llama.cpp does not expose; load the model "
                         "with backend='torch' (GroundedDecoder.from_pretrained(..., backend='torch'), or --backend "
                         "torch on the command line)")
