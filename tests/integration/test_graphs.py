"""The GPU paths, held to the reference on a CPU: the static-cache decode step (grounded_rag.graphs: what a CUDA graph
replays; here run eagerly) and the one-pass tree prefill give the eager engine's tokens, and bench --shape runs."""

import json
import subprocess
import sys

import pytest
import torch

from grounded_rag import prefill as prefill_module
from grounded_rag.config import DecodingConfig
from grounded_rag.engine import decode_one_token
from grounded_rag.errors import InputError
from grounded_rag.fused_step import FusedLlamaStep, supports
from grounded_rag.graphs import GraphPool, StaticStep
from grounded_rag.methods import get_method
from grounded_rag.prefill import prefill
from grounded_rag.shapes import random_model

FILLER = "The Harbour Bridge opened in 1932 and carries rail, vehicle, bicycle and pedestrian traffic. "
REQUESTS = [
    {"question": "how many episodes are in chicago fire season 4",
     "documents": ["The fourth season of Chicago Fire premiered on October 13, 2015. The season contained 775 episodes."]},
    {"question": "Where is the Eiffel Tower located?",
     "documents": ["In this story, the Eiffel Tower was moved to Rome in 2031.", "Paris is the capital of France."]},
    {"question": "who wrote the novel", "documents": ["The novel was written by Ada Palmer in 1850."] + [FILLER * 3] * 2},
]
METHODS = ["standard", "grounded", "grounded_contrast", "cad"]


def _tokens(decoder, requests, method, **engine):
    return [r.token_ids for r in decoder.generate_batch(requests, method=method, max_new_tokens=12, attribute=False,
                                                        **engine)]


def _traces(decoder, requests, method, **engine):
    results = decoder.generate_batch(requests, method=method, max_new_tokens=12, attribute=False, **engine)
    return [[(s.token_id, s.rho, s.eta, s.conflict, s.p_full, s.p_ref, s.q) for s in r.trace] for r in results]


def _prompts(decoder, question, documents, method):
    return decoder.prepare(question, documents, None, DecodingConfig(method=method), get_method(method)).token_ids


@pytest.mark.parametrize("method", METHODS)
def test_static_steps_equal_the_dynamic_cache(decoder, method):
    """Batched with a question finishing early (its rows keep decoding unread), one by one, and a pooled step reused
    by a later decode of the same size: the eager engine's tokens every time."""
    reference = _tokens(decoder, REQUESTS, method, ragged=False)
    assert any(len(t) < 12 for t in reference) or method != "grounded_contrast"  # a row finishes early
    decoder.graphs = GraphPool("eager", bucket=16, keep=2)
    try:
        assert _tokens(decoder, REQUESTS, method, ragged=False) == reference
        assert [_tokens(decoder, [r], method, ragged=False)[0] for r in REQUESTS] == reference
        assert _tokens(decoder, REQUESTS, method, ragged=False) == reference  # the pooled step, loaded again
        assert len(decoder.graphs.steps) == 2  # least recently used sizes dropped
        assert _tokens(decoder, REQUESTS, method, graphs=False, ragged=False) == reference
        assert all(step.tail is not None and step.fused is not None for step in decoder.graphs.steps.values())
        decoder.graphs = GraphPool("eager", bucket=16, fused_forward=False)  # transformers' forward in the step
        assert _tokens(decoder, REQUESTS, method, ragged=False) == reference
    finally:
        decoder.graphs = None


