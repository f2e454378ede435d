"""Finding and loading the causal LM: packaged GGUF aliases, any GGUF file, any HF id or folder.

Packaged models come inside PyPI distributions (the machine may be offline from the Hub). A GGUF
file is verified by sha256, de-quantized once by transformers, and saved as an ordinary
safetensors folder in a cache directory (``$GROUNDED_RAG_CACHE``, default
``~/.cache/grounded_rag``); later loads read that folder, which is much faster.

The converted folder is written under a temporary name and renamed into place, and it carries a
completion marker (``COMPLETE_MARKER``: every file's size and sha256) written last. Each process checks every
file against its checksum before first use (the weights are not hashed again while their size and modification
time are those recorded when they last matched); ``grounded-rag prepare`` hashes every file. A damaged folder, or one
without a marker, is rebuilt with a warning, and temporary folders left by a killed conversion are removed by the
next one.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

import torch
from filelock import FileLock
from safetensors import SafetensorError
from tqdm.auto import tqdm
from transformers import AutoTokenizer, PreTrainedTokenizerBase

from .backend_choice import choose_backend
from .config import DEFAULT_MODEL
from .config import MODEL_ALIASES as ALIASES
from .errors import GroundedRAGWarning, ModelLoadError
from .model_files import (  # noqa: F401 - re-exported: where the loaders and their callers found them
    PACKAGED, PROBE, PackagedGGUF, cache_dir, check_tokenizer, gguf_source, is_gguf, packaged_gguf_path, sha256_of,
)

if TYPE_CHECKING:  # transformers' modeling (2 s, 120 MB to import) is not needed on llama.cpp: imported where it loads
    from transformers import PreTrainedModel


def default_device() -> torch.device:
    return torch.device("cuda") if torch.cuda.is_available() else torch.device("cpu")


def default_dtype(device: torch.device) -> torch.dtype:
    """fp32 on CPU (bf16 prefill is several times slower there); bf16 on a GPU that supports it."""
    if device.type == "cuda":
        return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
    return torch.float32


COMPLETE_MARKER = "grounded_rag_complete.json"
_ALWAYS_HASHED_BYTES = 64 << 20  # files below this (configs, tokenizers) are checksummed on every load


def _manifest(folder: Path) -> dict[str, dict[str, int | str]]:
    return {
        p.name: {"size": p.stat().st_size, "sha256": sha256_of(p)}
        for p in sorted(folder.iterdir())
        if p.is_file() and not p.name.startswith("grounded_rag_")  # the marker and the verification record
    }


def _write_marker(folder: Path, source_sha256: str) -> None:
    """The completion marker, written (atomically) after every other file of the conversion."""
    marker = {"version": 1, "source_sha256": source_sha256, "files": _manifest(folder), "tokenizer_checked": True}
    tmp = folder / (COMPLETE_MARKER + ".partial")
    tmp.write_text(json.dumps(marker, indent=1))
    tmp.replace(folder / COMPLETE_MARKER)


VERIFIED = "grounded_rag_verified.json"  # (size, mtime) of each large file when its checksum last matched
_VERIFIED_HERE: set[tuple[str, int, int]] = set()  # files this process has verified


def check_conversion(folder: Path, full: bool = False) -> str | None:
    """None if ``folder`` is a complete conversion; else what is wrong with it.

    Every file's size and checksum. A large file (the weights: about a second per 500 MB) is hashed once per process
    and then only when its size or modification time differs from when its checksum last matched (recorded beside
    the marker); ``full`` hashes every file regardless."""
    if not (folder / COMPLETE_MARKER).is_file():
        return "no completion marker" if folder.exists() else "not converted yet"
    try:
        files = json.loads((folder / COMPLETE_MARKER).read_text())["files"]
    except (OSError, ValueError, KeyError, TypeError):
        return f"{COMPLETE_MARKER} is unreadable"
    verified = _read_verified(folder)
    for name, want in files.items():
        path = folder / name
        if not path.is_file():
            return f"{name} is missing"
        stat = path.stat()
        if stat.st_size != want["size"]:
            return f"{name} has {stat.st_size} bytes, expected {want['size']} (truncated or overwritten)"
        seen = (str(path), stat.st_size, stat.st_mtime_ns)
        known = seen in _VERIFIED_HERE or verified.get(name) == [stat.st_size, stat.st_mtime_ns]
        if (full or want["size"] < _ALWAYS_HASHED_BYTES or not known) and sha256_of(path) != want["sha256"]:
            return f"{name} does not match its recorded sha256 (corrupted)"
        _VERIFIED_HERE.add(seen)
        verified[name] = [stat.st_size, stat.st_mtime_ns]
    _write_verified(folder, verified)
    return None


def _read_verified(folder: Path) -> dict[str, list[int]]:
    try:
        return dict(json.loads((folder / VERIFIED).read_text()))
    except (OSError, ValueError, TypeError):
        return {}


def _write_verified(folder: Path, verified: dict[str, list[int]]) -> None:
    """Best effort: a read-only cache is verified again by the next process."""
    if verified == _read_verified(folder):
        return
    try:
        tmp = folder / (VERIFIED + f".{os.getpid()}")
        tmp.write_text(json.dumps(verified))
        tmp.replace(folder / VERIFIED)
    except OSError:
        pass


def _tokenizer_checked(folder: Path) -> bool:
    try:
        return json.loads((folder / COMPLETE_MARKER).read_text()).get("tokenizer_checked") is True
    except (OSError, ValueError, AttributeError):
        return False


def _tokenizer_problem(folder: Path) -> str | None:
    """None if the folder's tokenizer passes :func:`check_tokenizer`; else why not."""
    try:
        check_tokenizer(AutoTokenizer.from_pretrained(str(folder)), folder.name)
    except (ModelLoadError, OSError, ValueError) as exc:
        return f"its tokenizer is unusable: {str(exc).split(':')[0]}"
    return None


