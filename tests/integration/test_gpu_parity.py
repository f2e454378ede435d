"""Issue 13, item 4: greedy texts of both packaged models on a GPU match the CPU fp32 reference.

Runs only where CUDA is available (the CPU suite is unchanged). It is the check for the Gemma-3-270M
GPU bug (bf16, ``eval --batch-size 32``: garbage for every method while the CPU answered sanely), whose
cause could not be reproduced on a CPU; it separates the suspects: fp32 on the GPU must equal the CPU
token for token (kernels, padded prefill, sliding-window masks), bf16 may drift late but not from the
first tokens (dtype), and batched must equal one by one (left padding in a batch of mixed lengths).
The same holds for the static-cache decode captured in a CUDA graph (grounded_rag.graphs).

``GROUNDED_RAG_PARITY_MODELS`` (comma-separated) names the models where the packaged ones are not installed
(a lent GPU machine gets the GGUF file alone). The random-weight checks need no weights at all: each shape's
architecture with the same seeded weights on the CPU and the GPU, logits compared step by step.
"""

import os

import pytest
import torch
from transformers import AutoTokenizer

from grounded_rag import GroundedDecoder
from grounded_rag.engine import decode_one_token
from grounded_rag.fused_step import FusedLlamaStep, supports
from grounded_rag.graphs import GraphPool, StaticStep, static_ok
from grounded_rag.models import resolve_model
from grounded_rag.prefill import prefill
from grounded_rag.shapes import random_model

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")

# Prompts of very different lengths, so a batch is left-padded (and Gemma's 512-token sliding
# window is crossed by the longest one).
FILLER = "The Harbour Bridge opened in 1932 and carries rail, vehicle, bicycle and pedestrian traffic. "
PROMPTS = [
    ("how many episodes are in chicago fire season 4",
     ["The fourth season of Chicago Fire premiered on October 13, 2015. The season contained 775 episodes."]),
    ("Where is the Eiffel Tower located?",
     ["In this story, the Eiffel Tower was moved to Rome in 2031 and now stands beside the Colosseum.",
      "Paris is the capital and largest city of France."]),
    ("When did the bridge open?", [FILLER * 30 + "In this account the bridge opened in 2000."]),
    ("who wrote the novel", ["The novel was written by Ada Palmer in 1850."] + [FILLER * 3] * 4),
]
METHODS = ["standard", "grounded", "grounded_contrast"]
MODELS = os.environ.get("GROUNDED_RAG_PARITY_MODELS", "smollm2-135m-instruct,gemma3-270m").split(",")
NEW_TOKENS = 8
TOKENIZER = os.environ.get("GROUNDED_RAG_GPU_TOKENIZER")  # a folder with the packaged tokenizer, where it is not installed


def _texts(decoder: GroundedDecoder, method: str, batched: bool, **engine) -> list[list[int]]:
    """Greedy token ids; on the GPU the decoder's defaults (CUDA graphs where they apply, the tree prefill)."""
    requests = [{"question": q, "documents": d} for q, d in PROMPTS]
    settings = {"method": method, "max_new_tokens": NEW_TOKENS, "ragged": False, "relevance_margin": None,
                "attribute": False, **engine}
    if batched:
        return [r.token_ids for r in decoder.generate_batch(requests, **settings)]
    return [decoder.generate_batch([r], **settings)[0].token_ids for r in requests]


@pytest.fixture(scope="module", params=MODELS)
def model_name(request) -> str:
    return request.param


@pytest.fixture(scope="module")
def cpu_reference(model_name) -> dict[str, list[list[int]]]:
    cpu = GroundedDecoder.from_pretrained(model_name, device="cpu", dtype=torch.float32)
    return {m: _texts(cpu, m, batched=False) for m in METHODS}


@pytest.fixture(scope="module")
def gpu_fp32(model_name) -> GroundedDecoder:
    return GroundedDecoder.from_pretrained(model_name, device="cuda", dtype=torch.float32)


@pytest.fixture(scope="module")
def gpu_default(model_name) -> GroundedDecoder:
    return GroundedDecoder.from_pretrained(model_name, device="cuda")  # bf16 where supported


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("batched", [False, True], ids=["one_by_one", "batched"])
def test_gpu_fp32_equals_cpu(gpu_fp32, cpu_reference, method, batched):
    gpu = gpu_fp32
    assert _texts(gpu, method, batched) == cpu_reference[method]


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("batched", [False, True], ids=["one_by_one", "batched"])
def test_gpu_default_dtype_agrees_with_cpu(gpu_default, cpu_reference, method, batched):
    gpu = gpu_default
    got = _texts(gpu, method, batched)
    ref = cpu_reference[method]
    # bf16 rounding may flip a late near-tie; garbage (the reported bug) differs from the first tokens.
    assert all(g[:2] == r[:2] for g, r in zip(got, ref)), (got, ref)
    assert sum(g == r for g, r in zip(got, ref)) >= len(ref) - 1, (got, ref)


