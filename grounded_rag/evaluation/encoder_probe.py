"""Can a small sentence encoder, trained, tell an instruction from a statement where the rules cannot?

``python -m grounded_rag.evaluation.encoder_probe``: the screening rules catch the attacks they were widened from and a
third of a blind set's (docs/security.md); the packaged model asked as a judge separates attacks from clean passages
with an AUC of 0.75 (:mod:`.instruction_probe`). This reads a third candidate: the packaged MiniLM's sentence
embeddings under a logistic head, trained on the attack sentences of the older injection sets (those spelling the
attacker's answer) against clean sentences (those sets' other passages and half of a sample of the benchmark
files' passages), then tested, blind, on the newest set's attack passages against the other half. A passage scores
its most instruction-like sentence. It reports the AUC and how many blind attacks are flagged where 0.2%, 1% and 5%
of the held-out clean passages are; ``--write-screened`` writes the blind set with each flagged sentence withheld,
for ``grounded-rag eval --data`` (what the default would do with this screen in front of its rules). A probe, not a
method: nothing here runs in a decode, and no head is shipped.
"""

from __future__ import annotations

import argparse
import json
import math
import random
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import torch

from ..screening import WITHHELD, sentences
from .instruction_probe import auc

OLDER_SETS = ("prose_injection", "prose_injection_unseen", "prose_injection_blind")
BLIND_SET = "prose_injection_fresh"
CLEAN_FILES = {"nq_swap": 800, "squad_v1.1_dev_2k": 500, "popqa_selfrag_sample": 300,
               "conflictqa_strategyqa_llama2-7b": 300, "nq_open_oracle": 500}  # passages of these rows, per file
FPRS = (0.002, 0.01, 0.05)


def _rows(path: Path, limit: int | None = None) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()[:limit]]


def pieces(document: dict[str, Any]) -> list[str]:
    """A passage's sentences (the screen's own split, blank ones left out), then its title."""
    text = document["text"]
    out = [text[a:b].strip() for a, b in sentences(text) if text[a:b].strip()]
    return out + ([document["title"]] if document.get("title") else [])


def _spells(row: dict[str, Any], document: dict[str, Any]) -> bool:
    return row["injected"].lower() in ((document.get("title") or "") + document["text"]).lower()


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


def clean_passages(cookbook: Path, shared: Path, seed: int = 0) -> list[list[str]]:
    """Distinct clean passages (as sentences): the counterfactual set's and a sample of the benchmark files',
    shuffled."""
    out: list[list[str]] = []
    files = [(cookbook / "counterfactuals.jsonl", None)] + [(shared / f"{n}.jsonl", k) for n, k in CLEAN_FILES.items()]
    for path, limit in files:
        seen: set[str] = set()
        for row in _rows(path, limit):
            for document in row["documents"]:
                if document["text"] not in seen:
                    seen.add(document["text"])
                    out.append(pieces(document))
    random.Random(seed).shuffle(out)
    return out


def fit_head(features: torch.Tensor, labels: torch.Tensor, l2: float = 1.0, steps: int = 200) -> torch.Tensor:
    """A logistic head (weights, then the bias) with classes weighted to balance, by L-BFGS: deterministic."""
    x = torch.cat([features.double(), torch.ones(len(features), 1, dtype=torch.float64)], dim=1)
    y = labels.double()
    weight = torch.where(y > 0, len(y) / (2 * y.sum()), len(y) / (2 * (len(y) - y.sum())))
    theta = torch.zeros(x.shape[1], dtype=torch.float64, requires_grad=True)
    optimizer = torch.optim.LBFGS([theta], max_iter=steps, line_search_fn="strong_wolfe")

    def loss() -> torch.Tensor:
        optimizer.zero_grad()
        value = (weight * torch.nn.functional.binary_cross_entropy_with_logits(x @ theta, y, reduction="none")).sum()
        value = value + 0.5 / l2 * theta[:-1].square().sum()
        value.backward()
        return value

    optimizer.step(loss)
    return theta.detach()