def _discard(folder: Path) -> None:
    """Remove a folder; renamed to a temporary name first, so a kill midway leaves only a stale
    temporary folder that the next conversion removes."""
    dead = Path(tempfile.mkdtemp(dir=folder.parent, prefix=folder.name + ".tmp-"))
    folder.replace(dead / folder.name)
    shutil.rmtree(dead, ignore_errors=True)


def _convert_gguf(gguf: Path, target: Path, source_sha256: str, full_check: bool = False) -> None:
    """Make ``target`` a complete de-quantized copy of ``gguf``: keep a sound one, rebuild a damaged one or one
    without a completion marker (with a warning: a folder nothing verified is never adopted), and remove temporary
    folders of conversions that were killed. Under a file lock: one converter at a time."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(target) + ".lock"):
        for stale in target.parent.glob(target.name + ".tmp-*"):  # only the lock holder makes these
            shutil.rmtree(stale, ignore_errors=True)
        problem = check_conversion(target, full=full_check)
        if problem is None and not _tokenizer_checked(target):  # converted before the check existed
            problem = _tokenizer_problem(target)
            if problem is None:
                _write_marker(target, source_sha256)
        if problem is None:
            return
        if target.exists():
            warnings.warn(f"the cached model at {target} is damaged ({problem}); rebuilding it from {gguf.name}",
                          GroundedRAGWarning, stacklevel=3)
            _discard(target)
        steps = tqdm(total=3, desc=f"converting {gguf.name} (once)", unit="step")
        tokenizer = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
        check_tokenizer(tokenizer, gguf.name)
        steps.update()
        from transformers import AutoModelForCausalLM

        model = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name, dtype=torch.float32)
        steps.update()
        # The weights are already de-quantized; drop the marker that forbids saving them.
        model.hf_quantizer = None
        if hasattr(model.config, "quantization_config"):
            del model.config.quantization_config
        tmp = Path(tempfile.mkdtemp(dir=target.parent, prefix=target.name + ".tmp-"))
        try:
            umask = os.umask(0)
            os.umask(umask)
            tmp.chmod(0o777 & ~umask)  # mkdtemp's 0700 would make a shared cache unreadable to others
            model.save_pretrained(tmp)
            tokenizer.save_pretrained(tmp)
            _write_marker(tmp, source_sha256)  # last: its presence means every file above is complete
            tmp.replace(target)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        steps.update()
        steps.close()


def resolve_model(name: str | None = None, full_check: bool = False) -> tuple[str, str]:
    """Map a user's model argument to (loadable folder or HF id, display name).

    ``full_check`` verifies every checksum of a cached conversion (``grounded-rag prepare``)."""
    name = ALIASES.get(name or DEFAULT_MODEL, name or DEFAULT_MODEL)
    if name in PACKAGED:
        spec = PACKAGED[name]
        gguf = packaged_gguf_path(spec)
        folder = cache_dir() / "models" / f"{spec.alias}-{spec.sha256[:12]}"
        _convert_gguf(gguf, folder, spec.sha256, full_check)
        return str(folder), spec.alias
    path = Path(name).expanduser()
    if path.suffix == ".gguf":
        if not path.is_file():
            raise ModelLoadError(f"GGUF file {path} does not exist")
        digest = sha256_of(path)
        folder = cache_dir() / "models" / f"{path.stem}-{digest[:12]}"
        _convert_gguf(path.resolve(), folder, digest, full_check)
        return str(folder), path.stem
    if path.exists() and not (path / "config.json").exists():
        raise ModelLoadError(f"{path} exists but is not a transformers model folder (no config.json)")
    return name, name


def load_model(
    name: str | None = None,
    device: str | torch.device | None = None,
    dtype: torch.dtype | None = None,
    backend: str | None = "auto",
) -> tuple[PreTrainedModel, PreTrainedTokenizerBase, str]:
    """Load (model, tokenizer, display name) ready for decoding, in eval mode. ``backend``: ``torch``, ``llama_cpp``
    (a GGUF file run by llama.cpp, :mod:`grounded_rag.backends`) or ``auto`` (llama.cpp for a GGUF on a CPU where
    it is installed)."""
    device = torch.device(device) if device is not None else default_device()
    if choose_backend(backend, is_gguf(name), device) == "llama_cpp":
        source = gguf_source(name)
        if source is None:
            raise ModelLoadError(f"backend='llama_cpp' runs GGUF files; {name!r} is not one (pass a .gguf file or a "
                                 f"packaged alias: {', '.join(sorted(PACKAGED))}), or load it with backend='torch'")
        from .backends.loading import load_llama

        return load_llama(*source, device)
    location, display = resolve_model(name)
    dtype = dtype or default_dtype(device)
    try:
        tokenizer = AutoTokenizer.from_pretrained(location)
        from transformers import AutoModelForCausalLM

        model = AutoModelForCausalLM.from_pretrained(location, dtype=dtype)
    except (OSError, ValueError, RuntimeError, SafetensorError) as exc:
        known = ", ".join(sorted(PACKAGED))
        if Path(location).is_relative_to(cache_dir()):  # our own conversion: say how to rebuild it
            fix = "grounded-rag prepare" + (f" --model {name}" if name else "")
            raise ModelLoadError(
                f"the cached conversion of {display!r} at {location} could not be loaded ({exc}); verify every "
                f"checksum and rebuild it with: {fix}"
            ) from exc
        raise ModelLoadError(
            f"could not load model {name!r}: {exc}. Use a packaged alias ({known}), a local folder, "
            "a .gguf file, or a Hugging Face id reachable from this machine."
        ) from exc
    model.to(device).eval()
    return model, tokenizer, display
