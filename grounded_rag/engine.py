"""The dual-stream decode loop (paper Algorithm 1), gpt-fast style: small flat functions.

Rows of one batched forward pass: for B questions and S streams (S = 2 for the grounded
methods: full and reference; 3 for methods with two references) there are B*S rows, ordered question-major. Every row has its own
KV cache entries, attention-mask row and position ids, so prompts of any lengths decode together.
Prefill shares work: for each question, the longest common token prefix of its S prompts is run
once, then the cache is repeated per stream and only the differing suffixes are run; the head every
prompt of a pass starts with (the system turn) runs once per pass. On a CPU prompts are prefilled in
packs of similar lengths and the caches are assembled afterwards (see ``prefill``).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass, replace

import torch
from transformers import DynamicCache, PreTrainedModel

from .config import DecodingConfig
from .fusion import log_probs
from .methods import Method, StepFusion, full_stream_ends, knn_log_probs
from .sampling import build_warpers, make_generators, sample
from .spans import CopyState, DocumentSpans, finish_words, restrict
from .speedups import ReservedLayer, make_cache
from .taps import Datastore, LayerTaps, dola_candidates


@dataclass
class DecodeState:
    """Everything the next forward pass needs, passed explicitly."""

    cache: DynamicCache | None  # None: recompute every step without a cache (for checks)
    input_ids: torch.Tensor  # [rows, length] all tokens so far, pads included
    attention_mask: torch.Tensor  # [rows, length] 1 = real token
    position_ids: torch.Tensor  # [rows, length]


@dataclass
class Step:
    """One decoding step for every question still in the batch."""

    tokens: torch.Tensor  # [n] chosen token ids
    fusion: StepFusion
    p_full: torch.Tensor  # [n] p_full(y_t)
    p_ref: torch.Tensor | None  # [n] p_ref(y_t)
    q: torch.Tensor  # [n] q(y_t)
    questions: list[int]  # [n] which question of the batch each row is (all of them unless some finished)


def common_prefix_length(sequences: Sequence[Sequence[int]]) -> int:
    n = min(len(s) for s in sequences)
    for i in range(n):
        if any(s[i] != sequences[0][i] for s in sequences[1:]):
            return i
    return n


def _left_pad(sequences: Sequence[Sequence[int]], pad_id: int, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
    width = max(len(s) for s in sequences)
    ids = torch.full((len(sequences), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(sequences), width), dtype=torch.long)
    for i, s in enumerate(sequences):
        if s:
            ids[i, width - len(s) :] = torch.tensor(s, dtype=torch.long)
            mask[i, width - len(s) :] = 1
    return ids.to(device), mask.to(device)


def _positions(mask: torch.Tensor, start: torch.Tensor) -> torch.Tensor:
    pos = start.unsqueeze(1) + mask.cumsum(dim=1) - 1
    return pos.masked_fill(mask == 0, 1)


@functools.cache
def _cache_kwarg(model_type: type) -> str:
    """The name ``forward`` takes the KV cache under: transformers 5.24 renamed ``past_key_values`` to
    ``cache`` (the old name now warns), while models written for older releases (remote code) take the old one."""
    return "cache" if "cache" in inspect.signature(model_type.forward).parameters else "past_key_values"


def _forward(model: PreTrainedModel, state: DecodeState, new_ids, new_mask, new_pos, keep: int = 1) -> torch.Tensor:
    """Run new tokens through the model, extend the state, return last-position logits [rows, V]
    (``keep`` > 1: the last ``keep`` positions' logits, [rows, keep, V])."""
    state.input_ids = torch.cat([state.input_ids, new_ids], dim=1)
    state.attention_mask = torch.cat([state.attention_mask, new_mask], dim=1)
    state.position_ids = torch.cat([state.position_ids, new_pos], dim=1)
    if state.cache is None:
        ids, pos = state.input_ids, state.position_ids
    else:
        ids, pos = new_ids, new_pos
    out = model(
        input_ids=ids,
        attention_mask=state.attention_mask,
        position_ids=pos,
        use_cache=state.cache is not None,
        logits_to_keep=keep,
        **{_cache_kwarg(type(model)): state.cache},
    )
    return out.logits[:, -1, :] if keep == 1 else out.logits[:, -keep:, :]


def _shared_lengths(groups: Sequence[Sequence[Sequence[int]]], streams: int, share_prefix: bool) -> list[int]:
    """Per question, how many leading tokens its prompts share (at least one token left to each suffix)."""
    return [
        min(common_prefix_length(g), min(len(s) for s in g) - 1) if share_prefix and streams > 1 else 0 for g in groups
    ]


def _ragged_ok(model: PreTrainedModel, use_cache: bool) -> bool:
    """Ragged prefill assembles plain full-attention caches; sliding-window layers (Gemma 3) keep the padded path."""
    return use_cache and all(isinstance(layer, ReservedLayer) for layer in make_cache(model, 0).layers)


@torch.inference_mode()
def prefill(
    model: PreTrainedModel,
    prompts: Sequence[Sequence[int]],
    streams: int,
    pad_id: int,
    use_cache: bool = True,
    share_prefix: bool = True,
    reserve: int = 64,
    ragged: bool | None = None,
    taps: LayerTaps | None = None,
    keep: int = 1,
) -> tuple[torch.Tensor, DecodeState]:
    """Prefill ``B*streams`` prompts (question-major); return last logits and the decode state
    (``keep`` > 1: the last ``keep`` positions' logits of every prompt, for scoring).

    Work is shared at two levels: the head every prompt starts with (the system turn) runs once for
    the whole batch, and each question's longest common prefix once for its streams.

    ``ragged`` (default: on CPU) prefills the batch in packs of prompts of similar lengths
    (:func:`pack_runs`) and stitches one left-padded cache for the batched decode: a CPU prefill is
    compute-bound, so padding a batch to its longest prompt (or CAD's short question-only prompt to
    the full one) costs its full share of time, while each pass also pays a fixed cost (all weights
    read once) that short prompts of many questions share. On a GPU the padded batch is faster.
    ``taps`` (DoLa, kNN-LM) are stitched back to one row per prompt.
    """
    ragged = model.device.type == "cpu" if ragged is None else ragged
    if ragged and keep == 1 and _ragged_ok(model, use_cache):
        return _prefill_ragged(model, prompts, streams, pad_id, share_prefix, reserve, taps)
    device = model.device
    groups = [prompts[i : i + streams] for i in range(0, len(prompts), streams)]
    shared = _shared_lengths(groups, streams, share_prefix)
    head = 0
    # a head shared by rows of different lengths puts pads between it and the rest of a row: exact for full
    # attention, but a sliding window (Gemma 3) counts the pads and could lose the head; at most every prompt's
    # length less the positions kept
    if share_prefix and len(groups) > 1 and _ragged_ok(model, use_cache):
        head = max(0, min(common_prefix_length(prompts), min(len(p) for p in prompts) - keep))
    shared = [max(n, head) for n in shared]
    empty = torch.zeros((1 if head else len(groups), 0), dtype=torch.long, device=device)
    state = DecodeState(make_cache(model, reserve) if use_cache else None, empty, empty, empty)
    if head:
        ids = torch.tensor([list(prompts[0][:head])], dtype=torch.long, device=device)
        _forward(model, state, ids, torch.ones_like(ids), torch.arange(head, device=device).unsqueeze(0))
        _repeat_rows(state, len(groups))
    prefix_ids, prefix_mask = _left_pad([g[0][head:n] for g, n in zip(groups, shared)], pad_id, device)
    if prefix_ids.shape[1] > 0:
        _forward(model, state, prefix_ids, prefix_mask, _positions(prefix_mask, torch.full_like(prefix_mask[:, 0], head)))
    if streams > 1:
        _repeat_rows(state, streams)
    suffixes = [list(s[n:]) for g, n in zip(groups, shared) for s in g]
    suffix_ids, suffix_mask = _left_pad(suffixes, pad_id, device)
    start = torch.tensor(shared, device=device).repeat_interleave(streams)
    logits = _forward(model, state, suffix_ids, suffix_mask, _positions(suffix_mask, start), keep)
    return logits, state


def _repeat_rows(state: DecodeState, repeats: int) -> None:
    """Each row of the state (cache included) repeated ``repeats`` times in place, row-major."""
    if state.cache is not None and state.cache.get_seq_length() > 0:
        state.cache.batch_repeat_interleave(repeats)
    state.input_ids = state.input_ids.repeat_interleave(repeats, dim=0)
    state.attention_mask = state.attention_mask.repeat_interleave(repeats, dim=0)
    state.position_ids = state.position_ids.repeat_interleave(repeats, dim=0)


PAD_BUDGET = 32  # padded tokens worth one forward pass's fixed cost on a CPU (SmolLM2: ~45 ms, ~1.5 ms a token)


def _prefill_ragged(model, prompts, streams, pad_id, share_prefix, reserve, taps) -> tuple[torch.Tensor, DecodeState]:
    """Prefill the batch in packs of prefix runs (see :func:`prefix_runs` and :func:`pack_runs`), then
    stitch the packs into one left-padded state in the original row order.

    Each pack is one padded prefill of runs of the same size and similar lengths: long prompts of
    different lengths are prefilled one run at a time (padding costs its full share of compute), while
    short ones of many questions share a forward pass (every forward streams all the weights from
    memory once, about a decode step's fixed cost)."""
    groups = [prompts[i : i + streams] for i in range(0, len(prompts), streams)]
    runs: list[tuple[list[int], list[Sequence[int]]]] = []
    for q, group in enumerate(groups):
        row = q * streams
        for members in prefix_runs(group, share_prefix):
            runs.append((list(range(row, row + len(members))), members))
            row += len(members)
    parts: list[tuple[torch.Tensor, DecodeState, dict]] = []
    order: list[int] = []
    for pack in pack_runs(runs, share_prefix):
        flat = [p for _, members in pack for p in members]
        logits, state = prefill(model, flat, len(pack[0][1]), pad_id, True, share_prefix, reserve, False, taps)
        parts.append((logits, state, dict(taps.values) if taps is not None else {}))
        order += [r for rows, _ in pack for r in rows]
    if len(parts) == 1 and order == sorted(order):  # one pass in row order (one question, one run): nothing to stitch
        return parts[0][0], parts[0][1]
    back = torch.argsort(torch.tensor(order, device=model.device))  # stitched row back[i] is prompt i
    width = max(state.input_ids.shape[1] for _, state, _ in parts)
    cache = make_cache(model, reserve)
    for i in range(len(parts[0][1].cache.layers)):
        layers = [state.cache.layers[i] for _, state, _ in parts]
        cache.update(torch.cat([_pad_left(layer.keys, width, 0.0, dim=-2) for layer in layers])[back],
                     torch.cat([_pad_left(layer.values, width, 0.0, dim=-2) for layer in layers])[back], i)
        for layer in layers:  # a part's layer is copied: free it now, so the peak holds one extra layer, not a cache
            layer.keys = layer.values = layer._k = layer._v = None
    if taps is not None and parts[0][2]:
        taps.values = {key: torch.cat([tapped[key] for _, _, tapped in parts])[back] for key in parts[0][2]}
    stitched = DecodeState(
        cache,
        torch.cat([_pad_left(state.input_ids, width, pad_id) for _, state, _ in parts])[back],
        torch.cat([_pad_left(state.attention_mask, width, 0) for _, state, _ in parts])[back],
        torch.cat([_pad_left(state.position_ids, width, 1) for _, state, _ in parts])[back],
    )
    return torch.cat([logits for logits, _, _ in parts])[back], stitched


def _padding(pack: tuple[int, int, int, int, int, int]) -> int:
    """Padded tokens a padded prefill computes beyond its rows' own tokens, from its shape: (runs, longest
    and total shared prefix, prompts, longest and total suffix)."""
    runs, max_shared, shared, prompts, max_suffix, suffixes = pack
    return runs * max_shared - shared + prompts * max_suffix - suffixes


def pack_runs(
    runs: Sequence[tuple[list[int], list[Sequence[int]]]], share_prefix: bool = True
) -> list[list[tuple[list[int], list[Sequence[int]]]]]:
    """Group prefix runs (row indices, prompts) into packs prefilled together: runs of one size, in
    order of length, join a pack while each one adds at most ``PAD_BUDGET`` padded tokens per forward
    pass it saves (a run of several prompts takes two: the shared prefix, then the suffixes)."""
    ranked = sorted(runs, key=lambda run: (len(run[1]), max(len(p) for p in run[1]), min(len(p) for p in run[1])))
    packs: list[list[tuple[list[int], list[Sequence[int]]]]] = []
    shape = (0, 0, 0, 0, 0, 0)  # the last pack's, for _padding
    for run in ranked:
        n = _shared_lengths([run[1]], len(run[1]), share_prefix)[0]
        suffixes = [len(p) - n for p in run[1]]
        own = (1, n, n, len(suffixes), max(suffixes), sum(suffixes))
        if packs and len(packs[-1][0][1]) == len(run[1]):
            grown = (shape[0] + 1, max(shape[1], n), shape[2] + n, shape[3] + len(suffixes),
                     max(shape[4], own[4]), shape[5] + own[5])
            saved = 2 if len(run[1]) > 1 else 1
            if _padding(grown) - _padding(shape) <= saved * PAD_BUDGET:
                packs[-1].append(run)
                shape = grown
                continue
        packs.append([run])
        shape = own
    return packs


def prefix_runs(group: Sequence[Sequence[int]], share_prefix: bool = True) -> list[list[Sequence[int]]]:
    """Split one question's prompts into consecutive runs prefilled together: a prompt joins the run
    before it when their shared prefix leaves suffixes that waste at most ``PAD_BUDGET`` padded
    tokens. Grounded's full and retrieval-only prompts share the document block (one run); a
    question-only prompt shares only the system prompt (a run of its own)."""
    runs: list[list[Sequence[int]]] = [[group[0]]]
    for prompt in group[1:]:
        candidate = runs[-1] + [prompt]
        n = _shared_lengths([candidate], len(candidate), share_prefix)[0]
        suffixes = [len(p) - n for p in candidate]
        if n > 0 and len(candidate) * max(suffixes) - sum(suffixes) <= PAD_BUDGET:
            runs[-1] = candidate
        else:
            runs.append([prompt])
    return runs


def _pad_left(x: torch.Tensor, width: int, value: float, dim: int = -1) -> torch.Tensor:
    """Left-pad ``dim`` (the last, or the KV cache's sequence dim -2) to ``width``."""
    pad = [0, 0] * (-dim - 1) + [width - x.shape[dim], 0]
    return torch.nn.functional.pad(x, pad, value=value)


@torch.inference_mode()
def decode_one_token(model: PreTrainedModel, state: DecodeState, tokens: torch.Tensor) -> torch.Tensor:
    """Append one token per row and return the next logits [rows, V]."""
    next_pos = (state.position_ids.max(dim=1).values + 1).unsqueeze(1)
    ones = torch.ones_like(tokens).unsqueeze(1)
    return _forward(model, state, tokens.unsqueeze(1), ones, next_pos)


def open_taps(model: PreTrainedModel, method: Method, config: DecodingConfig) -> LayerTaps:
    """Hidden-state taps the method needs: DoLa's premature candidates, kNN-LM's final state, or none."""
    layers = dola_candidates(model, config.dola_layers) if method.signal == "early_layers" else []
    return LayerTaps(model, layers, final=method.signal == "datastore")


def fuse_step(
    method: Method,
    logits: torch.Tensor,
    taps: LayerTaps,
    trust: torch.Tensor,
    config: DecodingConfig,
    datastores: Sequence[Datastore] | None,
    doc_tokens: torch.Tensor | None = None,
    ends: torch.Tensor | None = None,
    begun: bool = True,
    words: torch.Tensor | None = None,
    breaks: torch.Tensor | None = None,
    trusted: torch.Tensor | None = None,
) -> tuple[torch.Tensor, torch.Tensor | None, StepFusion]:
    """p_full_t and the method's reference (second stream, premature layers or datastore), fused in fp32.
    ``doc_tokens`` ([rows, V] bool, :func:`token_masks`) feeds an anchored method's fuse rule; ``ends``
    ([V] bool, the end-of-answer tokens) a method whose full stream decides where the answer ends, once the
    answer has ``begun`` (at its first token the full stream's wish to end is reluctance to answer, which
    the contrasts are there to overcome). ``words`` (a copying method's :func:`word_masks`) are the tokens
    that finish a word the answer copies from a document; ``breaks`` (:func:`word_breaks`) those that would
    break off a copied word the answer stopped inside: the end rule does not apply there, and they are dropped.
    ``trusted`` ([rows] bool, or None when no row is) marks the rows whose documents the caller wrote, for a
    trusting method."""
    logp = log_probs(logits).view(trust.shape[0], method.streams, -1)
    lp_full = logp[:, 0]
    if method.streams > 1:
        lp_ref = logp[:, 1] if method.streams == 2 else logp[:, 1:]  # [rows, V], or [rows, k, V] for k references
    elif method.signal == "early_layers":
        lp_ref = taps.premature_log_probs()
    elif method.signal == "datastore":
        lp_ref = knn_log_probs(taps.values["final"], datastores or [], config.knn_k, config.knn_temperature, lp_full)
    else:
        lp_ref = None
    extra: dict[str, torch.Tensor | None] = {}
    if method.copying:
        extra["words"] = words
    if method.trusting:
        extra["trusted"] = trusted
    if method.anchored:
        fused = method.fuse(lp_full, lp_ref, trust, config, doc_tokens, **extra)
    else:
        fused = method.fuse(lp_full, lp_ref, trust, config, **extra)
    if method.full_ends and begun:
        finishing = None
        if method.copying and words is not None:  # the fused step's top token finishes a copied word
            finishing = words.gather(-1, fused.log_q.argmax(dim=-1, keepdim=True))[:, 0]
            if breaks is not None:  # or the answer stopped inside one
                finishing = finishing | breaks.any(dim=-1)
        fused = replace(fused, log_q=full_stream_ends(fused.log_q, lp_full, ends, finishing))
    if breaks is not None:
        fused = replace(fused, log_q=finish_words(fused.log_q, lp_full, breaks))
    return lp_full, fused.reference if fused.reference is not None else lp_ref, fused


def token_masks(token_sets: Sequence[Collection[int]] | None, vocab: int, device: torch.device) -> torch.Tensor | None:
    """One row per question: True at the token ids of its set (ids past the logits' width are dropped)."""
    if token_sets is None:
        return None
    mask = torch.zeros(len(token_sets), vocab, dtype=torch.bool, device=device)
    for i, ids in enumerate(token_sets):
        kept = [t for t in ids if 0 <= t < vocab]
        if kept:
            mask[i, torch.tensor(kept, device=device)] = True
    return mask


def word_masks(copies: Sequence[CopyState], vocab: int, device: torch.device) -> torch.Tensor:
    """[rows, V] bool: the tokens that finish a word each row's answer is copying from a document (a token
    continuing a copied span whose text starts with a letter or digit: "4" after "2", "alu" after "Subbar")."""
    return token_masks([c.follows() & c.joins for c in copies], vocab, device)  # type: ignore[return-value]


def word_pieces(method: Method, copies: Sequence[CopyState] | None, vocab: int,
                device: torch.device) -> torch.Tensor | None:
    """[V] bool: the tokens that continue a word (:func:`~grounded_rag.spans.word_edges`), for a method whose
    answers finish the words they copy; built once per decode."""
    if not (method.finishes_words and copies):
        return None
    return token_masks([copies[0].pieces], vocab, device)[0]  # type: ignore[index]


def word_breaks(copies: Sequence[CopyState], pieces: torch.Tensor | None) -> torch.Tensor | None:
    """[rows, V] bool: where a row's answer stopped inside every document word it is copying ("2" of "27",
    :attr:`CopyState.inside`), the tokens that would break the word off (the end of the answer, a newline, a
    space, punctuation); nothing in the other rows."""
    if pieces is None:
        return None
    inside = torch.tensor([c.inside for c in copies], dtype=torch.bool, device=pieces.device)
    return inside.unsqueeze(-1) & ~pieces


def _needs_tokens(method: Method, document_tokens: Sequence[Collection[int]] | None, questions: int,
                  end_ids: Collection[int] | None, copies: Sequence[CopyState] | None = None) -> None:
    if method.anchored and (document_tokens is None or len(document_tokens) != questions):
        raise ValueError(f"{method.name} needs one set of document tokens per question "
                         "(GroundedDecoder.document_tokens builds them)")
    if method.full_ends and not end_ids:
        raise ValueError(f"{method.name} needs the end-of-answer token ids (end_ids, e.g. GroundedDecoder.eos_ids)")
    if method.copying and (copies is None or len(copies) != questions):
        raise ValueError(f"{method.name} needs one copy state per question (GroundedDecoder.copies builds them)")


def trusted_rows(method: Method, trusted: Sequence[bool] | None, questions: int,
                 device: torch.device) -> torch.Tensor | None:
    """[rows] bool for a trusting method where some question's documents are all the caller's own; None where none
    is (the rule is then the guarded one, unchanged bit for bit)."""
    if trusted is None or not method.trusting:
        return None
    if len(trusted) != questions:
        raise ValueError(f"got {len(trusted)} trusted flags for {questions} questions; pass one per question")
    if not any(trusted):
        return None
    return torch.tensor([bool(t) for t in trusted], dtype=torch.bool, device=device)


def end_mask(method: Method, end_ids: Collection[int] | None, vocab: int, device: torch.device) -> torch.Tensor | None:
    """[V] bool, True at the end-of-answer tokens, for a method whose full stream decides where the answer ends."""
    if not method.full_ends:
        return None
    return token_masks([end_ids or ()], vocab, device)[0]


def keep_questions(state: DecodeState, keep: Sequence[int], streams: int) -> None:
    """Drop finished questions' rows from the state (in place), so later steps cost only the rest."""
    rows = torch.tensor([q * streams + s for q in keep for s in range(streams)], device=state.input_ids.device)
    if state.cache is not None:
        state.cache.batch_select_indices(rows)
    state.input_ids, state.attention_mask, state.position_ids = (
        state.input_ids[rows], state.attention_mask[rows], state.position_ids[rows])


def decode(
    model: PreTrainedModel,
    method: Method,
    prompts: Sequence[Sequence[int]],
    trust: Sequence[float],
    config: DecodingConfig,
    pad_id: int,
    use_cache: bool = True,
    share_prefix: bool = True,
    datastores: Sequence[Datastore] | None = None,
    ragged: bool | None = None,
    finished: Callable[[], Sequence[bool]] | None = None,
    spans: Sequence[DocumentSpans] | None = None,
    document_tokens: Sequence[Collection[int]] | None = None,
    end_ids: Collection[int] | None = None,
    copies: Sequence[CopyState] | None = None,
    trusted: Sequence[bool] | None = None,
) -> Iterator[Step]:
    """Algorithm 1 for a batch: yields one :class:`Step` per generated position.

    The caller decides when each question is finished and stops iterating when all are. With
    ``finished`` (called after each step: one flag per question of the batch) finished questions
    leave the batch, so one long answer does not keep the whole batch's rows decoding; each
    :class:`Step` says which questions its rows are. Without it every question stays to the end.
    ``spans`` (one per question: ``DecodingConfig.extractive``) keeps each answer a verbatim span of
    its documents; the step's ``fusion.log_q`` is then the restricted distribution.
    ``document_tokens`` (one set per question: :func:`grounded_rag.spans.document_tokens`) are the
    tokens an anchored method's documents may raise; ``end_ids`` the tokens that end an answer (EOS, end
    of turn), for a method whose full stream decides where the answer ends; ``copies`` (one
    :class:`~grounded_rag.spans.CopyState` per question) which document spans each answer copies, for a
    copying method; ``trusted`` (one flag per question) which questions' documents the caller wrote all of, for a
    trusting method (:attr:`grounded_rag.inputs.Request.trusted`).
    """
    streams = method.streams
    questions = list(range(len(prompts) // streams))
    trust_t = torch.tensor(list(trust), dtype=torch.float32, device=model.device)
    warpers = build_warpers(config)
    generators = make_generators(config, len(questions), model.device)
    stores = list(datastores) if datastores is not None else None
    spans = list(spans) if spans is not None else None
    _needs_tokens(method, document_tokens, len(questions), end_ids, copies)
    copies = list(copies) if method.copying and copies is not None else None
    trusted_t = trusted_rows(method, trusted, len(questions), model.device)
    doc_mask = None
    with open_taps(model, method, config) as taps:
        taps.claim()  # each step may resume in another executor thread: claim before every forward
        logits, state = prefill(model, prompts, streams, pad_id, use_cache, share_prefix, config.max_new_tokens, ragged, taps)
        if method.anchored:
            doc_mask = token_masks(document_tokens, logits.shape[-1], logits.device)
        ends = end_mask(method, end_ids, logits.shape[-1], logits.device)
        pieces = word_pieces(method, copies, logits.shape[-1], logits.device)
        for t in range(config.max_new_tokens):
            words = None if copies is None else word_masks(copies, logits.shape[-1], logits.device)
            breaks = None if copies is None else word_breaks(copies, pieces)
            lp_full, lp_ref, fused = fuse_step(method, logits, taps, trust_t, config, stores, doc_mask, ends, t > 0,
                                               words, breaks, trusted_t)
            if spans is not None:
                fused = replace(fused, log_q=restrict(fused.log_q, lp_full, spans))
            tokens = sample(fused.log_q, warpers, generators)  # matched truncation, then y_t
            for s, token in zip(spans or [], tokens.tolist()):
                s.advance(token)
            for c, token in zip(copies or [], tokens.tolist()):
                c.advance(token)
            rows = torch.arange(len(questions), device=model.device)
            yield Step(
                tokens=tokens,
                fusion=fused,
                p_full=lp_full[rows, tokens].exp(),
                p_ref=None if lp_ref is None else lp_ref[rows, tokens].exp(),
                q=fused.log_q[rows, tokens].exp(),
                questions=list(questions),
            )
            if t + 1 == config.max_new_tokens:
                break
            done = finished() if finished is not None else ()
            keep = [j for j, q in enumerate(questions) if not done[q]] if done else list(range(len(questions)))
            if not keep:
                break
            if len(keep) < len(questions):
                keep_questions(state, keep, streams)
                questions = [questions[j] for j in keep]
                trust_t, tokens = trust_t[keep], tokens[keep]
                generators = None if generators is None else [generators[j] for j in keep]
                stores = None if stores is None else [stores[j] for j in keep]
                spans = None if spans is None else [spans[j] for j in keep]
                copies = None if copies is None else [copies[j] for j in keep]
                doc_mask = None if doc_mask is None else doc_mask[keep]
                trusted_t = None if trusted_t is None else trusted_t[keep]
            taps.claim()
            logits = decode_one_token(model, state, tokens.repeat_interleave(streams))  # y_t to every stream


@torch.inference_mode()
def score_continuation(
    model: PreTrainedModel,
    method: Method,
    prompts: Sequence[Sequence[int]],
    trust: float,
    config: DecodingConfig,
    pad_id: int,
    continuation: Sequence[int],
    datastores: Sequence[Datastore] | None = None,
    document_tokens: Collection[int] | None = None,
    end_ids: Collection[int] | None = None,
    copy: CopyState | None = None,
    trusted: bool = False,
) -> float:
    """Sum of the method's log q over forced tokens for one question (log-likelihood scoring)."""
    trust_t = torch.tensor([trust], dtype=torch.float32, device=model.device)
    total = 0.0
    token_sets = None if document_tokens is None else [document_tokens]
    _needs_tokens(method, token_sets, 1, end_ids, None if copy is None else [copy])
    with open_taps(model, method, config) as taps:
        logits, state = prefill(model, prompts, method.streams, pad_id, taps=taps)
        doc_mask = token_masks(token_sets, logits.shape[-1], logits.device) if method.anchored else None
        ends = end_mask(method, end_ids, logits.shape[-1], logits.device)
        copies = [copy] if method.copying and copy else None
        trusted_t = trusted_rows(method, [trusted], 1, model.device)
        pieces = word_pieces(method, copies, logits.shape[-1], logits.device)
        for j, token in enumerate(continuation):
            words = word_masks(copies, logits.shape[-1], logits.device) if copies else None
            breaks = word_breaks(copies, pieces) if copies else None
            _, _, fused = fuse_step(method, logits, taps, trust_t, config, datastores, doc_mask, ends, j > 0, words,
                                    breaks, trusted_t)
            total += float(fused.log_q[0, token])
            if copy is not None:
                copy.advance(token)
            if j + 1 < len(continuation):
                forced = torch.full((method.streams,), token, dtype=torch.long, device=model.device)
                logits = decode_one_token(model, state, forced)
    return total


@torch.inference_mode()
def continuation_log_probs(
    model: PreTrainedModel, pairs: Sequence[tuple[Sequence[int], Sequence[int]]], pad_id: int,
    ragged: bool | None = None,
) -> list[torch.Tensor]:
    """log p(continuation_j | prefix, continuation_<j) for every (prefix, continuation) pair: one [len(continuation)]
    tensor per pair.

    On a CPU the rows go in packs of similar lengths (:func:`pack_runs`: one prefill per pack, so long
    rows add no padding and short ones share a pass), elsewhere in one left-padded batch; the head all
    rows of a pack share (a scoring template's system turn) runs once, and only the continuations'
    positions go through the LM head."""
    ragged = model.device.type == "cpu" if ragged is None else ragged
    rows = [list(p) + list(c) for p, c in pairs]
    out: list[torch.Tensor | None] = [None] * len(rows)
    if ragged:  # each row a run of one prompt
        packs = [[i for (i,), _ in pack] for pack in pack_runs([([i], [row]) for i, row in enumerate(rows)])]
    else:
        packs = [sorted(range(len(rows)), key=lambda i: len(rows[i]))]
    mb_per_position = model.get_output_embeddings().weight.shape[0] * 4 / 2**20
    for pack in (chunk for p in packs for chunk in _bounded(p, rows, pairs, mb_per_position)):
        n = max(len(pairs[i][1]) for i in pack)
        logits, _ = prefill(model, [rows[i] for i in pack], 1, pad_id, use_cache=len(pack) > 1, reserve=0,
                            ragged=False, keep=n + 1)
        logits = logits.view(len(pack), n + 1, -1)[:, :-1]
        for j, i in enumerate(pack):  # rows are left-padded: each continuation ends at the last position
            target = torch.tensor(list(pairs[i][1]), dtype=torch.long, device=model.device)
            row = logits[j, n - len(target) :].float()
            out[i] = row.gather(-1, target.unsqueeze(-1))[:, 0] - torch.logsumexp(row, dim=-1)
    return out  # type: ignore[return-value]


PACK_TOKENS = 16384  # most tokens in one scoring pass (rows x width)
PACK_LOGITS_MB = 512  # most fp32 logits one scoring pass keeps (rows x kept positions x vocabulary)


def _bounded(pack: list[int], rows: Sequence[Sequence[int]], pairs, mb_per_position: float) -> Iterator[list[int]]:
    """A pack cut into passes of at most ``PACK_TOKENS`` tokens and ``PACK_LOGITS_MB`` of logits: a server
    batch may bring thousands of passages, and a 262k vocabulary makes each kept position's logits 1 MB."""
    chunk: list[int] = []
    width = kept = 0  # the chunk's longest row and longest continuation
    for i in pack:
        grown_width, grown_kept = max(width, len(rows[i])), max(kept, len(pairs[i][1]))
        too_big = (len(chunk) + 1) * grown_width > PACK_TOKENS
        too_big = too_big or (len(chunk) + 1) * (grown_kept + 1) * mb_per_position > PACK_LOGITS_MB
        if chunk and too_big:
            yield chunk
            chunk, width, kept = [i], len(rows[i]), len(pairs[i][1])
        else:
            chunk.append(i)
            width, kept = grown_width, grown_kept
    if chunk:
        yield chunk
