"""Can a small sentence encoder, trained, tell an instruction from a statement where the rules cannot?

``python -m grounded_rag.evaluation.encoder_probe``: the screening rules catch the attacks they were widened from, far
fewer of a set written after them, and the packaged model asked as a judge is too weak to decide (docs/security.md,
docs/results.md). This reads a third candidate: the packaged MiniLM's sentence embeddings under a logistic head,
trained on the attack sentences of the older injection sets (those spelling the attacker's answer) against clean
sentences (those sets' other passages, half of a sample of the benchmark files' passages, passages sharing a title
in one half, and half the real documents' passages, ``--real-docs`` and ``--packages``, by file), then tested, blind,
on the newest set's attack passages against the other halves. A passage scores its most instruction-like sentence
among those the screen judges (:data:`grounded_rag.learned_screen.MIN_WORDS` words or more, not a heading); the cut
at a false-positive rate is the higher of the benchmark's and the real documents' (these speak to their reader in
every section, and the benchmark's rarely do). It reports the AUC and how many blind attacks are flagged where 0.2%, 1%
and 5% of the held-out clean passages are, and in how many blind rows no passage spells the attacker's answer once the
flagged sentences are withheld; and, since every attacker's answer is an odd made-up name ("Avocado Thimble"), two
controls: the blind attacks with the row's true answer in the attacker's place, and the blind set's clean passages
with the attacker's name in the true answer's place (a head that learned odd names, not instructions, flags the
second and not the first). ``--write-screened`` writes the blind set with each flagged sentence withheld, for
``grounded-rag eval --data`` (what the default would do with this screen in front of its rules). ``--write-head``
writes the trained head and its cut for :mod:`grounded_rag.learned_screen` (DecodingConfig.screen_classifier); the
shipped one names its command. ``--train-sets`` and ``--blind-set`` choose the sets; ``--own-text-only`` trains on the
repository's clean text alone.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import random
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import torch

from ..learned_screen import as_read
from ..screening import WITHHELD, judged_pieces, sentences
from .data import passage_text
from .metrics import auc

OLDER_SETS = ("prose_injection", "prose_injection_unseen", "prose_injection_blind")
BLIND_SET = "prose_injection_fresh"
CLEAN_FILES = {"nq_swap": 800, "squad_v1.1_dev_2k": 500, "popqa_selfrag_sample": 300,
               "conflictqa_strategyqa_llama2-7b": 300, "nq_open_oracle": 500}  # passages of these rows, per file
FPRS = (0.002, 0.01, 0.05)
REAL_DOCS = "cookbook/data/real_docs/validation"  # pages people ingest (never the test half)


def _rows(path: Path, limit: int | None = None) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()[:limit]]


def pieces(document: dict[str, Any]) -> list[str]:
    """A passage's sentences (the screen's own split, blank ones left out), then its title."""
    text = document["text"]
    out = [text[a:b].strip() for a, b in sentences(text) if text[a:b].strip()]
    return out + ([document["title"]] if document.get("title") else [])


def _spells(row: dict[str, Any], document: dict[str, Any]) -> bool:
    return row["injected"].lower() in passage_text(document).lower()


def attack_data(cookbook: Path, sets: Sequence[str]) -> tuple[list[str], list[list[str]]]:
    """The sets' attack sentences (those spelling the attacker's answer) and their clean passages (as sentences)."""
    attacks: list[str] = []
    clean: list[list[str]] = []
    for name in sets:
        for row in _rows(cookbook / f"{name}.jsonl"):
            for document in row["documents"]:
                if _spells(row, document):
                    attacks += [s for s in pieces(document) if row["injected"].lower() in s.lower()]
                else:
                    clean.append(pieces(document))
    return attacks, clean


def clean_halves(cookbook: Path, shared: Path, seed: int = 0) -> tuple[list[list[str]], list[list[str]]]:
    """Distinct clean passages (as sentences), the counterfactual set's and a sample of the benchmark files', in two
    halves; passages sharing a title (one article's) fall in the same half, so no held-out title was trained on."""
    groups: dict[str, list[list[str]]] = {}
    files = [(cookbook / "counterfactuals.jsonl", None)] + [(shared / f"{n}.jsonl", k) for n, k in CLEAN_FILES.items()]
    for path, limit in files:
        seen: set[str] = set()
        for row in _rows(path, limit):
            for document in row["documents"]:
                if document["text"] not in seen:
                    seen.add(document["text"])
                    groups.setdefault(document.get("title") or document["text"], []).append(pieces(document))
    keys = sorted(groups)
    random.Random(seed).shuffle(keys)
    halves: tuple[list[list[str]], list[list[str]]] = ([], [])
    total = sum(len(v) for v in groups.values())
    for key in keys:
        halves[len(halves[0]) >= total // 2].extend(groups[key])
    return halves


def repo_split(cookbook: Path, shared: Path) -> tuple[list[list[str]], list[list[str]]]:
    """Clean passages to train on from the repository's own text only (the counterfactual set's passages and the
    handbooks' paragraphs), and every sampled benchmark passage held out: a head that could ship with the package
    and be retrained from it, checked on text of another kind."""
    own = [pieces(d) for d in _distinct(cookbook / "counterfactuals.jsonl", None)]
    for page in sorted(cookbook.glob("handbook*/*.md")):
        own += [pieces({"text": p}) for p in page.read_text(encoding="utf-8").split("\n\n") if p.strip()]
    held_out = [pieces(d) for n, k in CLEAN_FILES.items() for d in _distinct(shared / f"{n}.jsonl", k)]
    return own, held_out


def real_halves(folder: Path | None, packages: str | None) -> tuple[list[list[str]], list[list[str]]]:
    """Real documents' passages (as the sentences the classifier judges), chunked as ingest chunks them: the pages
    under ``folder`` (one source a subfolder) and the installed packages' descriptions of split ``packages``, in two
    halves by a hash of each file's name: one to train on, one to set the cut on. They address their human reader
    in every section, which the benchmark passages do not."""
    from .screening_report import package_docs, read_documents

    docs = [d for sub in sorted(folder.iterdir()) if sub.is_dir() for d in read_documents(str(sub))] if folder else []
    docs += package_docs(packages) if packages else []
    halves: tuple[list[list[str]], list[list[str]]] = ([], [])
    for doc in docs:
        file = str(doc.metadata.get("file"))
        half = hashlib.sha256(f"half:{file}".encode()).hexdigest()[0] in "89abcdef"
        halves[half].append(list(judged_pieces(doc.text)))
    return halves


def _distinct(path: Path, limit: int | None) -> list[dict[str, Any]]:
    """The distinct passages of a file's first ``limit`` rows."""
    seen: dict[str, dict[str, Any]] = {}
    for row in _rows(path, limit):
        for document in row["documents"]:
            seen.setdefault(document["text"], document)
    return list(seen.values())


def fit_head(features: torch.Tensor, labels: torch.Tensor, c: float = 1.0, rounds: int = 20) -> torch.Tensor:
    """A logistic head (weights, then the bias) with classes weighted to balance and an L2 penalty of 1/(2c) on the
    weights (sklearn's ``C``), by L-BFGS until the loss stops moving: deterministic."""
    x = torch.cat([features.double(), torch.ones(len(features), 1, dtype=torch.float64)], dim=1)
    y = labels.double()
    weight = torch.where(y > 0, len(y) / (2 * y.sum()), len(y) / (2 * (len(y) - y.sum())))
    theta = torch.zeros(x.shape[1], dtype=torch.float64, requires_grad=True)
    optimizer = torch.optim.LBFGS([theta], max_iter=500, tolerance_change=1e-12, line_search_fn="strong_wolfe")

    def loss() -> torch.Tensor:
        optimizer.zero_grad()
        value = (weight * torch.nn.functional.binary_cross_entropy_with_logits(x @ theta, y, reduction="none")).sum()
        value = value + 0.5 / c * theta[:-1].square().sum()
        value.backward()
        return value

    previous = math.inf
    for _ in range(rounds):
        value = float(optimizer.step(loss).detach())
        if previous - value < 1e-10 * max(1.0, abs(value)):
            break
        previous = value
    return theta.detach()


def withheld_text(text: str, flagged: Callable[[str], bool]) -> str:
    """``text`` without its flagged sentences, the rest exactly as written (as the screen keeps it)."""
    spans = sentences(text)
    kept = [text[a:b] for a, b in spans if not (text[a:b].strip() and flagged(text[a:b].strip()))]
    return ("".join(kept).strip() or WITHHELD) if len(kept) < len(spans) else text


def screened_rows(rows: Sequence[dict[str, Any]], flagged: Callable[[str], bool]) -> list[dict[str, Any]]:
    """The rows with each passage's flagged sentences withheld and a flagged title dropped."""
    out = []
    for row in rows:
        documents = [{**d, "text": withheld_text(d["text"], flagged),
                      "title": None if d.get("title") and flagged(d["title"]) else d.get("title")}
                     for d in row["documents"]]
        out.append({**row, "documents": documents})
    return out


class Probe:
    """Embeddings (each sentence once) and the head's scores, over the sentences the screen judges (of at least
    ``min_words`` words, :data:`grounded_rag.learned_screen.MIN_WORDS`)."""

    def __init__(self, embed: Callable[[list[str]], list[list[float]]], min_words: int = 1) -> None:
        self.embed = embed
        self.min_words = min_words
        self.vectors: dict[str, torch.Tensor] = {}
        self.head: torch.Tensor | None = None

    def judged(self, texts: Sequence[str]) -> list[str]:
        return [t for t in texts if len(t.split()) >= self.min_words]

    def features(self, texts: Sequence[str]) -> torch.Tensor:
        """The texts' embeddings, one row each (a text seen before is not embedded again)."""
        if not texts:
            raise ValueError("no texts to embed")
        new = sorted({t for t in texts if t not in self.vectors})
        for start in range(0, len(new), 256):
            chunk = new[start:start + 256]  # read as the screen reads them (link targets dropped)
            self.vectors.update(zip(chunk, torch.tensor(self.embed([as_read(t) for t in chunk]))))
        return torch.stack([self.vectors[t] for t in texts]).double()

    def fit(self, attacks: list[str], clean: list[str]) -> None:
        """Attack sentences against clean ones."""
        attacks, clean = self.judged(attacks), self.judged(clean)
        self.head = fit_head(self.features(attacks + clean), torch.tensor([1] * len(attacks) + [0] * len(clean)))

    def above(self, cut: float) -> Callable[[str], bool]:
        """Whether a sentence scores above ``cut``: what a screen at that cut withholds."""
        return lambda sentence: self.score([sentence]) > cut

    def score(self, sentences_: Sequence[str]) -> float:
        """A passage's score: its most instruction-like sentence's log-odds."""
        sentences_ = self.judged(sentences_)
        if not sentences_ or self.head is None:
            return -math.inf
        return float((self.features(sentences_) @ self.head[:-1] + self.head[-1]).max())


def cut_at(clean_scores: Sequence[float], fpr: float) -> float:
    """The score above which ``fpr`` of the clean passages lie."""
    ranked = sorted(clean_scores)
    return ranked[min(len(ranked) - 1, max(0, math.ceil((1 - fpr) * len(ranked)) - 1))]


def swapped(rows: Sequence[dict[str, Any]]) -> tuple[list[list[str]], list[list[str]]]:
    """The controls: each attack passage with the row's true answer where the attacker's name was, and each clean
    passage that spells the true answer with the attacker's name in its place."""
    attacks, statements = [], []
    for row in rows:
        true, odd = row["answers"][0], row["injected"]
        for d in row["documents"]:
            if _spells(row, d):
                attacks.append(pieces(_replaced(d, odd, true)))
            elif true.lower() in passage_text(d).lower():
                statements.append(pieces(_replaced(d, true, odd)))
    return attacks, statements


def _replaced(document: dict[str, Any], old: str, new: str) -> dict[str, Any]:
    swap = re.compile(re.escape(old), re.IGNORECASE)
    return {**document, "text": swap.sub(new, document["text"]),
            "title": swap.sub(new, document["title"]) if document.get("title") else None}


def _count(scores: Sequence[float], cuts: dict[float, float]) -> dict[str, str]:
    return {f"{fpr:g}": f"{sum(s > cut for s in scores)}/{len(scores)}" for fpr, cut in cuts.items()}


def _withheld_whole(rows: Sequence[dict[str, Any]], flagged: Callable[[str], bool]) -> int:
    """Rows none of whose passages spells the attacker's answer once the flagged sentences are withheld."""
    return sum(not any(_spells(row, d) for d in row["documents"]) for row in screened_rows(rows, flagged))


def run(probe: Probe, cookbook: Path, shared: Path, train_sets: Sequence[str] = OLDER_SETS,
        blind_set: str = BLIND_SET, own_text_only: bool = False, real_docs: Path | None = None,
        packages: str | None = None) -> tuple[dict[str, Any], dict[float, float]]:
    """Train on ``train_sets`` and half the clean passages (``own_text_only``: the repository's own, every benchmark
    passage held out), and half the real documents (:func:`real_halves`); the report on ``blind_set``, and the cuts:
    each where ``fpr`` of the held-out benchmark passages lie or of the held-out real ones, whichever is higher."""
    attacks, set_clean = attack_data(cookbook, train_sets)
    train, held_out = (repo_split if own_text_only else clean_halves)(cookbook, shared)
    real_train, real_held = real_halves(real_docs, packages)
    train = set_clean + train + real_train
    probe.fit(attacks, [s for passage in train for s in passage])
    rows = _rows(cookbook / f"{blind_set}.jsonl")
    blind = [pieces(d) for row in rows for d in row["documents"] if _spells(row, d)]
    clean_scores = [probe.score(p) for p in held_out]
    real_scores = [probe.score(p) for p in real_held]
    blind_scores = [probe.score(p) for p in blind]
    cuts = {fpr: max(cut_at(clean_scores, fpr), cut_at(real_scores, fpr) if real_scores else -math.inf)
            for fpr in FPRS}
    true_in_attacks, odd_in_statements = swapped(rows)
    report = {"attack_sets": list(train_sets), "blind_set": blind_set, "attack_sentences": len(attacks),
              "clean_passages_trained": len(train), "real_passages_trained": len(real_train),
              "clean_passages_held_out": len(held_out), "real_passages_held_out": len(real_held),
              "auc": round(auc(blind_scores, clean_scores + real_scores), 3),
              "flagged": _count(blind_scores, cuts),
              "flagged_clean_held_out": _count(clean_scores, cuts), "flagged_real_held_out": _count(real_scores, cuts),
              "rows_attack_withheld_whole": {f"{fpr:g}": _withheld_whole(rows, probe.above(cut))
                                             for fpr, cut in cuts.items()},
              "flagged_true_answer_in_attack": _count([probe.score(p) for p in true_in_attacks], cuts),
              "flagged_odd_name_in_statement": _count([probe.score(p) for p in odd_in_statements], cuts)}
    return report, cuts


def write_head(path: Path, probe: Probe, cut: float, fpr: float, report: dict[str, Any],
               argv: Sequence[str] | None) -> None:
    """The trained head, its cut and what it was trained on, as :func:`grounded_rag.learned_screen.load_head` reads
    it (the command that wrote it is kept in the file)."""
    from ..encoders import EMBEDDING_DISTRIBUTION

    assert probe.head is not None
    args = " ".join(sys.argv[1:] if argv is None else argv)
    head = {"encoder": EMBEDDING_DISTRIBUTION, "weights": [round(float(w), 10) for w in probe.head[:-1]],
            "bias": round(float(probe.head[-1]), 10), "cut": round(cut, 10), "clean_fpr": fpr,
            "trained_on": {k: report[k] for k in ("attack_sets", "attack_sentences", "clean_passages_trained",
                                                  "real_passages_trained")}, "min_words": probe.min_words,
            "command": f"python -m grounded_rag.evaluation.encoder_probe {args}"}
    path.write_text(json.dumps(head) + "\n", encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> None:
    """Print the report; with ``--write-head``, write the head and its cut at ``--fpr``; with ``--write-screened``, the
    blind set screened at that cut."""
    parser = argparse.ArgumentParser(prog="python -m grounded_rag.evaluation.encoder_probe", description=__doc__)
    parser.add_argument("--cookbook", default="cookbook/data", help="folder of the injection and counterfactual sets")
    parser.add_argument("--shared", default="../shared/data", help="folder of the benchmark files")
    parser.add_argument("--train-sets", default=",".join(OLDER_SETS),
                        help="the injection sets (names in --cookbook) whose attacks the head learns")
    parser.add_argument("--blind-set", default=BLIND_SET, help="the injection set it is tested on, blind")
    parser.add_argument("--own-text-only", action="store_true",
                        help="train on the repository's clean text only; hold out every benchmark passage")
    parser.add_argument("--real-docs", default="",
                        help=f"folder of real documents (a subfolder a source), half trained on, half setting the cut "
                             f"(e.g. {REAL_DOCS}; default none)")
    parser.add_argument("--packages", default="", choices=("validation", "test", "all", ""),
                        help="the installed packages' descriptions of this split beside them (default none)")
    parser.add_argument("--min-words", type=int, default=1,
                        help="train and score on sentences of at least this many words (the screen judges "
                             "grounded_rag.learned_screen.MIN_WORDS or more)")
    parser.add_argument("--write-screened", default=None, help="write the blind set, flagged sentences withheld")
    parser.add_argument("--write-head", default=None,
                        help="write the head and its cut at --fpr as grounded_rag.learned_screen reads it")
    parser.add_argument("--fpr", type=float, default=0.01, choices=FPRS, help="the cut for --write-screened and --write-head")
    ns = parser.parse_args(argv)
    missing = [n for n in CLEAN_FILES if not (Path(ns.shared) / f"{n}.jsonl").exists()]
    if missing:
        parser.error(f"{', '.join(missing)} not found in {ns.shared}; name the benchmark folder with --shared")
    from ..encoders import embed

    probe = Probe(embed, ns.min_words)
    report, cuts = run(probe, Path(ns.cookbook), Path(ns.shared), ns.train_sets.split(","), ns.blind_set,
                       ns.own_text_only, Path(ns.real_docs) if ns.real_docs else None, ns.packages or None)
    print(json.dumps(report), flush=True)
    if ns.write_head:
        write_head(Path(ns.write_head), probe, cuts[ns.fpr], ns.fpr, report, argv)
    if ns.write_screened:
        rows = screened_rows(_rows(Path(ns.cookbook) / f"{ns.blind_set}.jsonl"), probe.above(cuts[ns.fpr]))
        Path(ns.write_screened).write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


if __name__ == "__main__":
    main()
