"""The decode loop (paper Algorithm 1), gpt-fast style: small flat functions, state passed explicitly.

``prefill`` (:mod:`grounded_rag.prefill`) runs every stream's prompt of every question into one KV cache; each step
then fuses the streams' next-token distributions with the method's rule and post-fusion steps
(:meth:`~grounded_rag.methods.Method.step`), samples one token per question and feeds it to every stream of that
question. Per-question state (trust, sampling generators, copy and span trackers, document-token masks, trust
declarations) has one owner, :class:`~grounded_rag.rows.Rows`, which selects and advances it as a whole.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING

import torch
from transformers import LogitsProcessorList

from .backend_choice import engine_on_llama, on_llama
from .baselines import knn_log_probs
from .config import DecodingConfig
from .fusion import log_probs
from .graphs import GraphPool, StaticStep
from .methods import EXTRACTIVE, Method, StepFusion, StepInputs
from .prefill import DecodeState, forward, prefill
from .rows import RowInputs, Rows, vocab_mask, word_masks
from .sampling import build_warpers, sample
from .spans import CopyState
from .taps import LayerTaps, dola_candidates

if TYPE_CHECKING:  # transformers' modeling (2 s, 120 MB to import) is not needed on llama.cpp
    from transformers import PreTrainedModel


@dataclass
class Step:
    """One decoding step for every question still in the batch."""

    tokens: torch.Tensor  # [n] chosen token ids
    fusion: StepFusion
    p_full: torch.Tensor  # [n] p_full(y_t)
    p_ref: torch.Tensor | None  # [n] p_ref(y_t)
    q: torch.Tensor  # [n] q(y_t)
    questions: list[int]  # [n] which question of the batch each row is (all of them unless some finished)

    def take(self, index: torch.Tensor, questions: list[int]) -> Step:
        """The rows ``index``, every tensor copied (a graph's outputs are overwritten by its next replay)."""
        def rows(x):
            return None if x is None else x[index]

        fusion = StepFusion(**{f.name: rows(getattr(self.fusion, f.name)) for f in fields(StepFusion)})
        return Step(rows(self.tokens), fusion, rows(self.p_full), rows(self.p_ref), rows(self.q), questions)


def open_taps(model: PreTrainedModel, method: Method, config: DecodingConfig) -> LayerTaps:
    """Hidden-state taps the method needs: DoLa's premature candidates, kNN-LM's final state, or none."""
    layers = dola_candidates(model, config.dola_layers) if method.signal == "early_layers" else []
    return LayerTaps(model, layers, final=method.signal == "datastore")


def step_masks(method: Method, end_ids: Collection[int] | None, copies: Sequence[CopyState] | None, vocab: int,
               device: torch.device) -> tuple[torch.Tensor | None, torch.Tensor | None]:
    """[V] bool masks fixed for a whole decode: the end-of-answer tokens (for the end rule) and the tokens that
    continue a word (:func:`~grounded_rag.spans.word_edges`, for whole-word finishing)."""
    ends = pieces = None
    if "end_ids" in method.needs:
        if not end_ids:
            raise ValueError(f"{method.name} needs the end-of-answer token ids (end_ids, e.g. GroundedDecoder.eos_ids)")
        ends = vocab_mask(frozenset(end_ids), vocab, device)
    if "word_breaks" in method.needs and copies:
        pieces = vocab_mask(copies[0].pieces, vocab, device)
    return ends, pieces


def reference(method: Method, logp: torch.Tensor, taps: LayerTaps, rows: Rows,
              config: DecodingConfig) -> torch.Tensor | None:
    """The method's reference: its other streams ([rows, V], or [rows, k, V] for k of them), DoLa's premature
    layers or kNN-LM's datastore distribution; None for standard decoding."""
    if method.streams > 1:
        return logp[:, 1] if method.streams == 2 else logp[:, 1:]
    if method.signal == "early_layers":
        return taps.premature_log_probs()
    if method.signal == "datastore":
        return knn_log_probs(taps.values["final"], rows.datastores or [], config.knn_k, config.knn_temperature,
                             logp[:, 0])
    return None


def fuse_step(method: Method, logits: torch.Tensor, taps: LayerTaps, rows: Rows, config: DecodingConfig,
              begun: bool, ends: torch.Tensor | None = None,
              pieces: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor | None, StepFusion]:
    """p_full and the method's reference, fused in fp32 by its rule and post-fusion steps (and the extractive mask
    where the rows have spans). Returns (log p_full, the reference the trace reports, the fused step)."""
    logp = log_probs(logits).view(rows.trust.shape[0], method.streams, -1)
    lp_full, lp_ref = logp[:, 0], reference(method, logp, taps, rows, config)
    fused = method.step(rows.inputs(lp_full, lp_ref, config, begun, ends, pieces),
                        extra=(EXTRACTIVE,) if rows.spans is not None and config.extractive else ())
    return lp_full, fused.reference if fused.reference is not None else lp_ref, fused


def pick(method: Method, logits: torch.Tensor, taps: LayerTaps | None, rows: Rows | StepTail, config: DecodingConfig,
         begun: bool, ends: torch.Tensor | None, pieces: torch.Tensor | None, warpers: LogitsProcessorList,
         generators: list[torch.Generator] | None) -> Step:
    """One step's decision from the streams' logits: the fused step (:func:`fuse_step`), the token it samples per
    row (matched truncation, then y_t) and the values the trace reads. The eager engine calls it after each forward
    pass; a graph's :class:`StepTail` captures it."""
    lp_full, lp_ref, fused = fuse_step(method, logits, taps, rows, config, begun, ends, pieces)  # type: ignore[arg-type]
    tokens = sample(fused.log_q, warpers, generators)
    at = torch.arange(tokens.shape[0], device=tokens.device)
    return Step(tokens=tokens, fusion=fused, p_full=lp_full[at, tokens].exp(),
                p_ref=None if lp_ref is None else lp_ref[at, tokens].exp(), q=fused.log_q[at, tokens].exp(),
                questions=[])


# settings that shape a request's prompt, length, trust or report, which no fuse rule or post-fusion step reads
# (tests/unit/test_fuzz.py holds the rules to that)
NOT_READ_BY_RULES = ("max_new_tokens", "stop", "seed", "template", "system_prompt", "answer_prefix", "extractive",
                     "relevance_margin", "screen_instructions", "screen_classifier", "attribute", "support_threshold",
                     "abstention_text", "quote_threshold", "insist_beta", "overflow", "score_space", "tau_r", "gamma", "b")


class StepTail:
    """The rest of a greedy step after the forward pass (:func:`pick`: fusion, post-fusion steps, the argmax, the
    trace's values) over per-question buffers at fixed addresses: a CUDA graph captures it with the forward, so a
    step is one replay instead of a launch per fusion op. It reads the same :class:`StepInputs` as :class:`Rows`
    builds; the buffers are loaded once per decode (:meth:`load`) and the copy trackers' masks before each step
    (:meth:`refresh`). Slots are the batch's questions; a finished one's slot decodes on, unread."""

    def __init__(self, method: Method, config: DecodingConfig, questions: int, vocab: int,
                 device: torch.device) -> None:
        def zeros(*shape: int, dtype: torch.dtype = torch.bool) -> torch.Tensor:
            return torch.zeros(*shape, dtype=dtype, device=device)

        needs, self.method, self.config, self.spans = method.needs, method, config, None
        self.trust = zeros(questions, dtype=torch.float32)
        self.doc_tokens = zeros(questions, vocab) if "document_tokens" in needs else None
        self.question_tokens = zeros(questions, vocab) if "question_tokens" in needs else None
        self.trusted = zeros(questions) if "trusted" in needs else None  # no row trusted: _trusted changes nothing
        self.words = zeros(questions, vocab) if "copies" in needs else None
        self.inside = zeros(questions) if "copies" in needs and "word_breaks" in needs else None
        self.ends = zeros(vocab) if "end_ids" in needs else None
        self.pieces = zeros(vocab) if self.inside is not None else None

    @staticmethod
    def applies(method: Method, config: DecodingConfig, inputs: RowInputs) -> bool:
        """Greedy (a seeded draw per row needs its generator), no hooks, no extractive spans (their mask is built
        from Python sets each step)."""
        return config.greedy and method.signal == "none" and inputs.spans is None

    @staticmethod
    def key(method: Method, config: DecodingConfig) -> tuple[Method, str]:
        """What a captured tail bakes in: the method (itself, not its name: a caller may build one) and the settings
        a rule may read; requests that differ only in how their prompt, answer or trust are made share a graph."""
        return method, config.model_dump_json(exclude=set(NOT_READ_BY_RULES))

    @torch.inference_mode()  # the buffers may have been made by a decode in inference mode, or not
    def load(self, rows: Rows, ends: torch.Tensor | None, pieces: torch.Tensor | None) -> StepTail:
        self.trust.copy_(rows.trust)
        for buffer, value in ((self.doc_tokens, rows.doc_tokens), (self.trusted, rows.trusted), (self.ends, ends),
                              (self.pieces, pieces), (self.question_tokens, rows.question_tokens)):
            if buffer is not None:
                buffer.copy_(value) if value is not None else buffer.zero_()
        return self

    @torch.inference_mode()
    def refresh(self, rows: Rows) -> None:
        """The live questions' copied-word masks (:func:`word_masks`, :func:`word_breaks`) into their slots."""
        if self.words is None or rows.copies is None:
            return
        slots = torch.tensor(rows.questions, device=self.words.device)
        self.words.zero_()
        self.words[slots] = word_masks(rows.copies, self.words.shape[1], self.words.device)
        if self.inside is not None:
            self.inside.zero_()
            self.inside[slots] = torch.tensor([c.inside for c in rows.copies], device=self.inside.device)

    def inputs(self, lp_full: torch.Tensor, lp_ref: torch.Tensor | None, config: DecodingConfig, begun: bool,
               ends: torch.Tensor | None, pieces: torch.Tensor | None) -> StepInputs:
        """:meth:`Rows.inputs` over the buffers."""
        return StepInputs(
            lp_full, lp_ref, self.trust, config, begun=begun, doc_tokens=self.doc_tokens, words=self.words,
            breaks=None if self.inside is None else self.inside.unsqueeze(-1) & ~self.pieces,  # type: ignore[operator]
            ends=ends, trusted=self.trusted, spans=None, question_tokens=self.question_tokens,
        )

    def __call__(self, logits: torch.Tensor) -> Step:
        return pick(self.method, logits, None, self, self.config, True, self.ends, self.pieces, LogitsProcessorList(),
                    None)


@torch.inference_mode()
def decode_one_token(model: PreTrainedModel, state: DecodeState, tokens: torch.Tensor) -> torch.Tensor:
    """Append one token per row and return the next logits [rows, V]."""
    next_pos = (state.position_ids.max(dim=1).values + 1).unsqueeze(1)
    ones = torch.ones_like(tokens).unsqueeze(1)
    return forward(model, state, tokens.unsqueeze(1), ones, next_pos)


def keep_questions(state: DecodeState, keep: Sequence[int], streams: int) -> None:
    """Drop finished questions' rows from the state (in place), so later steps cost only the rest."""
    rows = torch.tensor([q * streams + s for q in keep for s in range(streams)], device=state.input_ids.device)
    if state.cache is not None:
        state.cache.batch_select_indices(rows)
    state.input_ids, state.attention_mask, state.position_ids = (
        state.input_ids[rows], state.attention_mask[rows], state.position_ids[rows])


def _still_decoding(rows: Rows, finished: Callable[[], Sequence[bool]] | None) -> list[int]:
    """Positions of the rows whose question is not finished (``finished``: one flag per question of the batch)."""
    done = finished() if finished is not None else ()
    return [j for j, q in enumerate(rows.questions) if not done[q]] if done else list(range(len(rows.questions)))


def decode(
    model: PreTrainedModel,
    method: Method,
    prompts: Sequence[Sequence[int]],
    inputs: RowInputs,
    config: DecodingConfig,
    pad_id: int,
    use_cache: bool = True,
    share_prefix: bool = True,
    ragged: bool | None = None,
    finished: Callable[[], Sequence[bool]] | None = None,
    end_ids: Collection[int] | None = None,
    graphs: GraphPool | None = None,
    tree: bool | None = None,
) -> Iterator[Step]:
    """Algorithm 1 for a batch (``prompts``: every stream's prompt, question-major): one :class:`Step` per position.

    The caller decides when each question is finished and stops iterating when all are. With ``finished`` (called
    after each step: one flag per question of the batch) finished questions leave the batch, so one long answer
    does not keep the whole batch's rows decoding; each :class:`Step` says which questions its rows are. ``end_ids``
    are the tokens that end an answer (EOS, end of turn), for a method with the end rule. ``graphs`` decodes over its
    static KV caches (:mod:`grounded_rag.graphs`: CUDA graphs on a GPU, with a greedy step's fusion inside the graph:
    :class:`StepTail`), where finished questions' rows keep decoding unread. ``tree`` prefills each question's
    streams in one forward pass (the GPU default)."""
    if on_llama(model):  # llama.cpp's logits, this module's fusion and sampling (grounded_rag.backends)
        return (yield from engine_on_llama().decode(model, method, prompts, inputs, config, pad_id, finished, end_ids))
    streams = method.streams
    if graphs is not None and method.signal != "none":
        raise ValueError(f"{method.name} reads hidden states through hooks, which a graph would not replay; "
                         "decode it without graphs")
    warpers = build_warpers(config)
    with open_taps(model, method, config) as taps:
        taps.claim()  # each step may resume in another executor thread: claim before every forward
        logits, state = prefill(model, prompts, streams, pad_id, use_cache, share_prefix, config.max_new_tokens,
                                ragged, taps, tree=model.device.type == "cuda" if tree is None else tree)
        vocab = logits.shape[-1]
        rows = Rows.start(method, inputs, config, vocab, logits.device)
        ends, pieces = step_masks(method, end_ids, rows.copies, vocab, logits.device)
        steps = _step_function(model, state, pad_id, graphs, method, config, inputs, rows, (ends, pieces), vocab)
        try:
            picked = pick(method, logits, taps, rows, config, False, ends, pieces, warpers, rows.generators)
            for t in range(config.max_new_tokens):
                tokens = picked.tokens
                rows.advance(tokens.tolist(), picked.fusion)
                yield replace(picked, questions=list(rows.questions))
                if t + 1 == config.max_new_tokens:
                    break
                keep = _still_decoding(rows, finished)
                if not keep:
                    break
                if len(keep) < len(rows.questions):
                    steps.keep(keep)
                    rows.select(keep)
                    tokens = tokens[keep]
                taps.claim()
                picked = steps.next(tokens.repeat_interleave(streams), rows,  # y_t to every stream
                                    lambda logits: pick(method, logits, taps, rows, config, True, ends, pieces,
                                                        warpers, rows.generators))
        finally:
            steps.close()


class _EagerSteps:
    """Decode steps over the growing cache; finished questions' rows leave the batch."""

    def __init__(self, model: PreTrainedModel, state: DecodeState, streams: int) -> None:
        self.model, self.state, self.streams = model, state, streams

    def keep(self, keep: Sequence[int]) -> None:
        keep_questions(self.state, keep, self.streams)

    def close(self) -> None:
        pass

    def next(self, tokens: torch.Tensor, rows: Rows, then: Callable[[torch.Tensor], Step]) -> Step:
        return then(decode_one_token(self.model, self.state, tokens))


class _StaticSteps:
    """Decode steps over a static cache (:class:`~grounded_rag.graphs.StaticStep`): the batch keeps its rows, the
    finished ones fed padding and left unread. With a :class:`StepTail` the step returns its decision, read at the
    live questions' slots."""

    def __init__(self, static: StaticStep, questions: int, streams: int, pad_id: int) -> None:
        self.static, self.streams, self.pad_id = static, streams, pad_id
        self.questions = torch.arange(questions, device=static.tokens.device)
        self.live = torch.arange(questions * streams, device=static.tokens.device)

    def keep(self, keep: Sequence[int]) -> None:
        self.questions = self.questions[list(keep)]
        self.live = self.live.view(-1, self.streams)[list(keep)].flatten()

    def close(self) -> None:
        self.static.busy = False  # back to the pool for the next decode of its size

    def next(self, tokens: torch.Tensor, rows: Rows, then: Callable[[torch.Tensor], Step]) -> Step:
        if self.static.tail is not None:
            self.static.tail.refresh(rows)
        if len(self.live) < self.static.tokens.shape[0]:
            fed = torch.full((self.static.tokens.shape[0],), self.pad_id, dtype=tokens.dtype, device=tokens.device)
            fed[self.live] = tokens
            tokens = fed
        out = self.static(tokens)
        if self.static.tail is not None:
            return out.take(self.questions, [])
        return then(out if len(self.live) == out.shape[0] else out[self.live])


def _step_function(model: PreTrainedModel, state: DecodeState, pad_id: int, graphs: GraphPool | None, method: Method,
                   config: DecodingConfig, inputs: RowInputs, rows: Rows,
                   masks: tuple[torch.Tensor | None, torch.Tensor | None], vocab: int) -> _EagerSteps | _StaticSteps:
    """The decode's steps: eager over the growing cache, or static steps from ``graphs``, whose graph also captures
    the step's :class:`StepTail` (loaded with ``rows`` and the step ``masks``) where it applies."""
    streams, new_tokens = method.streams, config.max_new_tokens
    if graphs is None or state.cache is None:  # no cache (the recompute check): nothing to keep static
        return _EagerSteps(model, state, streams)
    questions = state.attention_mask.shape[0] // streams
    if not (graphs.fuse and StepTail.applies(method, config, inputs)):
        return _StaticSteps(graphs.step(model, state, new_tokens), questions, streams, pad_id)
    device = state.attention_mask.device
    static = graphs.step(model, state, new_tokens, lambda: StepTail(method, config, questions, vocab, device),
                         StepTail.key(method, config))
    try:
        static.tail.load(rows, *masks)
    except BaseException:
        static.busy = False  # back to the pool: the decode that borrowed it never starts
        raise
    return _StaticSteps(static, questions, streams, pad_id)


@torch.inference_mode()
def score_continuation(model: PreTrainedModel, method: Method, prompts: Sequence[Sequence[int]],
                       inputs: RowInputs, config: DecodingConfig, pad_id: int, continuation: Sequence[int],
                       end_ids: Collection[int] | None = None) -> float:
    """Sum of the method's log q over forced tokens for one question (log-likelihood scoring)."""
    if on_llama(model):
        return engine_on_llama().score_continuation(model, method, prompts, inputs, config, pad_id, continuation, end_ids)
    total = 0.0
    with open_taps(model, method, config) as taps:
        logits, state = prefill(model, prompts, method.streams, pad_id, taps=taps)
        rows = Rows.start(method, inputs, config, logits.shape[-1], logits.device)
        ends, pieces = step_masks(method, end_ids, rows.copies, logits.shape[-1], logits.device)
        for j, token in enumerate(continuation):
            _, _, fused = fuse_step(method, logits, taps, rows, config, j > 0, ends, pieces)
            total += float(fused.log_q[0, token])
            rows.advance([token])
            if j + 1 < len(continuation):
                forced = torch.full((method.streams,), token, dtype=torch.long, device=model.device)
                logits = decode_one_token(model, state, forced)
    return total
