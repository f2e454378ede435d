"""The tree prefill's layout, without a model: one row per question in which every stream's prompt is a set of
columns, no shared prefix is computed twice, and the mask lets each token see exactly the earlier tokens of its own
stream's prompt (the padded passes' attention). The model-level equality is tests/integration/test_graphs.py."""

from __future__ import annotations

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from grounded_rag.prefill import _tree_mask, _trie, common_prefix_length

# a question's streams: prompts over a tiny vocabulary (long shared prefixes), the way the methods' streams share
# the system turn and the documents
prompt = st.lists(st.integers(0, 2), min_size=1, max_size=12)
groups = st.integers(1, 4).flatmap(lambda s: st.lists(prompt, min_size=s, max_size=s))


@settings(max_examples=300, deadline=None)
@given(groups)
def test_every_stream_is_its_columns_and_no_prefix_runs_twice(group):
    t = _trie(group)
    for cols, p in zip(t.columns, group, strict=True):
        assert [t.ids[c] for c in cols] == list(p) and [t.pos[c] for c in cols] == list(range(len(p)))
    shared = [0] + [max(min(common_prefix_length([group[k], p]), len(p) - 1) for k in range(s))
                    for s, p in enumerate(group) if s]
    assert len(t.ids) == sum(len(p) for p in group) - sum(shared)


@settings(max_examples=200, deadline=None)
@given(st.lists(groups.filter(lambda g: len(g) == 3), min_size=1, max_size=3))
def test_the_mask_is_each_streams_own_causal_attention(batch):
    tries = [_trie(g) for g in batch]
    width = max(len(t.ids) for t in tries)
    pos, seg, real = (torch.zeros(len(tries), width, dtype=torch.long) for _ in range(3))
    for r, t in enumerate(tries):
        off = width - len(t.ids)
        pos[r, off:], seg[r, off:], real[r, off:] = torch.tensor(t.pos), torch.tensor(t.seg), 1
    mask = _tree_mask(seg, pos, real, torch.tensor([t.limits for t in tries], dtype=torch.int32))[:, 0]
    for r, t in enumerate(tries):
        off = width - len(t.ids)
        expected = torch.eye(width, dtype=torch.bool)
        for cols in t.columns:  # a stream's own token sees its prompt up to itself
            for i, c in enumerate(cols):
                if t.seg[c] == t.columns.index(cols):
                    expected[off + c] = False
                    expected[off + c, [off + k for k in cols[: i + 1]]] = True
        assert torch.equal(mask[r], expected)
