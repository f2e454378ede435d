"""Random-weight models of named architectures, for measuring speed at a real model's size without its weights.

``grounded-rag bench --shape llama3-8b`` builds the architecture from its config with random weights on the target
device (no download, no checkpoint) and pairs it with the packaged tokenizer, whose ids all fit every vocabulary
here: time per token depends on the shapes, not on what the weights say.
"""

from __future__ import annotations

from typing import Any

import torch
from transformers import AutoConfig, AutoModelForCausalLM, PreTrainedModel

from .errors import InputError

_LLAMA = {"model_type": "llama", "hidden_act": "silu", "attention_bias": False, "mlp_bias": False}

SHAPES: dict[str, dict[str, Any]] = {
    "llama3-8b": {**_LLAMA, "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
                  "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128, "vocab_size": 128256,
                  "max_position_embeddings": 8192, "rms_norm_eps": 1e-5, "tie_word_embeddings": False,
                  "rope_parameters": {"rope_type": "default", "rope_theta": 500000.0}},
    "smollm2-135m": {**_LLAMA, "hidden_size": 576, "intermediate_size": 1536, "num_hidden_layers": 30,
                     "num_attention_heads": 9, "num_key_value_heads": 3, "head_dim": 64, "vocab_size": 49152,
                     "max_position_embeddings": 8192, "rms_norm_eps": 1e-5, "tie_word_embeddings": True,
                     "rope_parameters": {"rope_type": "default", "rope_theta": 100000.0}},
    "gemma3-270m": {"model_type": "gemma3_text", "hidden_size": 640, "intermediate_size": 2048,
                    "num_hidden_layers": 18, "num_attention_heads": 4, "num_key_value_heads": 1, "head_dim": 256,
                    "vocab_size": 262144, "max_position_embeddings": 32768, "rms_norm_eps": 1e-6,
                    "query_pre_attn_scalar": 256, "sliding_window": 512, "tie_word_embeddings": True,
                    "hidden_activation": "gelu_pytorch_tanh",
                    "layer_types": (["sliding_attention"] * 5 + ["full_attention"]) * 3,
                    "rope_parameters": {"full_attention": {"rope_type": "default", "rope_theta": 1000000.0},
                                        "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0}}},
    # a few layers of SmolLM2's shape: what the CPU tests build in a second
    "tiny": {**_LLAMA, "hidden_size": 128, "intermediate_size": 256, "num_hidden_layers": 2,
             "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 32, "vocab_size": 49152,
             "max_position_embeddings": 8192, "rms_norm_eps": 1e-5, "tie_word_embeddings": True,
             "rope_parameters": {"rope_type": "default", "rope_theta": 100000.0}},
}


def random_model(shape: str, device: str | torch.device, dtype: torch.dtype, seed: int = 0,
                 portable: bool = False) -> PreTrainedModel:
    """``shape``'s architecture with random weights, in eval mode. ``portable``: drawn on the CPU in fp32 and then
    moved, so every device gets the same weights (parity checks); else drawn where they live (an 8B model in a few
    seconds on a GPU)."""
    if shape not in SHAPES:
        raise InputError(f"unknown shape {shape!r}; choose one of: {', '.join(SHAPES)}")
    settings = dict(SHAPES[shape])
    config = AutoConfig.for_model(settings.pop("model_type"), **settings)
    torch.manual_seed(seed)
    if portable:
        model = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
        return model.to(device=device, dtype=dtype).eval()
    with torch.device(device):
        model = AutoModelForCausalLM.from_config(config, dtype=dtype)
    return model.eval()