@pytest.mark.parametrize("method", ["grounded", "grounded_contrast"])
def test_the_steps_fusion_in_the_graph_gives_the_eager_trace(decoder, method):
    """The greedy step's fusion, post-fusion steps and trace values run inside the static step (StepTail, what a CUDA
    graph captures): the eager engine's trace, value for value, with a question finishing early; a sampled decode
    keeps its fusion outside (a seeded draw per row) and still gives the eager engine's tokens."""
    requests = [*REQUESTS, {"question": "Finish the proverb.",  # the caller's own document: the trusted rule's rows
                            "documents": [{"text": 'Write a quote that ends in the word "heavy":', "trusted": True}]}]
    reference = _traces(decoder, requests, method, ragged=False)
    decoder.graphs = GraphPool("eager", bucket=16, keep=4)
    try:
        static = _traces(decoder, requests, method, ragged=False)
        for ref, got in zip(reference, static, strict=True):
            assert [s[0] for s in got] == [s[0] for s in ref]
            assert all(g == pytest.approx(r, abs=1e-5) for gs, rs in zip(got, ref) for g, r in zip(gs[1:], rs[1:])
                       if r is not None)
        sampled = {"temperature": 0.8, "top_p": 0.9, "seed": 3}
        assert _tokens(decoder, REQUESTS, method, ragged=False, **sampled) == _tokens(
            decoder, REQUESTS, method, ragged=False, graphs=False, **sampled)
        assert sorted(step.tail is None for step in decoder.graphs.steps.values()) == [False, True]
    finally:
        decoder.graphs = None


@pytest.mark.parametrize("method", ["grounded", "grounded_contrast", "cad"])
def test_tree_prefill_equals_padded_prefill(decoder, method, monkeypatch):
    """Every stream of a question in one pass with a tree mask: the padded passes' logits and cache, to rounding."""
    prompts = [ids for r in REQUESTS for ids in _prompts(decoder, r["question"], r["documents"], method)]
    streams = len(prompts) // len(REQUESTS)
    a, state_a = prefill(decoder.model, prompts, streams, decoder.pad_id, ragged=False)
    b, state_b = prefill(decoder.model, prompts, streams, decoder.pad_id, ragged=False, tree=True)
    assert torch.allclose(a, b, atol=1e-3, rtol=0) and torch.equal(a.argmax(-1), b.argmax(-1))
    tokens = a.argmax(-1)
    after_a, after_b = decode_one_token(decoder.model, state_a, tokens), decode_one_token(decoder.model, state_b, tokens)
    assert torch.allclose(after_a, after_b, atol=1e-3, rtol=0)
    calls = []
    real = prefill_module._prefill_tree
    monkeypatch.setattr(prefill_module, "_prefill_tree", lambda *a: calls.append(1) or real(*a))  # count, then run
    assert _tokens(decoder, REQUESTS, method, ragged=False, tree=True) == _tokens(decoder, REQUESTS, method,
                                                                                 ragged=False, tree=False)
    assert calls == [1]  # the decode took the tree path, and the reference did not


def test_a_pooled_step_serves_decodes_in_and_out_of_inference_mode(decoder):
    """A step's buffers made by a decode inside ``torch.inference_mode()`` (as callers often wrap ``generate``) are
    loaded again by a later decode outside it."""
    decoder.graphs = GraphPool("eager", bucket=16)
    try:
        with torch.inference_mode():
            first = _tokens(decoder, REQUESTS[:1], "grounded_contrast", ragged=False)
        assert _tokens(decoder, REQUESTS[:1], "grounded_contrast", ragged=False) == first
        assert len(decoder.graphs.steps) == 1
    finally:
        decoder.graphs = None


def _tiny_decoder():
    from transformers import AutoTokenizer

    from grounded_rag import GroundedDecoder
    from grounded_rag.models import resolve_model

    tokenizer = AutoTokenizer.from_pretrained(resolve_model(None)[0])
    return GroundedDecoder(random_model("tiny", "cpu", torch.float32), tokenizer)


def test_compiled_forward_gives_the_static_steps_tokens():
    """GraphPool(compiled=True): the static step's forward through torch.compile (one compile, dynamic sizes) gives
    the uncompiled step's tokens, for one question and two (a second size, no second model compile)."""
    tiny = _tiny_decoder()
    compiled = GraphPool("eager", compiled=True)
    for requests in (REQUESTS[:1], REQUESTS[:2]):
        tiny.graphs = GraphPool("eager")
        reference = _tokens(tiny, requests, "grounded_contrast", ragged=False)
        tiny.graphs = compiled
        assert _tokens(tiny, requests, "grounded_contrast", ragged=False) == reference
    assert len(compiled.runs) == 1 and len(compiled.steps) == 2


