"""Exactness of the engine on the packaged SmolLM2-135M-Instruct (real weights, no mocks)."""

from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from itertools import pairwise

import pytest
import torch

from grounded_rag import DecodingConfig, GroundedDecoder, driver
from grounded_rag.engine import RowInputs, decode
from grounded_rag.evaluation.ablations import register as register_ablations
from grounded_rag.methods import get_method
from grounded_rag.prefill import PAD_BUDGET, pack_runs, prefix_runs
from grounded_rag.prompts import encode

from ..conftest import DOCUMENTS, QUESTION

register_ablations()  # the research ablations decode here as in grounded-rag eval

N = 24


def hf_greedy(decoder: GroundedDecoder, prompt: str, n: int = N) -> list[int]:
    """transformers' own greedy decoding of one prompt, EOS excluded."""
    ids = torch.tensor([encode(decoder.tokenizer, prompt)])
    out = decoder.model.generate(
        ids, attention_mask=torch.ones_like(ids), max_new_tokens=n, do_sample=False,
        pad_token_id=decoder.pad_id, eos_token_id=sorted(decoder.eos_ids),
    )[0, ids.shape[1]:].tolist()
    return [t for t in out if t not in decoder.eos_ids]


@pytest.mark.parametrize("method", ["standard", "grounded", "static"])
def test_rho_zero_reproduces_plain_greedy_generate(decoder, method):
    result = decoder.generate(QUESTION, DOCUMENTS, method=method, rho_max=0.0, max_new_tokens=N)
    assert result.token_ids == hf_greedy(decoder, result.prompts.full)
    assert all(step.eta == 0.0 for step in result.trace)
    assert all(step.q == step.p_full for step in result.trace), "rho = 0 must give q = p_full bit for bit"


def test_grounded_pmi_with_zero_weights_and_no_head_reproduces_plain_greedy_generate(decoder):
    result = decoder.generate(QUESTION, DOCUMENTS, method="grounded_pmi", pmi_alpha=0.0, pmi_beta=0.0,
                              plausibility=0.0, max_new_tokens=N)
    assert len(result.prompts.references) == 2, "full, retrieval-only and question-only streams"
    assert result.token_ids == hf_greedy(decoder, result.prompts.full)
    assert all(step.q == step.p_full for step in result.trace)


def test_infinite_rho_follows_the_retrieval_only_stream(decoder):
    result = decoder.generate(QUESTION, DOCUMENTS, method="static", rho_max=float("inf"), max_new_tokens=N)
    assert result.prompts.reference is not None
    assert result.token_ids == hf_greedy(decoder, result.prompts.reference)
    assert all(step.q == step.p_ref for step in result.trace)


def test_large_finite_rho_follows_retrieval_stream(decoder):
    big = decoder.generate(QUESTION, DOCUMENTS, method="static", rho_max=1e6, max_new_tokens=N)
    assert big.token_ids == hf_greedy(decoder, big.prompts.reference)


# The engine's exactness checks read tokens and traces: the outcome stage's scoring passes and the conflict check's
# decodes (tested in test_attribution.py and test_conflicts.py) are left out, the same on both sides of each check.
ENGINE_ONLY = {"attribute": False}


# One method per stream layout and per-step state: the retrieval-only reference (grounded), the question-only one
# (cad; arithmetic, coiecd and cocoa fuse the same two streams), the query-only one, DoLa's layer taps, kNN-LM's
# hidden states, three streams (grounded_pmi) and the anchored rows; each fuse rule is checked on its own in
# test_methods_and_eval.py.
@pytest.mark.parametrize("method", ["grounded", "cad", "query_only_reference", "dola", "knnlm", "grounded_pmi",
                                    "grounded_pmi_anchored"])
def test_cached_decoding_equals_recomputation_without_cache(decoder, method):
    cached = decoder.generate(QUESTION, DOCUMENTS, method=method, max_new_tokens=N, **ENGINE_ONLY)
    fresh = decoder.generate(QUESTION, DOCUMENTS, method=method, max_new_tokens=N, use_cache=False, **ENGINE_ONLY)
    assert cached.token_ids == fresh.token_ids
    for a, b in zip(cached.trace, fresh.trace):
        assert abs(a.q - b.q) < 1e-4 and abs(a.p_full - b.p_full) < 1e-4 and abs(a.rho - b.rho) < 1e-3


