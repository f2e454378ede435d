"""The dual-stream decode loop (paper Algorithm 1), gpt-fast style: small flat functions.

Rows of one batched forward pass: for B questions and S streams (S = 2 for the grounded
methods: full and reference; 3 for methods with two references) there are B*S rows, ordered question-major. Every row has its own
KV cache entries, attention-mask row and position ids, so prompts of any lengths decode together.
Prefill shares work: for each question, the longest common token prefix of its S prompts is run
once, then the cache is repeated per stream and only the differing suffixes are run. On a CPU each
prompt is prefilled without padding and the caches are assembled afterwards (see ``prefill``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace

import torch
from transformers import DynamicCache, PreTrainedModel

from .config import DecodingConfig
from .fusion import log_probs
from .methods import Method, StepFusion, knn_log_probs
from .sampling import build_warpers, make_generators, sample
from .spans import DocumentSpans, restrict
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


def _forward(model: PreTrainedModel, state: DecodeState, new_ids, new_mask, new_pos) -> torch.Tensor:
    """Run new tokens through the model, extend the state, return last-position logits [rows, V]."""
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
        past_key_values=state.cache,
        use_cache=state.cache is not None,
        logits_to_keep=1,
    )
    return out.logits[:, -1, :]


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
) -> tuple[torch.Tensor, DecodeState]:
    """Prefill ``B*streams`` prompts (question-major); return last logits and the decode state.

    ``ragged`` (default: on CPU) prefills each question on its own and stitches one left-padded
    cache for the batched decode: a CPU prefill is compute-bound, so padding a batch to its longest
    prompt (or CAD's short question-only prompt to the full one) costs its full share of time,
    while batching buys nothing. On a GPU the padded batch is faster. ``taps`` (DoLa, kNN-LM) are
    stitched back to one row per prompt.
    """
    ragged = model.device.type == "cpu" if ragged is None else ragged
    if ragged and _ragged_ok(model, use_cache):
        return _prefill_ragged(model, prompts, streams, pad_id, share_prefix, reserve, taps)
    device = model.device
    groups = [prompts[i : i + streams] for i in range(0, len(prompts), streams)]
    shared = _shared_lengths(groups, streams, share_prefix)
    prefix_ids, prefix_mask = _left_pad([g[0][:n] for g, n in zip(groups, shared)], pad_id, device)
    empty = torch.zeros((len(groups), 0), dtype=torch.long, device=device)
    state = DecodeState(make_cache(model, reserve) if use_cache else None, empty, empty, empty)
    if prefix_ids.shape[1] > 0:
        _forward(model, state, prefix_ids, prefix_mask, _positions(prefix_mask, torch.zeros_like(prefix_mask[:, 0])))
    if streams > 1:
        if state.cache is not None and state.cache.get_seq_length() > 0:
            state.cache.batch_repeat_interleave(streams)
        state.input_ids = state.input_ids.repeat_interleave(streams, dim=0)
        state.attention_mask = state.attention_mask.repeat_interleave(streams, dim=0)
        state.position_ids = state.position_ids.repeat_interleave(streams, dim=0)
    suffixes = [list(s[n:]) for g, n in zip(groups, shared) for s in g]
    suffix_ids, suffix_mask = _left_pad(suffixes, pad_id, device)
    start = torch.tensor(shared, device=device).repeat_interleave(streams)
    logits = _forward(model, state, suffix_ids, suffix_mask, _positions(suffix_mask, start))
    return logits, state


PAD_BUDGET = 32  # padded tokens worth one extra forward pass's fixed cost on a CPU (measured: ~1 decode step)


def _prefill_ragged(model, prompts, streams, pad_id, share_prefix, reserve, taps) -> tuple[torch.Tensor, DecodeState]:
    """Prefill question by question, each question's prompts in runs that share a prefix (see
    :func:`prefix_runs`), then stitch the parts into one left-padded state in the original row order."""
    groups = [prompts[i : i + streams] for i in range(0, len(prompts), streams)]
    parts: list[tuple[torch.Tensor, DecodeState, dict]] = []
    for group in groups:
        for rows in prefix_runs(group, share_prefix):
            logits, state = prefill(model, rows, len(rows), pad_id, True, share_prefix, reserve, False, taps)
            parts.append((logits, state, dict(taps.values) if taps is not None else {}))
    width = max(state.input_ids.shape[1] for _, state, _ in parts)
    cache = make_cache(model, reserve)
    for i in range(len(parts[0][1].cache.layers)):
        layers = [state.cache.layers[i] for _, state, _ in parts]
        cache.update(torch.cat([_pad_left(layer.keys, width, 0.0, dim=-2) for layer in layers]),
                     torch.cat([_pad_left(layer.values, width, 0.0, dim=-2) for layer in layers]), i)
    if taps is not None and parts[0][2]:
        taps.values = {key: torch.cat([tapped[key] for _, _, tapped in parts]) for key in parts[0][2]}
    stitched = DecodeState(
        cache,
        torch.cat([_pad_left(state.input_ids, width, pad_id) for _, state, _ in parts]),
        torch.cat([_pad_left(state.attention_mask, width, 0) for _, state, _ in parts]),
        torch.cat([_pad_left(state.position_ids, width, 1) for _, state, _ in parts]),
    )
    return torch.cat([logits for logits, _, _ in parts]), stitched


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
) -> tuple[torch.Tensor, torch.Tensor | None, StepFusion]:
    """p_full_t and the method's reference (second stream, premature layers or datastore), fused in fp32."""
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
    fused = method.fuse(lp_full, lp_ref, trust, config)
    return lp_full, fused.reference if fused.reference is not None else lp_ref, fused


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
) -> Iterator[Step]:
    """Algorithm 1 for a batch: yields one :class:`Step` per generated position.

    The caller decides when each question is finished and stops iterating when all are. With
    ``finished`` (called after each step: one flag per question of the batch) finished questions
    leave the batch, so one long answer does not keep the whole batch's rows decoding; each
    :class:`Step` says which questions its rows are. Without it every question stays to the end.
    ``spans`` (one per question: ``DecodingConfig.extractive``) keeps each answer a verbatim span of
    its documents; the step's ``fusion.log_q`` is then the restricted distribution.
    """
    streams = method.streams
    questions = list(range(len(prompts) // streams))
    trust_t = torch.tensor(list(trust), dtype=torch.float32, device=model.device)
    warpers = build_warpers(config)
    generators = make_generators(config, len(questions), model.device)
    stores = list(datastores) if datastores is not None else None
    spans = list(spans) if spans is not None else None
    with open_taps(model, method, config) as taps:
        taps.claim()  # each step may resume in another executor thread: claim before every forward
        logits, state = prefill(model, prompts, streams, pad_id, use_cache, share_prefix, config.max_new_tokens, ragged, taps)
        for t in range(config.max_new_tokens):
            lp_full, lp_ref, fused = fuse_step(method, logits, taps, trust_t, config, stores)  # c_t, rho_t, q_t
            if spans is not None:
                fused = replace(fused, log_q=restrict(fused.log_q, lp_full, spans))
            tokens = sample(fused.log_q, warpers, generators)  # matched truncation, then y_t
            for s, token in zip(spans or [], tokens.tolist()):
                s.advance(token)
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
) -> float:
    """Sum of the method's log q over forced tokens for one question (log-likelihood scoring)."""
    trust_t = torch.tensor([trust], dtype=torch.float32, device=model.device)
    total = 0.0
    with open_taps(model, method, config) as taps:
        logits, state = prefill(model, prompts, method.streams, pad_id, taps=taps)
        for j, token in enumerate(continuation):
            _, _, fused = fuse_step(method, logits, taps, trust_t, config, datastores)
            total += float(fused.log_q[0, token])
            if j + 1 < len(continuation):
                forced = torch.full((method.streams,), token, dtype=torch.long, device=model.device)
                logits = decode_one_token(model, state, forced)
    return total


@torch.inference_mode()
def continuation_log_probs(
    model: PreTrainedModel, prefixes: Sequence[Sequence[int]], continuation: Sequence[int], pad_id: int,
    ragged: bool | None = None,
) -> torch.Tensor:
    """log p(continuation_j | prefix_i, continuation_<j) for every prefix: [len(prefixes), len(continuation)].

    One forward pass per prefix on a CPU (compute-bound: padding only costs), one left-padded batch
    elsewhere; only the continuation's positions go through the LM head."""
    ragged = model.device.type == "cpu" if ragged is None else ragged
    rows = [list(p) + list(continuation) for p in prefixes]
    n = len(continuation)
    target = torch.tensor(list(continuation), dtype=torch.long, device=model.device)
    out = []
    for batch in ([r] for r in rows) if ragged else [rows]:
        ids, mask = _left_pad(batch, pad_id, model.device)
        logits = model(input_ids=ids, attention_mask=mask, position_ids=_positions(mask, torch.zeros_like(mask[:, 0])),
                       use_cache=False, logits_to_keep=n + 1).logits[:, :-1].float()
        out.append(torch.log_softmax(logits, dim=-1).gather(-1, target.expand(len(batch), n).unsqueeze(-1))[..., 0])
    return torch.cat(out)