@pytest.mark.parametrize("method", METHODS)
def test_gpu_graph_equals_dynamic(gpu_default, method):
    """The GPU defaults (captured static-cache decode, tree prefill) give the eager engine's tokens on the same
    device and dtype."""
    if not static_ok(gpu_default.model):
        pytest.skip("sliding-window layers keep the dynamic cache")
    assert gpu_default.graphs is not None
    assert _texts(gpu_default, method, True) == _texts(gpu_default, method, True, graphs=False, tree=False)


def _forced_logits(model, prompts, forced, pad_id, graphs: bool, fused: bool = False) -> list[torch.Tensor]:
    """Logits of the padded prefill of ``prompts`` and of each forced decode step after it, in fp32 on the CPU
    (``graphs``: the steps captured, with transformers' forward or, ``fused``, the fused Llama step compiled)."""
    logits, state = prefill(model, prompts, 1, pad_id, ragged=False)
    out = [logits.float().cpu()]
    step = StaticStep(model, state, state.attention_mask.shape[1] + len(forced), "capture",
                      fused=FusedLlamaStep(model) if fused else None) if graphs else None
    for token in forced:
        ids = torch.full((len(prompts),), token, device=model.device)
        logits = step(ids) if step is not None else decode_one_token(model, state, ids)
        out.append(logits.float().cpu())
    return out


def _relative_errors(got: list[torch.Tensor], ref: list[torch.Tensor]) -> list[float]:
    return [float((g - r).norm() / r.norm()) for g, r in zip(got, ref)]


@pytest.mark.parametrize("shape", ["smollm2-135m", "gemma3-270m"])
def test_random_weight_shapes_agree(shape):
    """The same seeded weights on the CPU and the GPU: fp32 logits agree to rounding, bf16 to bf16's precision,
    from the padded prefill of prompts of mixed lengths (Gemma's 512-token window crossed) through decode steps
    (and through the captured graph where the shape has no sliding window, with transformers' forward and the fused
    Llama step compiled, in fp32 too)."""
    generator = torch.Generator().manual_seed(0)
    prompts = [torch.randint(3, 40000, (n,), generator=generator).tolist() for n in (37, 700, 290)]
    forced = [17, 2001, 345, 9]
    ref = _forced_logits(random_model(shape, "cpu", torch.float32, portable=True), prompts, forced, 0, False)
    fp32 = random_model(shape, "cuda", torch.float32, portable=True)
    errors = {"fp32": _relative_errors(_forced_logits(fp32, prompts, forced, 0, False), ref)}
    bf16 = random_model(shape, "cuda", torch.bfloat16, portable=True)
    errors["bf16"] = _relative_errors(_forced_logits(bf16, prompts, forced, 0, False), ref)
    if static_ok(bf16):
        errors["bf16_graph"] = _relative_errors(_forced_logits(bf16, prompts, forced, 0, True), ref)
    if supports(bf16):
        errors["fp32_fused"] = _relative_errors(_forced_logits(fp32, prompts, forced, 0, True, fused=True), ref)
        errors["bf16_fused"] = _relative_errors(_forced_logits(bf16, prompts, forced, 0, True, fused=True), ref)
    print(shape, {k: [f"{e:.2e}" for e in v] for k, v in errors.items()})
    assert max(errors["fp32"]) < 1e-3 and max(errors.get("fp32_fused", [0])) < 1e-3, errors
    assert max(max(v) for k, v in errors.items() if k != "fp32") < 0.2, errors


def _trace(decoder: GroundedDecoder, method: str, pool: GraphPool) -> list[list[tuple]]:
    requests = [{"question": q, "documents": d} for q, d in PROMPTS]
    decoder.graphs = pool
    results = decoder.generate_batch(requests, method=method, max_new_tokens=NEW_TOKENS, ragged=False,
                                     relevance_margin=None, attribute=False)
    return [[(s.token_id, s.rho, s.eta, s.conflict, s.p_full, s.p_ref, s.q) for s in r.trace] for r in results]


@pytest.mark.parametrize("method", METHODS)
def test_captured_step_with_its_fusion_equals_the_uncaptured_step(method):
    """The whole greedy step in a CUDA graph (forward, fusion, post-fusion steps, argmax, the trace's values:
    engine.StepTail) gives the same static step's tokens and trace run without a graph, on random bf16 weights of
    SmolLM2's shape (no weights to carry); a question finishes early in some methods, and its slot decodes unread."""
    tokenizer = AutoTokenizer.from_pretrained(resolve_model(TOKENIZER)[0])
    decoder = GroundedDecoder(random_model("smollm2-135m", "cuda", torch.bfloat16), tokenizer)
    eager = _trace(decoder, method, GraphPool("eager", bucket=16))
    captured_pool = GraphPool("capture", bucket=16)
    captured = _trace(decoder, method, captured_pool)
    assert all(step.graph is not None and step.tail is not None for step in captured_pool.steps.values())
    assert [[s[0] for s in t] for t in captured] == [[s[0] for s in t] for t in eager]
    assert all(g == pytest.approx(r, abs=1e-4) for gt, rt in zip(captured, eager) for gs, rs in zip(gt, rt)
               for g, r in zip(gs[1:], rs[1:]) if r is not None)
