"""The llama.cpp backend's prefix tree (grounded_rag.backends.batches): each shared prefix once, every prompt whole
along its own sequence, in the order llama.cpp's batch checks require. Needs no model and no llama.cpp."""

import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from grounded_rag.backends.batches import chunks, one_each, prefix_tree


def _sequences(entries, n):
    """Each sequence's (position, token) list as the batch gives it, in submission order."""
    seen = {s: [] for s in range(n)}
    for i in range(len(entries)):
        for s in entries.seqs(i):
            seen[s].append((int(entries.positions[i]), int(entries.tokens[i])))
    return seen


def _check(prompts, wanted):
    entries, found = prefix_tree(prompts, list(range(len(prompts))), wanted)
    seen = _sequences(entries, len(prompts))
    for s, prompt in enumerate(prompts):
        assert seen[s] == list(enumerate(prompt))  # every token of its prompt, in order, once
        for position, index in zip(wanted[s], found[s]):
            assert s in entries.seqs(int(index)) and entries.positions[index] == position
            assert entries.outputs[index] == 1
    had = [0] * len(prompts)  # llama.cpp's check: sequences given a token together have had the same tokens
    for i in range(len(entries)):
        members = entries.seqs(i)
        assert len({had[s] for s in members}) == 1
        for s in members:
            had[s] += 1
    distinct = {tuple(p[: i + 1]) for p in prompts for i in range(len(p))}
    assert len(entries) == len(distinct)  # each distinct prefix once: the trie's nodes
    assert int(entries.outputs.sum()) == len({int(i) for f in found for i in f})
    return entries


def test_streams_share_their_prefixes():
    system, docs, question = [1, 2, 3], [10, 11, 12, 13], [20, 21]
    full, retrieval, alone = system + docs + question, system + docs + [30], system + question
    entries = _check([full, retrieval, alone], [[len(full) - 1], [len(retrieval) - 1], [len(alone) - 1]])
    assert len(entries) == 3 + 4 + 2 + 1 + 2
    assert sorted(entries.seqs(0)) == [0, 1, 2]  # the system turn belongs to all three streams


def test_identical_prompts_share_their_last_token():
    entries, found = prefix_tree([[5, 6, 7], [5, 6, 7]], [0, 1], [[2], [2]])
    assert len(entries) == 3 and found[0][0] == found[1][0] and sorted(entries.seqs(2)) == [0, 1]


def test_sequence_ids_are_the_callers():
    entries, found = prefix_tree([[1, 2], [1, 3]], [7, 9], [[1], [1]])
    assert sorted(entries.seqs(0)) == [7, 9] and entries.seqs(int(found[1][0])) == [9]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.integers(0, 3), min_size=1, max_size=8), min_size=1, max_size=7), st.randoms())
def test_any_prompts(prompts, rng):
    wanted = [sorted(rng.sample(range(len(p)), rng.randint(1, len(p)))) for p in prompts]
    _check(prompts, wanted)


def test_chunks_bound_tokens_and_outputs():
    rng = random.Random(0)
    prompts = [[rng.randint(0, 5) for _ in range(rng.randint(1, 40))] for _ in range(12)]
    entries, _ = prefix_tree(prompts, list(range(12)), [list(range(len(p))) for p in prompts])
    parts = chunks(entries, 16, 5)
    assert parts[0][0] == 0 and parts[-1][1] == len(entries)
    assert all(a[1] == b[0] for a, b in zip(parts, parts[1:]))
    assert all(0 < hi - lo <= 16 and entries.outputs[lo:hi].sum() <= 5 for lo, hi in parts)


def test_a_decode_step():
    step = one_each([4, 4, 9], [10, 12, 7], [0, 1, 2])
    assert [step.seqs(i) for i in range(3)] == [[0], [1], [2]] and np.all(step.outputs == 1)