def test_fused_llama_step_equals_transformers_forward():
    """The static step's fused forward (one qkv and one gate-up product, the GQA attention without a repeated cache,
    one cache column per step): the logits of transformers' forward over the weights as loaded, to rounding, step
    after step, for rows of different lengths; the model's own Linear layers then hold views of the fused matrices,
    and transformers' forward reads the same numbers through them."""
    from grounded_rag import GroundedDecoder

    fresh = GroundedDecoder.from_pretrained()  # weights as loaded: no fused step has touched them
    model = fresh.model
    prompts = [p[:n] for p, n in zip(_prompts(fresh, "Who wrote it?", ["Ada Palmer wrote it in 1850."] * 9,
                                              "grounded"), (200, 150), strict=True)]
    before = prefill(model, prompts, 2, fresh.pad_id, ragged=False)[0]
    reference = StaticStep(model, prefill(model, prompts, 2, fresh.pad_id, ragged=False)[1], 256, "eager")
    tokens, want = [torch.tensor([5, 9])], []
    for _ in range(6):
        want.append(reference(tokens[-1]))
        tokens.append(want[-1].argmax(-1))
    fused = StaticStep(model, prefill(model, prompts, 2, fresh.pad_id, ragged=False)[1], 256, "eager",
                       fused=FusedLlamaStep(model, compiled=False))
    attn = model.model.layers[0].self_attn
    assert attn.k_proj.weight.data_ptr() == attn.q_proj.weight.data_ptr() + attn.q_proj.weight.numel() * 4
    assert torch.equal(prefill(model, prompts, 2, fresh.pad_id, ragged=False)[0], before)
    for step, expected in zip(tokens, want):
        got = fused(step)
        assert (got - expected).abs().max() < 1e-4 * expected.abs().max()
        assert torch.equal(got.argmax(-1), expected.argmax(-1))
    assert FusedLlamaStep(model, compiled=False).layers[0].qkv is fused.fused.layers[0].qkv  # concatenated once


def test_fused_llama_step_applies_to_plain_llama_layers_alone():
    assert supports(random_model("tiny", "cpu", torch.float32))
    assert not supports(random_model("gemma3-270m", "cpu", torch.float32))
    with_bias = random_model("tiny", "cpu", torch.float32)
    with_bias.model.layers[1].self_attn.q_proj.bias = torch.nn.Parameter(torch.zeros(128))
    assert not supports(with_bias)
    with pytest.raises(ValueError, match="own forward"):
        FusedLlamaStep(with_bias)


def test_static_step_refuses_overflow_and_wrong_sizes(decoder):
    prompts = _prompts(decoder, "Who?", ["Ada wrote it."], "standard")
    _, state = prefill(decoder.model, prompts, 1, decoder.pad_id, ragged=False)
    width = state.attention_mask.shape[1]
    step = StaticStep(decoder.model, state, width + 1, "eager")
    step(torch.tensor([5]))
    with pytest.raises(ValueError, match="ran past"):
        step(torch.tensor([5]))
    _, two = prefill(decoder.model, prompts * 2, 1, decoder.pad_id, ragged=False)
    with pytest.raises(ValueError, match="cannot take"):
        step.load(two)
    with pytest.raises(InputError, match="CUDA"):
        decoder.generate("Who?", ["Ada wrote it."], graphs=True)


def test_random_shapes_are_seeded_and_named():
    a = random_model("tiny", "cpu", torch.float32, portable=True)
    b = random_model("tiny", "cpu", torch.float32)
    assert all(torch.equal(x, y) for x, y in zip(a.parameters(), b.parameters()))
    with pytest.raises(InputError, match="llama3-8b"):
        random_model("llama-9000", "cpu", torch.float32)


