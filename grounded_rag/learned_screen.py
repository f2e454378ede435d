"""The learned half of screening: a sentence encoder's judgement of whether a sentence speaks to the model.

The rules of :mod:`grounded_rag.screening` catch the attack wordings they were written from and few of those written
after them (docs/security.md). An instruction has a register more than a vocabulary — it addresses a reader, names
the task, asks for an answer — and the packaged MiniLM's sentence embeddings carry that register: a logistic head
over them, trained on the attack sentences of the project's injection sets against clean passages (benchmark
passages, and real handbooks, runbooks and READMEs, which speak to their own reader in every section), tells most
attacks written blind from clean text. With ``DecodingConfig.screen_classifier`` (opt-in, ``ask --learned-screen``;
docs/security.md has what it catches, what it costs and why it is not the default) it judges every sentence of the
untrusted passages of at least :data:`MIN_WORDS` words, but not a heading or a title of fewer than eight
(:func:`grounded_rag.screening.judged`), and withholds those the rules kept and it scores above its cut (rule
``"learned"``). The head is 385 numbers in ``data/instruction_head.json``, written by ``python -m
grounded_rag.evaluation.encoder_probe --write-head`` (the file names the data and the cut's false-positive rate);
the encoder is the packaged one the store already uses.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import torch

from .errors import ModelLoadError

HEAD_PATH = Path(__file__).with_name("data") / "instruction_head.json"
BATCH = 64  # sentences per encoder call: bounds the padding a long sentence costs the short ones beside it
MIN_WORDS = 5  # shorter pieces (a heading, "Cyrus Cylinder", a link, a line of code) carry no register to judge
REMEMBERED = 16_384  # sentences whose verdicts are kept (about 2 MB)


@dataclass(frozen=True)
class Head:
    """A logistic head over unit-length MiniLM sentence embeddings, and the log-odds above which it flags."""

    weights: torch.Tensor
    bias: float
    cut: float

    def scores(self, vectors: torch.Tensor) -> torch.Tensor:
        """Each embedding's log-odds of being an instruction to the model."""
        return vectors.double() @ self.weights + self.bias


@lru_cache(maxsize=1)
def load_head(path: Path = HEAD_PATH) -> Head:
    """The shipped head, read once per process."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        weights = torch.tensor(data["weights"], dtype=torch.float64)
        head = Head(weights, float(data["bias"]), float(data["cut"]))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ModelLoadError(f"the screening head at {path} cannot be read ({exc}); reinstall grounded-rag, or turn "
                             "the learned screen off (DecodingConfig.screen_classifier=False)") from exc
    if weights.ndim != 1 or not torch.isfinite(weights).all():
        raise ModelLoadError(f"the screening head at {path} is damaged; reinstall grounded-rag")
    return head


def _key(text: str) -> bytes:
    """A sentence's key among the remembered verdicts: 16 bytes, however long the sentence (a table with no full
    stop is one)."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


class _Verdicts:
    """The head's verdicts on the sentences it has judged, the most recent :data:`REMEMBERED` of them: a server's
    store hands the same passages to many questions, and each sentence is judged once. A verdict is the sentence's
    own, whichever batch it was judged in."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.known: OrderedDict[bytes, bool] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, texts: Iterable[str]) -> tuple[set[str], list[str]]:
        """The flagged ones among ``texts`` already judged, and those not judged yet."""
        flagged, unknown = set(), []
        with self.lock:
            for text in texts:
                key = _key(text)
                verdict = self.known.get(key)
                if verdict is None:
                    unknown.append(text)
                    continue
                self.known.move_to_end(key)
                if verdict:
                    flagged.add(text)
        return flagged, unknown

    def put(self, verdicts: dict[str, bool]) -> None:
        with self.lock:
            self.known.update((_key(text), verdict) for text, verdict in verdicts.items())
            while len(self.known) > self.size:
                self.known.popitem(last=False)

    def clear(self) -> None:
        with self.lock:
            self.known.clear()


_VERDICTS = _Verdicts(REMEMBERED)


def forget_verdicts() -> None:
    """Judge every sentence afresh from now on (a benchmark phase pays for its own screening)."""
    _VERDICTS.clear()


_TARGET = re.compile(r"\]\([^)\s]*\)")  # a link's target: shown to no reader as words
_ADDRESS = re.compile(r"\b[a-z][\w+.-]*://[^\s)\]]*", re.IGNORECASE)


def as_read(sentence: str) -> str:
    """A sentence as its reader reads it: a link's words, not its target ("[Yvette Pasqua](https://…)" read whole
    scores a reading-list entry as an instruction). The rules still read every target."""
    return _ADDRESS.sub("", _TARGET.sub("]", sentence))


def flagged(sentences: Iterable[str]) -> set[str]:
    """The sentences (stripped, with letters, of at least :data:`MIN_WORDS` words) the head scores above its cut."""
    from .encoders import embed_queries

    out, texts = _VERDICTS.get({s for s in sentences if len(s.split()) >= MIN_WORDS})
    if not texts:
        return out
    head = load_head()
    texts.sort(key=lambda t: (len(t), t))  # like lengths share a batch: little padding
    for start in range(0, len(texts), BATCH):
        batch = texts[start:start + BATCH]
        read = [as_read(t) for t in batch]
        verdicts = {t: s > head.cut for t, s in zip(batch, head.scores(torch.tensor(embed_queries(read))).tolist())}
        _VERDICTS.put(verdicts)
        out.update(t for t, flag in verdicts.items() if flag)
    return out


def warm() -> None:
    """Read the head and load the encoder now: a server does it before its first request, so no answer waits for
    them. Never beside another model's loading on another thread: transformers' loading is not thread-safe."""
    from .encoders import load_query_encoder

    load_head()
    load_query_encoder()
