"""The loaded model and what every stage of a request reads of it: its tokenizer, end-of-answer and padding ids, its
context window, where a base model's reply ends, and its CUDA graph pool. One object, passed down explicitly."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from transformers import PreTrainedTokenizerBase

from .graphs import GraphPool, static_ok
from .prompts import turn_ends
from .speedups import small_row_linears

if TYPE_CHECKING:  # transformers' modeling (2 s, 120 MB to import) is not needed on llama.cpp
    from transformers import PreTrainedModel


@dataclass
class LM:
    """A causal LM and its tokenizer, with the facts the plan, decode and outcome stages read of them."""

    model: PreTrainedModel
    tokenizer: PreTrainedTokenizerBase
    name: str
    eos_ids: set[int]
    pad_id: int
    context_window: int
    turn_ends: tuple[str, ...]  # where a base model's reply ends: it has no end-of-turn token
    graphs: GraphPool | None  # CUDA graphs over static caches where they apply; None: the eager engine
    ends: dict[tuple[str, ...], frozenset[int]] = field(default_factory=dict)  # extractive end tokens per stop list
    linear_layouts: object = None  # on a CPU, the matmul layout each row count runs fastest (speedups)

    @classmethod
    def of(cls, model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase, name: str = "model") -> LM:
        eos = eos_ids(model, tokenizer)
        return cls(
            model=model, tokenizer=tokenizer, name=name, eos_ids=eos,
            pad_id=tokenizer.pad_token_id if tokenizer.pad_token_id is not None else min(eos, default=0),
            context_window=int(getattr(model.config, "max_position_embeddings", 0) or tokenizer.model_max_length),
            turn_ends=turn_ends(tokenizer),
            graphs=GraphPool() if model.device.type == "cuda" and static_ok(model) else None,
            linear_layouts=small_row_linears(model),
        )


def eos_ids(model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase) -> set[int]:
    """Every id that ends an answer: the generation config's, the model config's and the tokenizer's."""
    ids: set[int] = set()
    for source in (model.generation_config.eos_token_id, model.config.eos_token_id, tokenizer.eos_token_id):
        if source is None:
            continue
        ids.update([source] if isinstance(source, int) else source)
    return ids
