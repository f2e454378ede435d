"""Hidden states for the baselines that need more than the final logits (DoLa, kNN-LM).

DoLa contrasts the final layer with a premature layer, read through the same vocabulary head;
kNN-LM looks up the final hidden state in a datastore built from the retrieved passages. Both
read the last position of chosen layers during the engine's ordinary forward passes, through
forward hooks, so the decode loop and its KV caches stay the same for every method.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import torch
from torch import nn
from transformers import PreTrainedTokenizerBase

from .backend_choice import require_torch
from .errors import InputError
from .fusion import log_probs

if TYPE_CHECKING:  # transformers' modeling (2 s, 120 MB to import) is not needed on llama.cpp
    from transformers import PreTrainedModel

Signal = Literal["none", "early_layers", "datastore"]


def _parts(model: PreTrainedModel) -> tuple[nn.Module, nn.ModuleList, nn.Module, nn.Module]:
    """The decoder stack, its layers, its final norm and the vocabulary head (Llama/Gemma/Qwen layout)."""
    base = model.get_decoder()
    layers = getattr(base, "layers", None)
    norm = getattr(base, "norm", None)
    head = model.get_output_embeddings()
    if layers is None or norm is None or head is None:
        raise InputError(
            f"DoLa and kNN-LM need a decoder with .layers, .norm and an output head; "
            f"{type(model).__name__} has another layout: use another method with this model"
        )
    return base, layers, norm, head


def dola_candidates(model: PreTrainedModel, bucket: str) -> list[int]:
    """Premature layers as in DoLa: every second layer of the lower or upper half.

    Index ``j`` is the output of decoder layer ``j - 1`` (0 = embeddings), as in ``hidden_states``.
    With tied embeddings the first two are skipped: they read as the input tokens themselves.
    """
    n = len(_parts(model)[1])
    start = 2 if getattr(model.config, "tie_word_embeddings", False) else 0
    return list(range(start, n // 2, 2)) if bucket == "low" else list(range(n // 2, n, 2))


def _last(output: object) -> torch.Tensor:
    hidden = output[0] if isinstance(output, tuple) else output
    return hidden[:, -1].float()


class LayerTaps:
    """Last-position hidden states of chosen layers, captured during one decode.

    ``layers`` follow the ``hidden_states`` index; ``final`` also taps the final norm's output
    (the vector the head reads). Only the thread that last called :meth:`claim` records, so a
    decoder shared by concurrent requests is not mixed up, while a generator resumed from
    different executor threads (LangChain's default ``_astream``) still reads its own states.
    """

    def __init__(self, model: PreTrainedModel, layers: Sequence[int] = (), final: bool = False) -> None:
        self.model = model
        self.layers = list(layers)
        self.final = final
        self.values: dict[int | str, torch.Tensor] = {}
        self._handles: list[torch.utils.hooks.RemovableHandle] = []
        self._owner = threading.get_ident()

    @property
    def active(self) -> bool:
        """Whether any hidden state is tapped (DoLa, kNN-LM); most methods open taps that record nothing."""
        return bool(self.layers) or self.final

    def claim(self) -> LayerTaps:
        """Record the forward passes of the calling thread from now on (call before each forward)."""
        self._owner = threading.get_ident()
        return self

    def _hook(self, key: int | str):
        def record(module, args, output):
            if threading.get_ident() == self._owner:
                self.values[key] = _last(output)

        return record

    def __enter__(self) -> LayerTaps:
        if not self.active:
            return self
        base, layers, norm, _ = _parts(self.model)
        for j in self.layers:
            module = base.embed_tokens if j == 0 else layers[j - 1]
            self._handles.append(module.register_forward_hook(self._hook(j)))
        if self.final:
            self._handles.append(norm.register_forward_hook(self._hook("final")))
        return self

    def __exit__(self, *exc: object) -> None:
        for h in self._handles:
            h.remove()
        self._handles.clear()

    @torch.inference_mode()
    def premature_log_probs(self) -> torch.Tensor:
        """log-softmax of the head over each tapped layer (through the final norm): [rows, layers, V]."""
        _, _, norm, head = _parts(self.model)
        stacked = torch.stack([self.values[j] for j in self.layers], dim=1)
        weight = head.weight
        return log_probs(head(norm(stacked.to(weight.dtype))))


@dataclass
class Datastore:
    """kNN-LM keys (final hidden states of passage prefixes) and values (the next token)."""

    keys: torch.Tensor  # [N, d] float32
    values: torch.Tensor  # [N] token ids


@torch.inference_mode()
def build_datastore(model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase, passages: Sequence[str]) -> Datastore:
    """Encode each retrieved passage alone; every prefix's final hidden state keys its next token."""
    require_torch(model, "kNN-LM's datastore")
    base, _, _, _ = _parts(model)
    keys, values = [], []
    for text in passages:
        # passages are untrusted: a special-token string in one is text, never an EOS or turn marker
        ids = tokenizer(text, add_special_tokens=False, split_special_tokens=True, return_tensors="pt").input_ids
        ids = ids.to(model.device)
        if ids.shape[1] < 2:
            continue
        hidden = base(input_ids=ids).last_hidden_state[0].float()  # after the final norm
        keys.append(hidden[:-1])
        values.append(ids[0, 1:])
    if not keys:
        return Datastore(torch.zeros((0, model.config.hidden_size), device=model.device), torch.zeros(0, dtype=torch.long))
    return Datastore(torch.cat(keys), torch.cat(values))