def test_documents_first_shares_the_document_prefix_and_equals_separate_prefill(decoder):
    shared = decoder.generate(QUESTION, DOCUMENTS, max_new_tokens=N, template="documents_first", method="grounded")
    separate = decoder.generate(QUESTION, DOCUMENTS, max_new_tokens=N, template="documents_first", share_prefix=False,
                                method="grounded")
    full_ids = encode(decoder.tokenizer, shared.prompts.full)
    ref_ids = encode(decoder.tokenizer, shared.prompts.reference)
    doc_tokens = len(decoder.tokenizer(" ".join(d.text for d in shared.documents))["input_ids"])  # the passages read
    assert shared.prompts.shared_prefix_tokens > doc_tokens, "the whole document block must be shared"
    assert full_ids[: shared.prompts.shared_prefix_tokens] == ref_ids[: shared.prompts.shared_prefix_tokens]
    assert shared.token_ids == separate.token_ids
    for a, b in zip(shared.trace, separate.trace):
        assert abs(a.q - b.q) < 1e-4 and abs((a.conflict or 0) - (b.conflict or 0)) < 1e-4


def test_prompts_differ_only_by_the_question_field(decoder):
    for template in ["paper", "documents_first"]:
        r = decoder.generate(QUESTION, DOCUMENTS, max_new_tokens=1, template=template, relevance_margin=None)
        sep = "\n" if template == "paper" else "\n\n"
        question_field = f"Question: {QUESTION}" + ("\n" if template == "paper" else "")
        assert r.prompts.reference == r.prompts.full.replace(question_field if template == "paper" else sep + question_field, "")
        assert "Doc 1:" in r.prompts.full and "Doc 3:" in r.prompts.reference


@pytest.mark.parametrize("ragged", [True, False], ids=["ragged-prefill", "padded-prefill"])
@pytest.mark.parametrize("method", ["grounded", "cad", "dola", "knnlm", "grounded_pmi"])
def test_batched_equals_one_by_one(decoder, method, ragged):
    """Prompts of different lengths; the batch prefilled ragged (CPU default) or padded (GPU default)."""
    requests = [
        {"question": QUESTION, "documents": DOCUMENTS, "scores": [0.8, 0.4, 0.3]},
        {"question": "What is the capital of France?", "documents": DOCUMENTS[2:]},
        {"question": "When was the tower moved?", "documents": DOCUMENTS[:1], "scores": [0.6]},
    ]
    batched = decoder.generate_batch(requests, method=method, max_new_tokens=N, ragged=ragged, **ENGINE_ONLY)
    for request, b in zip(requests, batched):
        single = decoder.generate(request["question"], request["documents"], scores=request.get("scores"),
                                  method=method, max_new_tokens=N, **ENGINE_ONLY)
        assert b.token_ids == single.token_ids
        assert b.trust == single.trust
        for x, y in zip(b.trace, single.trace):
            assert abs(x.q - y.q) < 1e-4 and abs(x.rho - y.rho) < 1e-3


SHORT = [  # short prompts of similar lengths, as a server's concurrent requests: many share a prefill pass
    {"question": f"Where does the {thing} stand now?", "documents": [f"In this story, the {thing} was moved to {city}."]}
    for thing, city in [("Eiffel Tower", "Rome"), ("Colosseum", "Madrid"), ("Big Ben", "Oslo"), ("Parthenon", "Lima"),
                        ("Alhambra", "Kyoto"), ("Atomium", "Cairo")]
]


def test_pack_runs_packs_short_similar_runs_and_keeps_long_different_ones_apart():
    short = [([i], [list(range(30 + i))]) for i in range(6)]
    assert len(pack_runs(short)) == 1, "six one-prompt runs within a few tokens of each other: one pass"
    long = [([i], [list(range(200 * (i + 1)))]) for i in range(3)]
    assert len(pack_runs(long)) == 3, "padding 200+ tokens costs more than a pass"
    pairs = [([2 * i, 2 * i + 1], [list(range(40 + i)), list(range(40 + i)) + [7, 8]]) for i in range(4)]
    assert [len(p) for p in pack_runs(pairs + short)] == [6, 4], "runs of one size pack together"
    assert all(len(p[0][1]) == len(r[1]) for p in pack_runs(pairs + short) for r in p)
    assert PAD_BUDGET > 0


@pytest.mark.parametrize("method", ["grounded_pmi_gated", "cad", "grounded"])
def test_packed_prefill_of_many_short_prompts_equals_one_by_one(decoder, method):
    """The CPU prefill packs the question-only prompts of all six questions into one pass and their
    document runs into few (the system turn they all start with runs once per pack); every answer and
    trace equals its one-at-a-time decode."""
    cfg = DecodingConfig(method=method, max_new_tokens=12, **ENGINE_ONLY)
    mt = get_method(method)
    prompts = [ids for r in SHORT for ids in decoder.prepare(r["question"], r["documents"], None, cfg, mt).token_ids]
    runs = [([0], run) for q in range(len(SHORT)) for run in prefix_runs(prompts[q * mt.streams:(q + 1) * mt.streams])]
    assert len(pack_runs(runs)) < len(runs) / 2, "the short prompts must share passes"
    batched = decoder.generate_batch(SHORT, cfg)
    for request, b in zip(SHORT, batched):
        single = decoder.generate(request["question"], request["documents"], config=cfg)
        assert b.token_ids == single.token_ids
        for x, y in zip(b.trace, single.trace):
            assert abs(x.q - y.q) < 1e-4 and abs(x.rho - y.rho) < 1e-3


