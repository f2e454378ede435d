"""Prefill: the batch's prompts into one KV cache, sharing work (gpt-fast's ``prefill``, with packing for a CPU).

Rows of one batched forward pass: for B questions and S streams (S = 2 for the grounded methods: full and reference;
3 for methods with two references) there are B*S rows, ordered question-major. Every row has its own KV cache
entries, attention-mask row and position ids, so prompts of any lengths decode together. Prefill shares work: for
each question, the longest common token prefix of its S prompts is run once, then the cache is repeated per stream
and only the differing suffixes are run; the head every prompt of a pass starts with (the system turn) runs once per
pass. On a CPU prompts are prefilled in packs of similar lengths and the caches are assembled afterwards.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import torch
from transformers import DynamicCache

from .speedups import ReservedLayer, make_cache
from .taps import LayerTaps

if TYPE_CHECKING:  # transformers' modeling (2 s, 120 MB to import) is not needed on llama.cpp
    from transformers import PreTrainedModel


@dataclass
class DecodeState:
    """Everything the next forward pass needs, passed explicitly."""

    cache: DynamicCache | None  # None: recompute every step without a cache (for checks)
    input_ids: torch.Tensor  # [rows, length] all tokens so far, pads included
    attention_mask: torch.Tensor  # [rows, length] 1 = real token
    position_ids: torch.Tensor  # [rows, length]


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


def forward(model: PreTrainedModel, state: DecodeState, new_ids, new_mask, new_pos, keep: int = 1) -> torch.Tensor:
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


def windowed(model: PreTrainedModel) -> bool:
    """Whether the model has sliding-window layers (Gemma 3). Their window counts a row's columns, pads included, so
    pads between a row's tokens would hide tokens the window should see: such a model's rows hold pads on the left
    only (no shared prefix ahead of padded suffixes, no stitched packs, no tree)."""
    return not all(isinstance(layer, ReservedLayer) for layer in make_cache(model, 0).layers)


def _ragged_ok(model: PreTrainedModel, use_cache: bool) -> bool:
    """Ragged prefill assembles plain full-attention caches; sliding-window layers (Gemma 3) keep the padded path."""
    return use_cache and not windowed(model)


def tree_ok(model: PreTrainedModel, use_cache: bool = True) -> bool:
    """The tree prefill passes its own boolean mask, which PyTorch's SDPA attention reads (eager attention adds masks,
    flash attention takes none) over plain full-attention caches."""
    return model.config._attn_implementation == "sdpa" and _ragged_ok(model, use_cache)


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
    tree: bool = False,
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
    ``taps`` (DoLa, kNN-LM) are stitched back to one row per prompt. ``tree`` (where the padded batch would run)
    prefills each question's streams in one forward pass (:func:`_prefill_tree`).
    """
    ragged = model.device.type == "cpu" if ragged is None else ragged
    if ragged and keep == 1 and _ragged_ok(model, use_cache):
        return _prefill_ragged(model, prompts, streams, pad_id, share_prefix, reserve, taps)
    if tree and keep == 1 and streams > 1 and share_prefix and not (taps and taps.active) and tree_ok(model, use_cache):
        return _prefill_tree(model, prompts, streams, pad_id, reserve)
    device = model.device
    groups = [prompts[i : i + streams] for i in range(0, len(prompts), streams)]
    # a prefix shared ahead of suffixes of different lengths puts pads inside a row: exact for full attention, but
    # a sliding window counts them (:func:`windowed`), and its tokens after the pads would lose sight of the prefix
    share_prefix = share_prefix and not windowed(model)
    shared = _shared_lengths(groups, streams, share_prefix)
    head = 0  # the head every prompt shares: at most every prompt's length less the positions kept
    if share_prefix and len(groups) > 1 and use_cache:  # share_prefix already rules out sliding windows
        head = max(0, min(common_prefix_length(prompts), min(len(p) for p in prompts) - keep))
    shared = [max(n, head) for n in shared]
    empty = torch.zeros((1 if head else len(groups), 0), dtype=torch.long, device=device)
    state = DecodeState(make_cache(model, reserve) if use_cache else None, empty, empty, empty)
    if head:
        ids = torch.tensor([list(prompts[0][:head])], dtype=torch.long, device=device)
        forward(model, state, ids, torch.ones_like(ids), torch.arange(head, device=device).unsqueeze(0))
        _repeat_rows(state, len(groups))
    prefix_ids, prefix_mask = _left_pad([g[0][head:n] for g, n in zip(groups, shared)], pad_id, device)
    if prefix_ids.shape[1] > 0:
        forward(model, state, prefix_ids, prefix_mask, _positions(prefix_mask, torch.full_like(prefix_mask[:, 0], head)))
    if streams > 1:
        _repeat_rows(state, streams)
    suffixes = [list(s[n:]) for g, n in zip(groups, shared) for s in g]
    suffix_ids, suffix_mask = _left_pad(suffixes, pad_id, device)
    start = torch.tensor(shared, device=device).repeat_interleave(streams)
    logits = forward(model, state, suffix_ids, suffix_mask, _positions(suffix_mask, start), keep)
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