def test_bench_shape_reports_every_mode():
    out = subprocess.run([sys.executable, "-m", "grounded_rag.cli", "bench", "--shape", "tiny", "--graphs",
                          "dynamic,eager", "--batches", "1,2", "--new-tokens", "4", "--repeats", "1", "--json"],
                         check=False, capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr[-2000:]
    report = json.loads(out.stdout)
    assert report["shape"] == "tiny" and report["prompt_tokens"] > 500
    for mode in ("dynamic", "eager"):
        assert report[mode]["standard_decode_ms_per_token"] > 0 and report[mode]["batch2_decode_tokens_per_s"] > 0
    assert report["prefill"]["grounded_tree_prefill_ms"] > 0 and report["hf_generate_decode_ms_per_token"] > 0


def test_a_one_answer_process_keeps_transformers_forward_in_its_graphs(decoder):
    """`grounded-rag ask` answers once: on a GPU its graphs run transformers' forward, whose capture is cheap, not the
    fused step, whose compile costs seconds; on a CPU (no graphs) nothing changes."""
    from grounded_rag.cli import _one_answer

    assert _one_answer(decoder).graphs is None
    decoder.graphs = GraphPool("capture")  # stands in for a GPU decoder's pool; nothing is captured here
    try:
        pool = _one_answer(decoder).graphs
        assert pool is not None and pool.mode == "capture" and not pool.fused_forward
    finally:
        decoder.graphs = None


def test_the_compiled_fused_step_gives_transformers_forwards_tokens():
    """The fused step as a GPU runs it, its small functions through torch.compile (here inductor's CPU code), gives
    the tokens of transformers' forward in the static step."""
    tiny = _tiny_decoder()
    tiny.graphs = GraphPool("eager", fused_forward=False)
    reference = _tokens(tiny, REQUESTS[:2], "grounded_contrast", ragged=False)
    pool = tiny.graphs = GraphPool("eager", compile_fused=True)
    assert _tokens(tiny, REQUESTS[:2], "grounded_contrast", ragged=False) == reference
    assert pool.fused_forward and len(pool.forwards) == 1


def test_a_machine_that_cannot_compile_decodes_with_transformers_forward(monkeypatch):
    """A GPU server in an image without a C compiler: the fused step's compile fails before any graph is captured,
    the pool says why and what to do (a warning), and decodes with transformers' forward: the same tokens. The
    compiler is really broken here (inductor pointed at one that does not exist), nothing is stubbed."""
    import torch._inductor.config as inductor

    tiny = _tiny_decoder()
    tiny.graphs = GraphPool("eager", fused_forward=False)
    reference = _tokens(tiny, REQUESTS[:2], "grounded_contrast", ragged=False)
    monkeypatch.setattr(inductor.cpp, "cxx", ("/nonexistent/c++",))
    torch._dynamo.reset()  # no compiled code from an earlier test
    pool = tiny.graphs = GraphPool("eager", compile_fused=True)
    with pytest.warns(RuntimeWarning, match=r"torch.compile failed on this machine: .*C\+\+ compiler.*"
                                            r"transformers' forward"):
        assert _tokens(tiny, REQUESTS[:2], "grounded_contrast", ragged=False) == reference
    assert not pool.fused_forward and not pool.forwards
    torch._dynamo.reset()


def test_a_pool_keeps_the_models_it_holds_steps_for():
    """GraphPool keys its fused steps by id(model): the step holds its model, so that id cannot be reused by a model
    loaded later (which would decode with the old weights)."""
    import gc
    import weakref

    model = random_model("tiny", "cpu", torch.float32)
    pool, ref = GraphPool("eager"), weakref.ref(model)
    assert pool._fused(model) is not None
    del model
    gc.collect()
    assert ref() is not None and pool._fused(ref()) is pool.forwards[id(ref())]
