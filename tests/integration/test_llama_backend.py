"""The engine on llama.cpp (grounded_rag.backends), on the packaged GGUF files and the real llama.cpp: what is exact
(standard decoding equals llama.cpp's own greedy generation; rho = 0 is standard; the fusion is the torch engine's
on llama.cpp's logits) and what holds within a tolerance where llama.cpp's batched kernels round otherwise."""

from __future__ import annotations

import shutil
import subprocess
import sys
import threading

import pytest
import torch

from ..conftest import need_llama_cpp  # noqa: E402

need_llama_cpp()

from grounded_rag import ContextWindowError, DecodingConfig, GroundedDecoder, InputError, ModelLoadError  # noqa: E402
from grounded_rag.backends import llama_engine  # noqa: E402
from grounded_rag.llama_bench import own_generation, reference_llama  # noqa: E402
from grounded_rag.config import DEFAULT_METHOD  # noqa: E402
from grounded_rag.engine import RowInputs, Rows, decode, fuse_step, score_continuation, step_masks  # noqa: E402
from grounded_rag.methods import get_method  # noqa: E402
from grounded_rag.models import gguf_source  # noqa: E402
from grounded_rag.prompts import encode, plain_layout  # noqa: E402
from grounded_rag.scoring import continuation_log_probs  # noqa: E402

from ..conftest import DOCUMENTS, QUESTION  # noqa: E402

N = 24
QUESTIONS = [(QUESTION, DOCUMENTS), ("Who wrote Hamlet?", ["Hamlet is a tragedy written by William Shakespeare."]),
             ("What is the boiling point of water?", ["At sea level water boils at 100 degrees Celsius."])]
PLAIN = dict(relevance_margin=None, attribute=False, screen_instructions=False)  # the decode alone


@pytest.fixture(scope="module")
def llama() -> GroundedDecoder:
    return GroundedDecoder.from_pretrained(backend="llama_cpp")


def stream_logits(decoder: GroundedDecoder, prompt: list[int]) -> torch.Tensor:
    """llama.cpp's next-token logits after one prompt, decoded alone."""
    with decoder.model.context(1, len(prompt)) as ctx:
        return llama_engine._prefill(ctx, [prompt])


def test_loads_with_what_the_decoder_reads(llama):
    assert llama.model.backend == "llama_cpp" and llama.model.device.type == "cpu"
    assert llama.context_window == 8192 and llama.eos_ids == {2}
    assert llama.model.vocab_size == len(llama.tokenizer)


@pytest.mark.parametrize("alias", ["smollm2-135m-instruct", "gemma3-270m"])
def test_the_hf_tokenizer_cuts_text_as_llama_cpp_does(alias):
    decoder = GroundedDecoder.from_pretrained(alias, backend="llama_cpp")
    texts = [QUESTION, *DOCUMENTS, "Größe: 3,5 km²; naïve café — «quoted» 😀 tabs\tand\nnewlines  double  spaces",
             "def f(x):\n    return x ** 2  # code"]
    for text in texts:
        assert decoder.tokenizer(text, add_special_tokens=False)["input_ids"] == decoder.model.tokenize(text, False)
    prompt = decoder.generate(QUESTION, DOCUMENTS, max_new_tokens=1, **PLAIN).prompts.full  # a chat turn's markers
    plain = plain_layout(decoder.tokenizer)  # no chat template (Gemma 3's base model): the tokenizer adds its BOS
    assert encode(decoder.tokenizer, prompt) == decoder.model.tokenize(prompt, special=True, add_special=plain)