@dataclass
class _Trie:
    """One question's streams as a prefix tree in one row: stream 0's whole prompt, then each later stream's tokens
    after its longest common prefix with an earlier stream (its parent). The default's full and retrieval-only
    prompts share the documents; its question-only prompt shares only the system turn, with both."""

    ids: list[int]  # the row's tokens: stream 0's prompt, then each later stream's own part
    pos: list[int]  # each token's position in its stream's prompt
    seg: list[int]  # which stream's own part each token is
    limits: list[list[int]]  # [S][S]: stream s reads stream k's own part below position limits[s][k] (0: none)
    columns: list[list[int]]  # each stream's prompt as the row's columns (counted from the row's first token)


def _trie(group: Sequence[Sequence[int]]) -> _Trie:
    ids, pos, seg, limits, columns = [], [], [], [], []
    for s, prompt in enumerate(group):
        parent, n = None, 0
        for k in range(s):  # the earlier stream sharing the longest prefix, at least one token left to this one
            shared = min(common_prefix_length([group[k], prompt]), len(prompt) - 1)
            if shared > n:
                parent, n = k, shared
        limit = [min(n, limits[parent][k]) for k in range(s)] if parent is not None else [0] * s
        limits.append(limit + [len(prompt)] + [0] * (len(group) - s - 1))
        columns.append((columns[parent][:n] if parent is not None else []) + list(range(len(ids), len(ids) + len(prompt) - n)))
        ids += prompt[n:]
        pos += range(n, len(prompt))
        seg += [s] * (len(prompt) - n)
    return _Trie(ids, pos, seg, limits, columns)


def _tree_mask(segments: torch.Tensor, positions: torch.Tensor, real: torch.Tensor, limits: torch.Tensor) -> torch.Tensor:
    """[rows, 1, W, W] bool: a token sees the real tokens of its own stream's prompt at or before its position (its
    own part, and its ancestors' parts below the limits of ``limits`` [rows, S, S]); a pad sees itself, so no
    attention row is empty. Every [rows, W, W] temporary is boolean."""
    rows, width = segments.shape
    real = real.bool()
    q_limits = limits[torch.arange(rows, device=segments.device).unsqueeze(1), segments]  # [rows, W, S] per query
    k_pos, k_seg = positions.unsqueeze(1), segments.unsqueeze(1)
    inside = torch.zeros(rows, width, width, dtype=torch.bool, device=segments.device)
    for s in range(limits.shape[1]):  # the key is in stream s's own part, below the query's limit there
        inside |= (k_seg == s) & (k_pos < q_limits[..., s : s + 1])
    seen = inside & (k_pos <= positions.unsqueeze(2)) & real.unsqueeze(1) & real.unsqueeze(2)
    return (seen | torch.eye(width, dtype=torch.bool, device=segments.device)).unsqueeze(1)


