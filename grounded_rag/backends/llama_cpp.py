"""A GGUF model on llama.cpp (llama-cpp-python's low-level API), as the engine's ``model``.

:class:`LlamaCppLM` carries what the decoder reads of a model (``config.max_position_embeddings``,
``generation_config.eos_token_id``, ``device``) and runs batches (:class:`~grounded_rag.backends.batches.Entries`)
in llama.cpp contexts. A context holds one decode's or scoring pass's sequences in one unified KV cache (a token
shared by several sequences is stored once); contexts are pooled, because the server may run a second decode while
one is paused between tokens, and each needs a KV cache of its own.
"""

from __future__ import annotations

import collections
import ctypes
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace

import llama_cpp as ll
import numpy as np
import torch

from ..errors import ModelLoadError
from .batches import Entries, chunks, one_each

N_BATCH = 2048  # tokens per llama_decode call
N_UBATCH = 512  # tokens per compute pass inside it (llama.cpp's and llama-cpp-python's default)
LOGITS_MB = 64  # most logits one llama_decode call returns (a scoring pass of a 262k vocabulary: 64 rows)
CELLS_STEP = 1024  # a context's KV cells are rounded up to this, so the next decode of a similar size reuses it
IDLE_CONTEXTS = 2  # contexts kept for reuse once released

_log: collections.deque[str] = collections.deque(maxlen=20)  # llama.cpp's recent warnings and errors


@ll.llama_log_callback
def _keep_log(level: int, text: bytes, _user: ctypes.c_void_p) -> None:
    """llama.cpp logs to stderr by default; keep its warnings and errors for our messages instead."""
    if level in (2, 3) and text:
        _log.append(text.decode("utf-8", errors="replace").strip())


ll.llama_log_set(_keep_log, ctypes.c_void_p(0))
ll.llama_backend_init()


def recent_log() -> str:
    """llama.cpp's last warnings and errors, for an error message."""
    lines = [line for line in _log if line]
    return "; ".join(lines[-4:]) if lines else "no message from llama.cpp"