def test_an_answer_on_llama_cpp_never_imports_transformers_modeling():
    """transformers' model classes (2 s and about 120 MB to import) are the torch engine's: an answer on llama.cpp
    reads only its tokenizer, so a user's first answer does not wait on them."""
    code = ("import sys; from grounded_rag import GroundedDecoder; "
            "d = GroundedDecoder.from_pretrained(backend='llama_cpp'); "
            f"print(d.generate({QUESTION!r}, {DOCUMENTS!r}).text); "
            "print(sorted(m for m in sys.modules if m in ('transformers.modeling_utils', 'torch.distributed.tensor')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    answer, modules = done.stdout.strip().splitlines()[-2:]
    assert answer and modules == "[]", done.stdout


def test_standard_decoding_equals_llama_cpps_own_greedy_generation(llama):
    prompt = encode(llama.tokenizer, llama.generate(QUESTION, DOCUMENTS, method="standard", max_new_tokens=1,
                                                    **PLAIN).prompts.full)
    reference = reference_llama(llama.model, 1024)
    _, _, theirs = own_generation(reference, prompt, N)
    config = DecodingConfig(method="standard", max_new_tokens=N)
    ours = [int(s.tokens[0]) for s in decode(llama.model, get_method("standard"), [prompt], RowInputs(trust=[1.0]),
                                             config, llama.pad_id)]
    assert ours == theirs


@pytest.mark.parametrize("method", ["grounded", "grounded_contrast"])
def test_rho_zero_is_standard_decoding(llama, method):
    standard = llama.generate(QUESTION, DOCUMENTS, method="standard", max_new_tokens=N, **PLAIN)
    result = llama.generate(QUESTION, DOCUMENTS, method=method, rho_max=0.0, max_new_tokens=N, **PLAIN)
    if method == "grounded":
        assert result.token_ids == standard.token_ids
        assert all(step.q == step.p_full for step in result.trace), "rho = 0 must give q = p_full bit for bit"
    else:  # the default's post-fusion steps (end rule, whole words) still act: the first step's p_full is standard's,
        # within llama.cpp's rounding of a batch of three streams against one (docs/backends.md, "Exactness")
        assert result.trace[0].p_full == pytest.approx(standard.trace[0].p_full, abs=2e-2)


def test_the_first_fused_step_is_the_torch_fusion_of_the_streams_logits(llama):
    """The default's first step on llama.cpp against its rule applied, in torch, to each stream's logits decoded
    alone: the same code, and logits within llama.cpp's batched rounding of each other."""
    method, config = get_method(DEFAULT_METHOD), DecodingConfig(max_new_tokens=1, **PLAIN)
    request = llama.prepare(QUESTION, DOCUMENTS, None, config, method)
    step = next(decode(llama.model, method, request.token_ids, llama.row_inputs([request], method, config), config,
                       llama.pad_id, end_ids=llama.eos_ids))
    logits = torch.cat([stream_logits(llama, p) for p in request.token_ids])
    rows = Rows.start(method, llama.row_inputs([request], method, config), config, logits.shape[-1], logits.device)
    ends, pieces = step_masks(method, llama.eos_ids, rows.copies, logits.shape[-1], logits.device)
    _, _, fused = fuse_step(method, logits, None, rows, config, False, ends, pieces)  # type: ignore[arg-type]
    assert int(step.tokens[0]) == int(fused.log_q[0].argmax())
    top = fused.log_q[0].topk(20).indices
    torch.testing.assert_close(step.fusion.log_q[0, top], fused.log_q[0, top], atol=2e-2, rtol=0)


DRIFT = pytest.mark.xfail(strict=True, reason=(
    "issue 72, open: a continuation prefilled at once (and pairs scored together in one context) rounds otherwise "
    "in llama.cpp than the same tokens decoded one at a time, by up to 0.12 in probability on SmolLM2 Q4_1 (flash "
    "attention off). Until the scoring pass is made to read what the decode read, its figures can part from the "
    "decode's own probabilities"))


@pytest.mark.parametrize("method", ["standard", DEFAULT_METHOD])
def test_batched_equals_one_by_one(llama, method):
    """Three questions in one decode against each alone: bit for bit. On the CPU each question decodes in a llama.cpp
    context of its own (llama_engine.questions_per_context), so its logits do not depend on what is decoded beside
    it; the answers end at different steps, so a finished question leaves the batch while the others go on."""
    requests = [{"question": q, "documents": d} for q, d in QUESTIONS]
    batched = llama.generate_batch(requests, method=method, max_new_tokens=16, **PLAIN)
    alone = [llama.generate_batch([r], method=method, max_new_tokens=16, **PLAIN)[0] for r in requests]
    assert len({len(b.token_ids) for b in batched}) > 1, "the answers should end at different steps"
    for b, a in zip(batched, alone):
        assert b.token_ids == a.token_ids
        assert [s.p_full for s in b.trace] == [s.p_full for s in a.trace]
        assert [s.q for s in b.trace] == [s.q for s in a.trace]


def test_a_batch_larger_than_a_part_decodes_in_parts_as_one(llama, monkeypatch):
    """More questions than a decode holds contexts for at once (CPU_CONTEXTS) decode part after part, each step
    naming the batch's questions: the answers are those of one part."""
    requests = [{"question": q, "documents": d} for q, d in QUESTIONS]
    whole = llama.generate_batch(requests, method="standard", max_new_tokens=8, **PLAIN)
    monkeypatch.setattr(llama_engine, "CPU_CONTEXTS", 2)
    parts = llama.generate_batch(requests, method="standard", max_new_tokens=8, **PLAIN)
    assert [r.token_ids for r in parts] == [r.token_ids for r in whole]


def test_questions_sharing_a_context_decode_as_on_a_gpu(llama, monkeypatch):
    """The layout a GPU build gets (every question in one context, questions_per_context): the same first tokens,
    their probabilities within what a shared cache moves them (up to 0.07 on SmolLM2 Q4_1; here 0.46 -> 0.43: it is
    not batch-invariant, the CPU's layout is)."""
    requests = [{"question": q, "documents": d} for q, d in QUESTIONS]
    apart = llama.generate_batch(requests, method=DEFAULT_METHOD, max_new_tokens=2, **PLAIN)
    monkeypatch.setattr(llama_engine, "questions_per_context", lambda lm, questions: questions)
    shared = llama.generate_batch(requests, method=DEFAULT_METHOD, max_new_tokens=2, **PLAIN)
    for a, s in zip(apart, shared):
        assert s.token_ids[0] == a.token_ids[0]
        assert s.trace[0].p_full == pytest.approx(a.trace[0].p_full, abs=7e-2)


@DRIFT
def test_scoring_equals_the_decodes_own_probabilities(llama):
    """The relevance filter's and attribution's scoring pass reads what the decode read: log p_full of the answer's
    tokens, batched with other pairs sharing the prompt."""
    result = llama.generate(QUESTION, DOCUMENTS, method="standard", max_new_tokens=12, **PLAIN)
    prompt = encode(llama.tokenizer, result.prompts.full)
    answer = [s.token_id for s in result.trace]
    other = encode(llama.tokenizer, "Paris.")
    scored = continuation_log_probs(llama.model, [(prompt, answer), (prompt, other), (prompt[:-3], answer)],
                                    llama.pad_id)
    decoded = torch.tensor([s.p_full for s in result.trace]).log()
    torch.testing.assert_close(scored[0], decoded, atol=2e-2, rtol=0)
    alone = continuation_log_probs(llama.model, [(prompt, other)], llama.pad_id)[0]
    torch.testing.assert_close(scored[1], alone, atol=2e-2, rtol=0)


def test_score_continuation_sums_the_fused_log_q(llama):
    method, config = get_method("grounded"), DecodingConfig(method="grounded", max_new_tokens=6, **PLAIN)
    request = llama.prepare(QUESTION, DOCUMENTS, None, config, method)
    steps = list(decode(llama.model, method, request.token_ids, llama.row_inputs([request], method, config), config,
                        llama.pad_id))
    forced = [int(s.tokens[0]) for s in steps]
    total = score_continuation(llama.model, method, request.token_ids, llama.row_inputs([request], method, config),
                               config, llama.pad_id, forced)
    assert total == pytest.approx(sum(float(s.q[0].log()) for s in steps), abs=5e-2)


def test_interleaved_decodes_each_get_their_own_context(llama):
    """A server pauses one decode between tokens and runs another: each holds a KV cache of its own."""
    alone = [llama.generate(q, d, max_new_tokens=10, **PLAIN).text for q, d in QUESTIONS[:2]]
    first, second = (llama.stream_with_result(q, d, max_new_tokens=10, **PLAIN) for q, d in QUESTIONS[:2])
    results: dict[int, str] = {}
    for pair in zip(first, second):  # one token of each in turn
        for i, (_, result) in enumerate(pair):
            if result is not None:
                results[i] = result.text
    for rest, i in ((first, 0), (second, 1)):
        for _, result in rest:
            if result is not None:
                results[i] = result.text
    assert [results[0], results[1]] == alone


def test_threads_share_the_model(llama):
    expected = llama.generate(QUESTION, DOCUMENTS, max_new_tokens=8, **PLAIN).text
    out: list[str] = []
    threads = [threading.Thread(target=lambda: out.append(llama.generate(QUESTION, DOCUMENTS, max_new_tokens=8,
                                                                         **PLAIN).text)) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert out == [expected] * 3


@pytest.mark.parametrize("method", ["dola", "knnlm"])
def test_hidden_state_methods_are_refused_with_what_to_do(llama, method):
    with pytest.raises(InputError, match="backend='torch'"):
        llama.generate(QUESTION, DOCUMENTS, method=method, max_new_tokens=2)


def test_a_prompt_longer_than_the_models_context_is_refused_naming_the_file(llama):
    method, config = get_method("standard"), DecodingConfig(method="standard", max_new_tokens=4)
    with pytest.raises(ContextWindowError, match=r"SmolLM2-135M-Instruct\.Q4_1\.gguf"):
        list(decode(llama.model, method, [[1] * llama.context_window], RowInputs(trust=[1.0]), config, llama.pad_id))
    with pytest.raises(ContextWindowError):  # and through the decoder, as on torch
        llama.generate(QUESTION, ["word " * 9000], max_new_tokens=4, overflow="error")


def test_a_file_cut_short_is_refused_naming_it(tmp_path):
    path, _, _ = gguf_source()
    cut = tmp_path / "cut.gguf"
    with path.open("rb") as source, cut.open("wb") as target:
        target.write(source.read(path.stat().st_size // 2))
    with pytest.raises(ModelLoadError, match="cut.gguf"):
        GroundedDecoder.from_pretrained(str(cut), backend="llama_cpp")


def test_an_architecture_llama_cpp_does_not_know_is_refused_naming_the_file(tmp_path):
    import gguf

    path = tmp_path / "strange.gguf"
    writer = gguf.GGUFWriter(str(path), "strangearch")
    writer.add_block_count(1)
    writer.add_context_length(128)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    with pytest.raises(ModelLoadError, match="strange.gguf"):
        GroundedDecoder.from_pretrained(str(path), backend="llama_cpp")


def test_not_a_gguf_file_on_llama_cpp_is_refused(tmp_path):
    with pytest.raises(ModelLoadError, match="GGUF"):
        GroundedDecoder.from_pretrained(str(tmp_path), backend="llama_cpp")


def test_a_users_gguf_file_loads_without_conversion(tmp_path, monkeypatch):
    """Any local GGUF: llama.cpp reads it where it is, and only its tokenizer is cached (no fp32 copy)."""
    monkeypatch.setenv("GROUNDED_RAG_CACHE", str(tmp_path / "cache"))
    path, _, _ = gguf_source()
    mine = tmp_path / "mine.gguf"
    shutil.copyfile(path, mine)
    decoder = GroundedDecoder.from_pretrained(str(mine), backend="llama_cpp")
    assert decoder.name == "mine" and decoder.generate(QUESTION, DOCUMENTS, max_new_tokens=4, **PLAIN).text
    assert not (tmp_path / "cache" / "models").exists() and (tmp_path / "cache" / "tokenizers").is_dir()



def test_the_bench_reads_the_ask_process_peak_not_its_own():
    """bench's ask figure is a child's peak memory: read from this large process, a child's ru_maxrss carries this
    process's peak over its exec; read through the bench's small parent, it is the child's own."""
    import os
    import subprocess
    import sys

    from grounded_rag.llama_bench import _TIMED_CHILD

    ballast = bytearray(600 * 2**20)
    ballast[::4096] = b"\1" * len(ballast[::4096])  # resident here
    tiny = [sys.executable, "-c", "pass"]
    direct = subprocess.Popen(tiny)
    usage = os.wait4(direct.pid, 0)[2]
    _, peak_kb = (float(v) for v in subprocess.run([sys.executable, "-c", _TIMED_CHILD, *tiny],
                                                    capture_output=True, text=True, check=True).stdout.split())
    if sys.platform == "linux":  # the pitfall this guards against (Linux keeps the larger high-water mark)
        assert usage.ru_maxrss / 1024 > 500
    assert peak_kb / 1024 < 100  # the launcher's seconds are the bench's figure, not this test's
    del ballast


def test_the_step_cost_study_requantizes_with_llama_cpps_own_quantizer(tmp_path, monkeypatch):
    """cookbook/research/llama_step_cost.py --requantize: a copy of the packaged file in a type llama.cpp has batched
    x86 kernels for, which loads and answers (docs/backends.md compares its step costs with the packaged type's)."""
    from ..unit.cookbook import research

    monkeypatch.setenv("GROUNDED_RAG_CACHE", str(tmp_path / "cache"))
    copy = research("llama_step_cost").requantized(None, "Q4_0", str(tmp_path))
    decoder = GroundedDecoder.from_pretrained(copy, backend="llama_cpp")
    assert "Q4_0" in decoder.model.description and "Q4_0" not in gguf_source()[0].name
    assert decoder.generate(QUESTION, DOCUMENTS, max_new_tokens=4, **PLAIN).text
