"""Loading a GGUF file for the llama.cpp backend: llama.cpp's model, and the HF tokenizer the prompts are built with.

The tokenizer is read from the GGUF's metadata once and kept as a small folder in the cache (a few MB, where the
torch backend keeps a de-quantized copy of the whole model); llama.cpp reads the weights straight from the file.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import warnings
from pathlib import Path

import torch
from filelock import FileLock
from transformers import AutoTokenizer, PreTrainedTokenizerBase

from ..errors import GroundedRAGWarning, ModelLoadError
from ..model_files import PROBE, cache_dir, check_tokenizer

TOKENIZER_MARKER = "grounded_rag_tokenizer.json"


def load_llama(gguf: Path, display: str, key: str, device: torch.device):
    """(model on llama.cpp, HF tokenizer, display name) for a GGUF file. A GPU device offloads every layer where
    the installed llama.cpp was built for one (docs/backends.md, "Installing")."""
    from . import llama_engine  # noqa: F401 - registers the engine that decodes this model
    from .llama_cpp import LlamaCppLM, ll

    layers = 0
    if device.type != "cpu":
        if not ll.llama_supports_gpu_offload():
            raise ModelLoadError(f"this llama-cpp-python was built for the CPU only, so {gguf.name} cannot run on "
                                 f"{device}; rebuild it with GPU support (docs/backends.md, \"Installing\"), load it "
                                 "on the CPU, or use backend='torch'")
        layers = -1
    model = LlamaCppLM(gguf, torch.get_num_threads(), layers)
    tokenizer = gguf_tokenizer(gguf, key)
    check_agreement(model, tokenizer)
    return model, tokenizer, display


def prepare_tokenizer(model: str | None) -> bool:
    """``grounded-rag prepare``'s part for llama.cpp: where ``model`` is a GGUF file and llama-cpp-python is
    installed, read its tokenizer into the cache now (else the first load does). Returns whether it did."""
    from ..backend_choice import llama_installed
    from ..model_files import gguf_source, is_gguf

    if not (is_gguf(model) and llama_installed()):
        return False
    gguf, _, key = gguf_source(model)  # type: ignore[misc]
    gguf_tokenizer(gguf, key)
    return True


def gguf_tokenizer(gguf: Path, key: str) -> PreTrainedTokenizerBase:
    """The GGUF's tokenizer as transformers reads it, from the cache after the first load."""
    folder = cache_dir() / "tokenizers" / f"{gguf.stem}-{key[:12]}"
    if not (folder / TOKENIZER_MARKER).is_file():
        _save_tokenizer(gguf, folder)
    try:
        return AutoTokenizer.from_pretrained(str(folder))
    except (OSError, ValueError) as exc:
        raise ModelLoadError(f"the cached tokenizer of {gguf} at {folder} is unreadable ({exc}); delete that folder "
                             "and load again") from exc


def _save_tokenizer(gguf: Path, folder: Path) -> None:
    folder.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(folder) + ".lock"):
        if (folder / TOKENIZER_MARKER).is_file():
            return
        try:
            tokenizer = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ModelLoadError(f"transformers could not read the tokenizer of {gguf} ({exc}); the file may be "
                                 "damaged, or its tokenizer is of a kind transformers does not read from a GGUF "
                                 "file") from exc
        check_tokenizer(tokenizer, gguf.name)
        tmp = Path(tempfile.mkdtemp(dir=folder.parent, prefix=folder.name + ".tmp-"))
        try:
            tokenizer.save_pretrained(tmp)
            (tmp / TOKENIZER_MARKER).write_text('{"from": "%s"}' % gguf.name)
            shutil.rmtree(folder, ignore_errors=True)
            os.replace(tmp, folder)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise


def check_agreement(model, tokenizer: PreTrainedTokenizerBase) -> None:
    """Warn where the HF tokenizer (which builds the prompts, as on torch) cuts plain text otherwise than the
    model's own llama.cpp tokenizer: the model would read token sequences it was not trained on."""
    ours = tokenizer(PROBE, add_special_tokens=False)["input_ids"]
    theirs = model.tokenize(PROBE, special=False)
    if ours != theirs:
        warnings.warn(f"the tokenizer transformers reads from {model.path.name} splits text otherwise than llama.cpp's "
                      f"({len(ours)} against {len(theirs)} tokens for a probe sentence); answers may suffer. "
                      "backend='torch' uses the same tokenizer with matching weights", GroundedRAGWarning, stacklevel=4)
