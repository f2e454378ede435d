"""Issue 13, item 4: greedy texts of both packaged models on a GPU match the CPU fp32 reference.

Runs only where CUDA is available (the CPU suite is unchanged). It is the check for the Gemma-3-270M
GPU bug (bf16, ``eval --batch-size 32``: garbage for every method while the CPU answered sanely), whose
cause could not be reproduced on a CPU; it separates the suspects: fp32 on the GPU must equal the CPU
token for token (kernels, padded prefill, sliding-window masks), bf16 may drift late but not from the
first tokens (dtype), and batched must equal one by one (left padding in a batch of mixed lengths).
"""

import pytest
import torch

from grounded_rag import GroundedDecoder

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
METHODS = ["standard", "grounded"]
NEW_TOKENS = 8


def _texts(decoder: GroundedDecoder, method: str, batched: bool) -> list[list[int]]:
    requests = [{"question": q, "documents": d} for q, d in PROMPTS]
    settings = {"method": method, "max_new_tokens": NEW_TOKENS, "ragged": False}
    if batched:
        return [r.token_ids for r in decoder.generate_batch(requests, **settings)]
    return [decoder.generate_batch([r], **settings)[0].token_ids for r in requests]


@pytest.fixture(scope="module", params=["smollm2-135m-instruct", "gemma3-270m"])
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