class LlamaCppLM:
    """A GGUF model loaded by llama.cpp, weights as stored in the file (memory-mapped)."""

    backend = "llama_cpp"

    def __init__(self, path: Path, threads: int, gpu_layers: int = 0) -> None:
        self.path, self.threads, self.gpu_layers = Path(path), max(1, threads), gpu_layers
        params = ll.llama_model_default_params()
        params.n_gpu_layers = gpu_layers
        _log.clear()
        self._model = ll.llama_model_load_from_file(str(self.path).encode(), params)
        if not self._model:
            raise ModelLoadError(f"llama.cpp could not load {self.path} ({recent_log()}): the file is cut short or "
                                 "damaged (download it again), or its architecture is newer than this llama.cpp "
                                 "(upgrade llama-cpp-python, or load it with backend='torch')")
        self._vocab = ll.llama_model_get_vocab(self._model)
        self.vocab_size = int(ll.llama_vocab_n_tokens(self._vocab))
        self.context_length = int(ll.llama_model_n_ctx_train(self._model))
        eos = int(ll.llama_vocab_eos(self._vocab))
        self.config = SimpleNamespace(max_position_embeddings=self.context_length, eos_token_id=eos,
                                      vocab_size=self.vocab_size, name_or_path=str(self.path))
        self.generation_config = SimpleNamespace(eos_token_id=eos)
        self.device = torch.device("cpu")  # where the logits are: the fusion runs on them in torch
        self.dtype = torch.float32
        self._lock = threading.Lock()
        self._idle: list[Context] = []

    def modules(self) -> Iterator[torch.nn.Module]:
        """No torch modules (the decoder's CPU layout tuning has nothing to tune)."""
        return iter(())

    @property
    def description(self) -> str:
        buffer = ctypes.create_string_buffer(256)
        ll.llama_model_desc(self._model, buffer, len(buffer))
        return buffer.value.decode("utf-8", errors="replace")

    def tokenize(self, text: str, special: bool = True, add_special: bool = False) -> list[int]:
        """llama.cpp's own tokenizer (checked against the HF tokenizer the prompts are built with): ``special`` parses
        control-token text, ``add_special`` adds the BOS the model's vocabulary asks for."""
        data = text.encode("utf-8")
        room = len(data) + 16
        out = (ll.llama_token * room)()
        n = ll.llama_tokenize(self._vocab, data, len(data), out, room, add_special, special)
        return list(out[:n])

    @contextmanager
    def context(self, seqs: int, cells: int) -> Iterator[Context]:
        """A context for ``seqs`` sequences and ``cells`` KV cells, empty; back to the pool after the block."""
        if seqs > ll.llama_max_parallel_sequences():
            raise ValueError(f"{seqs} sequences in one context; llama.cpp takes {ll.llama_max_parallel_sequences()}")
        ctx = self._take(seqs, cells)
        try:
            yield ctx
        finally:
            ctx.clear()
            self._give_back(ctx)

    def _take(self, seqs: int, cells: int) -> Context:
        with self._lock:
            for i, ctx in enumerate(self._idle):
                if ctx.seqs >= seqs and ctx.cells >= cells:
                    return self._idle.pop(i)
        cells = -(-max(cells, 1) // CELLS_STEP) * CELLS_STEP
        return Context(self, max(seqs, 4), cells)

    def _give_back(self, ctx: Context) -> None:
        with self._lock:
            self._idle.append(ctx)
            self._idle.sort(key=lambda c: (c.cells, c.seqs))
            while len(self._idle) > IDLE_CONTEXTS:
                self._idle.pop(0).close()  # the smallest go: a large one serves every smaller decode

    def close(self) -> None:
        """Free every context and the model (also done when the object is collected)."""
        with self._lock:
            for ctx in self._idle:
                ctx.close()
            self._idle.clear()
        if getattr(self, "_model", None):
            ll.llama_model_free(self._model)
            self._model = None

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # interpreter shutdown: llama_cpp may be gone already
            pass


class Context:
    """One llama.cpp context: a unified KV cache for up to ``seqs`` sequences, ``cells`` tokens in all."""

    def __init__(self, lm: LlamaCppLM, seqs: int, cells: int) -> None:
        self.lm, self.seqs, self.cells = lm, seqs, cells
        params = ll.llama_context_default_params()
        params.n_ctx, params.n_seq_max = cells, seqs
        params.n_batch, params.n_ubatch = min(N_BATCH, cells), min(N_UBATCH, cells)
        params.n_threads = params.n_threads_batch = lm.threads
        params.kv_unified = True  # one cache for all sequences: a token of several sequences is stored once
        params.swa_full = True  # sliding-window layers keep every cell: a shared cell may still be in a window
        params.no_perf = True
        # Flash attention off: llama.cpp's CPU kernel for it rounds a prompt of a multi-sequence batch otherwise than
        # the same prompt alone; without it a prefix tree's logits equal each prompt's own bit for bit
        params.flash_attn_type = ll.LLAMA_FLASH_ATTN_TYPE_DISABLED
        _log.clear()
        self._ctx = ll.llama_init_from_model(lm._model, params)
        if not self._ctx:
            raise ModelLoadError(f"llama.cpp could not make a context of {cells} tokens for {lm.path} "
                                 f"({recent_log()}): free memory, or decode fewer questions at once")
        self._memory = ll.llama_get_memory(self._ctx)
        self.rows_per_call = max(1, (LOGITS_MB << 20) // (4 * lm.vocab_size))
        self._step = _StepBatch(min(seqs, self.rows_per_call, N_BATCH))

    def run(self, entries: Entries, take: Callable[[int, torch.Tensor], None] | None = None) -> torch.Tensor:
        """Decode ``entries`` (in llama_decode calls of at most n_batch tokens) and return the logits of those
        marked as outputs, in entry order: [outputs, V] float32. With ``take``, each call's logits go to
        ``take(first output's number, logits)`` instead (a view, valid during the call) and nothing is kept."""
        seq_flat = np.ascontiguousarray(entries.seq_ids, dtype=np.int32)
        out: list[torch.Tensor] = []
        first = 0
        for lo, hi in chunks(entries, min(N_BATCH, self.cells), self.rows_per_call):
            returned = int(entries.outputs[lo:hi].sum())
            self._decode(entries, seq_flat, lo, hi)
            if returned and take is not None:
                pointer = ll.llama_get_logits(self._ctx)
                take(first, torch.from_numpy(np.ctypeslib.as_array(pointer, shape=(returned, self.lm.vocab_size))))
            elif returned:
                out.append(self._logits(returned))
            first += returned
        if take is not None or not out:
            return torch.empty(0, self.lm.vocab_size)
        return torch.cat(out) if len(out) > 1 else out[0]

    def _decode(self, entries: Entries, seq_flat: np.ndarray, lo: int, hi: int) -> None:
        tokens = np.ascontiguousarray(entries.tokens[lo:hi], dtype=np.int32)
        positions = np.ascontiguousarray(entries.positions[lo:hi], dtype=np.int32)
        counts = np.ascontiguousarray(np.diff(entries.offsets[lo:hi + 1]), dtype=np.int32)
        outputs = np.ascontiguousarray(entries.outputs[lo:hi], dtype=np.int8)
        pointers = (seq_flat.ctypes.data + 4 * entries.offsets[lo:hi]).astype(np.uintp)
        batch = ll.llama_batch(
            n_tokens=hi - lo, token=tokens.ctypes.data_as(ctypes.POINTER(ll.llama_token)), embd=None,
            pos=positions.ctypes.data_as(ctypes.POINTER(ll.llama_pos)),
            n_seq_id=counts.ctypes.data_as(ctypes.POINTER(ctypes.c_int32)),
            seq_id=ctypes.cast(pointers.ctypes.data, ctypes.POINTER(ctypes.POINTER(ll.llama_seq_id))),
            logits=outputs.ctypes.data_as(ctypes.POINTER(ctypes.c_int8)))
        self._call(batch, hi - lo)

    def step(self, tokens: np.ndarray, positions: np.ndarray, seqs: np.ndarray) -> torch.Tensor:
        """One decode step: token ``tokens[i]`` at ``positions[i]`` of sequence ``seqs[i]``, each with its logits:
        [len(seqs), V] float32, in that order. Written into the context's own batch (:class:`_StepBatch`); steps of
        more sequences than it holds go through :meth:`run`."""
        n = len(seqs)
        if n > self._step.capacity:
            return self.run(one_each(tokens, positions, seqs))
        self._call(self._step.fill(tokens, positions, seqs), n)
        return self._logits(n)

    def _call(self, batch: ll.llama_batch, tokens: int) -> None:
        _log.clear()
        code = ll.llama_decode(self._ctx, batch)
        if code != 0:
            raise RuntimeError(f"llama.cpp failed to decode a batch of {tokens} tokens on {self.lm.path} (code "
                               f"{code}: {recent_log()})")

    def _logits(self, rows: int) -> torch.Tensor:
        """The last call's ``rows`` returned logits, copied once out of llama.cpp's buffer (which the next call
        overwrites) into a tensor of their own."""
        out = torch.empty(rows, self.lm.vocab_size, dtype=torch.float32)
        ctypes.memmove(out.data_ptr(), ll.llama_get_logits(self._ctx), out.nelement() * 4)
        return out

    def drop(self, seqs: list[int]) -> None:
        """Free the KV cells of these sequences (finished questions' streams); shared cells stay for the others."""
        for seq in seqs:
            ll.llama_memory_seq_rm(self._memory, seq, -1, -1)

    def clear(self) -> None:
        ll.llama_memory_clear(self._memory, True)

    def close(self) -> None:
        if getattr(self, "_ctx", None):
            ll.llama_free(self._ctx)
            self._ctx = None


class _StepBatch:
    """A llama_batch of one token per sequence, every one returning its logits, over numpy buffers kept for the
    context's life: a decode step writes its tokens, positions and sequences into them instead of building arrays,
    pointers and a batch struct each step."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.tokens = np.zeros(capacity, dtype=np.int32)
        self.positions = np.zeros(capacity, dtype=np.int32)
        self.seqs = np.zeros(capacity, dtype=np.int32)
        self.counts = np.ones(capacity, dtype=np.int32)
        self.outputs = np.ones(capacity, dtype=np.int8)
        self.pointers = (self.seqs.ctypes.data + 4 * np.arange(capacity)).astype(np.uintp)  # token i's seq: seqs[i]
        self.batch = ll.llama_batch(
            n_tokens=0, token=self.tokens.ctypes.data_as(ctypes.POINTER(ll.llama_token)), embd=None,
            pos=self.positions.ctypes.data_as(ctypes.POINTER(ll.llama_pos)),
            n_seq_id=self.counts.ctypes.data_as(ctypes.POINTER(ctypes.c_int32)),
            seq_id=ctypes.cast(self.pointers.ctypes.data, ctypes.POINTER(ctypes.POINTER(ll.llama_seq_id))),
            logits=self.outputs.ctypes.data_as(ctypes.POINTER(ctypes.c_int8)))

    def fill(self, tokens: np.ndarray, positions: np.ndarray, seqs: np.ndarray) -> ll.llama_batch:
        n = len(seqs)
        self.tokens[:n], self.positions[:n], self.seqs[:n] = tokens, positions, seqs
        self.batch.n_tokens = n
        return self.batch