LEAVING = [  # answers of very different lengths: the short ones end (EOS or the stop string) long before the last
    {"question": "What is the capital of France? Answer in one word.", "documents": DOCUMENTS[2:]},
    {"question": QUESTION, "documents": DOCUMENTS, "scores": [0.8, 0.4, 0.3]},
    {"question": "When was the tower moved? Answer with the year only.", "documents": DOCUMENTS[:1]},
]


# The per-question state of every method (its ``needs``): the default's copy state, word breaks and end ids; the
# question tokens and spans of pmi_words_memory_extract (the pmi_words ablations read a subset of these).
@pytest.mark.parametrize("method,sampled", [("grounded_pmi_gated", False), ("grounded_pmi_anchored", False),
                                            ("grounded_contrast", False), ("pmi_words_memory_extract", False),
                                            ("knnlm", False), ("dola", False), ("grounded", True)])
def test_finished_questions_leave_the_batch_and_change_nothing(decoder, method, sampled):
    """A batch whose questions finish at different steps: finished rows are dropped from the decode state
    (the engine's ``finished`` hook), and every answer still equals its one-at-a-time decode — also with
    per-question sampling generators, kNN-LM's per-question datastores, the anchored method's per-question
    document tokens and DoLa's layer taps."""
    settings = {"method": method, "max_new_tokens": 48, "stop": ["\n\n"], "support_threshold": None,  # no abstention
                **ENGINE_ONLY}
    if sampled:
        settings.update(temperature=0.8, top_k=20, seed=11)
    cfg = DecodingConfig(**settings)
    mt = get_method(method)
    prepared = [decoder.prepare(r["question"], r["documents"], r.get("scores"), cfg, mt) for r in LEAVING]
    sizes = []
    for running in driver.run(decoder.lm, prepared, cfg, mt):  # the batched decode that the results below come from
        sizes.append(len(running) - sum(r.finish is not None for r in running))
    assert sizes[0] == len(LEAVING) and min(sizes) < len(LEAVING) and len(set(sizes)) > 1, (
        f"the questions should finish at different steps: {sizes}")
    for request, b in zip(LEAVING, running):
        single = decoder.generate(request["question"], request["documents"], scores=request.get("scores"), config=cfg)
        assert b.tokens == single.token_ids and b.finish == single.finish_reason
        for x, y in zip(b.trace, single.trace):
            assert abs(x.q - y.q) < 1e-4 and abs(x.rho - y.rho) < 1e-3


def test_finished_rows_are_removed_from_the_decode_state(decoder):
    """The engine keeps decoding only the questions still running: its steps shrink once one finishes."""
    cfg = DecodingConfig(max_new_tokens=48)
    mt = get_method(cfg.method)
    prepared = [decoder.prepare(r["question"], r["documents"], r.get("scores"), cfg, mt) for r in LEAVING]
    prompts = [ids for r in prepared for ids in r.token_ids]
    done = [False] * len(prepared)
    seen = []
    for step in decode(decoder.model, mt, prompts, decoder.row_inputs(prepared, mt, cfg), cfg, decoder.pad_id,
                       finished=lambda: done, end_ids=decoder.eos_ids):
        seen.append(list(step.questions))
        assert step.tokens.shape[0] == len(step.questions)
        for q, t in zip(step.questions, step.tokens.tolist()):
            done[q] = done[q] or t in decoder.eos_ids
    assert seen[0] == [0, 1, 2] and len(seen[-1]) == 1, f"rows per step: {[len(s) for s in seen]}"
    assert all(set(b) <= set(a) for a, b in pairwise(seen)), "a finished question never comes back"


def test_an_anchored_method_needs_each_questions_document_tokens(decoder):
    """Called at engine level without them, the anchored default says what is missing instead of decoding unanchored
    (or with a per-token gate)."""
    cfg = DecodingConfig(max_new_tokens=2)
    mt = get_method(cfg.method)
    assert {"document_tokens", "copies", "end_ids"} <= mt.needs, "the default is anchored, whole-word, with the end rule"
    req = decoder.prepare(QUESTION, DOCUMENTS, None, cfg, mt)
    full = decoder.row_inputs([req], mt, cfg)
    with pytest.raises(ValueError, match="document tokens per question"):
        next(decode(decoder.model, mt, req.token_ids, RowInputs(trust=[req.trust]), cfg, decoder.pad_id))
    with pytest.raises(ValueError, match="one copy state per question"):  # and which passage words it copies
        next(decode(decoder.model, mt, req.token_ids, replace(full, copies=None), cfg, decoder.pad_id))
    with pytest.raises(ValueError, match="end-of-answer token ids"):  # and where its answer may end
        next(decode(decoder.model, mt, req.token_ids, full, cfg, decoder.pad_id))