@torch.inference_mode()
def _prefill_tree(model, prompts, streams, pad_id, reserve) -> tuple[torch.Tensor, DecodeState]:
    """Every stream of a question in one forward pass over its prefix tree (:class:`_Trie`): each shared prefix
    once, each stream's own tokens beside it, attending to its own prompt alone (a tree mask). A GPU pays a forward
    pass's launches and weight reads once instead of once per shared prefix and again for the rest, and computes no
    token twice. The row's cache is then split into one left-padded row per stream, as the padded path leaves it."""
    device = model.device
    tries = [_trie(prompts[i : i + streams]) for i in range(0, len(prompts), streams)]
    width = max(len(t.ids) for t in tries)
    ids = torch.full((len(tries), width), pad_id, dtype=torch.long)
    pos, seg, real = torch.ones_like(ids), torch.zeros_like(ids), torch.zeros_like(ids)
    for r, t in enumerate(tries):
        ids[r, width - len(t.ids):], pos[r, width - len(t.ids):] = torch.tensor(t.ids), torch.tensor(t.pos)
        seg[r, width - len(t.ids):], real[r, width - len(t.ids):] = torch.tensor(t.seg), 1
    limits = torch.tensor([t.limits for t in tries], dtype=torch.int32)
    ids, pos, seg, real, limits = (x.to(device) for x in (ids, pos, seg, real, limits))
    columns = [[width - len(t.ids) + c for c in cols] for t in tries for cols in t.columns]
    ends = [(r, cols[-1]) for r, t in enumerate(tries) for cols in columns[r * streams : (r + 1) * streams]]
    kept = sorted({c for _, c in ends})  # the columns whose logits are read, for every row alike
    cache = make_cache(model, 0)
    logits = model(input_ids=ids, attention_mask=_tree_mask(seg, pos, real, limits), position_ids=pos, use_cache=True,
                   logits_to_keep=torch.tensor(kept, device=device), **{_cache_kwarg(type(model)): cache}).logits
    logits = logits[[r for r, _ in ends], [kept.index(c) for _, c in ends]]
    state = _split_tree(model, cache, columns, [r for r in range(len(tries)) for _ in range(streams)], prompts,
                        pad_id, reserve)
    return logits, state


def _split_tree(model, cache, columns, source_rows, prompts, pad_id, reserve) -> DecodeState:
    """One left-padded cache row per prompt, gathered from its question's tree row: per layer one gather for the
    keys and one for the values, straight into buffers with ``reserve`` room (a split of many small copies per
    layer cost more than the prefill's attention on a GPU)."""
    device = model.device
    width = max(len(c) for c in columns)
    index = torch.zeros(len(columns), width + reserve, dtype=torch.long)  # pads and the reserve read column 0
    for i, cols in enumerate(columns):
        index[i, width - len(cols) : width] = torch.tensor(cols)
    index, rows = index.to(device), torch.tensor(source_rows, device=device)
    split = make_cache(model, reserve)
    gathers: dict[tuple[int, ...], torch.Tensor] = {}
    for i, layer in enumerate(cache.layers):
        _, heads, tree_width, dim = layer.keys.shape
        if layer.keys.shape not in gathers:  # flat row of (prompt, head, column) in the [rows*heads*width, dim] cache
            head = torch.arange(heads, device=device).view(1, heads, 1)
            flat = (rows.view(-1, 1, 1) * heads + head) * tree_width + index.unsqueeze(1)
            gathers[layer.keys.shape] = flat.view(-1)
        shape = (len(columns), heads, width + reserve, dim)
        keys = layer.keys.reshape(-1, dim).index_select(0, gathers[layer.keys.shape]).view(shape)
        values = layer.values.reshape(-1, layer.values.shape[-1]).index_select(0, gathers[layer.keys.shape])
        split.layers[i] = ReservedLayer.holding(keys, values.view(*shape[:3], -1), width)
    input_ids, mask = _left_pad(prompts, pad_id, device)
    return DecodeState(split, input_ids, mask, _positions(mask, torch.zeros_like(mask[:, 0])))