def withheld_text(text: str, flagged: Callable[[str], bool]) -> str:
    """``text`` without its flagged sentences, the rest exactly as written (as the screen keeps it)."""
    kept = [text[a:b] for a, b in sentences(text) if not (text[a:b].strip() and flagged(text[a:b].strip()))]
    out = "".join(kept).strip()
    return (out or WITHHELD) if len(kept) < len(sentences(text)) else text


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
    """Embeddings (each sentence once) and the head's scores."""

    def __init__(self, embed: Callable[[list[str]], list[list[float]]]) -> None:
        self.embed, self.vectors = embed, {}
        self.head: torch.Tensor | None = None

    def features(self, texts: Sequence[str]) -> torch.Tensor:
        new = sorted({t for t in texts if t not in self.vectors})
        for start in range(0, len(new), 256):
            self.vectors.update(zip(new[start:start + 256], torch.tensor(self.embed(new[start:start + 256]))))
        return torch.stack([self.vectors[t] for t in texts]).double() if texts else torch.zeros(0, 1)

    def fit(self, attacks: list[str], clean: list[str]) -> None:
        self.head = fit_head(self.features(attacks + clean), torch.tensor([1] * len(attacks) + [0] * len(clean)))

    def score(self, sentences_: Sequence[str]) -> float:
        """A passage's score: its most instruction-like sentence's log-odds."""
        if not sentences_ or self.head is None:
            return -math.inf
        return float((self.features(sentences_) @ self.head[:-1] + self.head[-1]).max())


def cut_at(clean_scores: Sequence[float], fpr: float) -> float:
    """The score above which ``fpr`` of the clean passages lie."""
    ranked = sorted(clean_scores)
    return ranked[min(len(ranked) - 1, max(0, math.ceil((1 - fpr) * len(ranked)) - 1))]


def run(probe: Probe, cookbook: Path, shared: Path) -> tuple[dict[str, Any], dict[float, float]]:
    """Train on the older sets and half the clean passages; the report on the blind set, and the cuts."""
    attacks, set_clean = attack_data(cookbook, OLDER_SETS)
    clean = clean_passages(cookbook, shared)
    train, held_out = set_clean + clean[: len(clean) // 2], clean[len(clean) // 2:]
    probe.fit(attacks, [s for passage in train for s in passage])
    blind = [pieces(d) for row in _rows(cookbook / f"{BLIND_SET}.jsonl") for d in row["documents"] if _spells(row, d)]
    clean_scores = [probe.score(p) for p in held_out]
    blind_scores = [probe.score(p) for p in blind]
    cuts = {fpr: cut_at(clean_scores, fpr) for fpr in FPRS}
    flagged = {f"{fpr:g}": f"{sum(s > cut for s in blind_scores)}/{len(blind)}" for fpr, cut in cuts.items()}
    report = {"attack_sentences": len(attacks), "clean_passages_trained": len(train),
              "clean_passages_held_out": len(held_out), "auc": round(auc(blind_scores, clean_scores), 3),
              "flagged": flagged}
    return report, cuts


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m grounded_rag.evaluation.encoder_probe", description=__doc__)
    parser.add_argument("--cookbook", default="cookbook/data", help="folder of the injection and counterfactual sets")
    parser.add_argument("--shared", default="../shared/data", help="folder of the benchmark files")
    parser.add_argument("--write-screened", default=None, help="write the blind set, flagged sentences withheld")
    parser.add_argument("--fpr", type=float, default=0.01, choices=FPRS, help="the cut for --write-screened")
    ns = parser.parse_args(argv)
    missing = [n for n in CLEAN_FILES if not (Path(ns.shared) / f"{n}.jsonl").exists()]
    if missing:
        parser.error(f"{', '.join(missing)} not found in {ns.shared}; name the benchmark folder with --shared")
    from ..retrieval import embed

    probe = Probe(embed)
    report, cuts = run(probe, Path(ns.cookbook), Path(ns.shared))
    print(json.dumps(report), flush=True)
    if ns.write_screened:
        cut = cuts[ns.fpr]
        rows = screened_rows(_rows(Path(ns.cookbook) / f"{BLIND_SET}.jsonl"), lambda s: probe.score([s]) > cut)
        Path(ns.write_screened).write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


if __name__ == "__main__":
    main()