def test_stop_strings_and_eos_end_generation(decoder):
    # without abstention: this answer rests on the Paris passage, which is not about the question, and is withheld
    free = decoder.generate(QUESTION, DOCUMENTS, max_new_tokens=48, support_threshold=None)
    assert free.finish_reason == "eos"
    assert free.trace[-1].token_id in decoder.eos_ids
    words = free.text.split()
    stop = " ".join(words[2:4])  # a multi-token stop string from inside the answer
    stopped = decoder.generate(QUESTION, DOCUMENTS, max_new_tokens=48, stop=[stop], support_threshold=None)
    assert stopped.finish_reason == "stop"
    assert stop not in stopped.text and free.text.startswith(stopped.text)
    short = decoder.generate(QUESTION, DOCUMENTS, max_new_tokens=3, support_threshold=None)
    assert short.finish_reason == "length" and len(short.token_ids) == 3


def test_seeds_reproduce_sampling_and_batching_keeps_each_seed(decoder):
    cfg = DecodingConfig(temperature=1.0, top_k=50, top_p=0.95, min_p=0.02, seed=7, max_new_tokens=16)
    a = decoder.generate(QUESTION, DOCUMENTS, config=cfg)
    b = decoder.generate(QUESTION, DOCUMENTS, config=cfg)
    assert a.token_ids == b.token_ids
    batch = decoder.generate_batch([{"question": QUESTION, "documents": DOCUMENTS}] * 2, config=cfg)
    assert batch[0].token_ids == batch[1].token_ids == a.token_ids
    others = {tuple(decoder.generate(QUESTION, DOCUMENTS, config=cfg.model_copy(update={"seed": s})).token_ids) for s in range(1, 6)}
    assert len(others) > 1, "different seeds should sample different answers"


def test_sampling_transforms_apply_after_fusion(decoder):
    result = decoder.generate(QUESTION, DOCUMENTS, temperature=1.0, top_k=1, seed=3, max_new_tokens=N)
    greedy = decoder.generate(QUESTION, DOCUMENTS, max_new_tokens=N)
    assert result.token_ids == greedy.token_ids, "top_k=1 on the fused distribution is greedy on q"


def test_stream_yields_the_generate_text(decoder):
    held = list(decoder.stream(QUESTION, DOCUMENTS, max_new_tokens=N))  # abstention on: shown once it is not withheld
    assert "".join(held) == decoder.generate(QUESTION, DOCUMENTS, max_new_tokens=N).text
    pieces = list(decoder.stream(QUESTION, DOCUMENTS, max_new_tokens=N, support_threshold=None))
    assert len(pieces) > 3
    assert "".join(pieces) == decoder.generate(QUESTION, DOCUMENTS, max_new_tokens=N, support_threshold=None).text


def test_trace_and_result_fields(decoder):
    r = decoder.generate(QUESTION, DOCUMENTS, scores=[0.9, 0.2, 0.1], max_new_tokens=N, gamma=10, b=0.5, method="grounded")
    assert r.trust_source == "scores" and 0.5 < r.trust < 1
    for s in r.trace:
        assert 0 <= s.conflict <= 1
        assert abs(s.rho - 4.0 * r.trust * s.conflict) < 1e-4
        assert abs(s.eta - s.rho / (1 + s.rho)) < 1e-6
        assert 0 < s.q <= 1 and 0 < s.p_full <= 1 and 0 < s.p_ref <= 1
    no_scores = decoder.generate(QUESTION, DOCUMENTS, max_new_tokens=2)
    assert no_scores.trust == 1.0 and no_scores.trust_source.startswith("no scores")


@pytest.mark.parametrize("method", ["dola", "knnlm"])
def test_hidden_state_methods_stream_the_same_when_each_step_runs_in_a_new_thread(decoder, method):
    """LangChain's default _astream resumes the generator in executor threads, one step each."""
    # without abstention, so that the stream yields (and resumes) at every token
    expected = decoder.generate(QUESTION, DOCUMENTS, method=method, max_new_tokens=N, support_threshold=None).text
    pieces = decoder.stream(QUESTION, DOCUMENTS, method=method, max_new_tokens=N, support_threshold=None)
    text, pools = "", []
    while True:  # every step in a new thread, all kept alive so no thread id is reused
        pools.append(ThreadPoolExecutor(max_workers=1))
        piece = pools[-1].submit(next, pieces, None).result()
        if piece is None:
            break
        text += piece
    for pool in pools:
        pool.shutdown()
    assert len(pools) > 3 and text.strip() == expected
