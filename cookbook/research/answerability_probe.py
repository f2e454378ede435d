"""Does the packaged model's hidden state know whether its passages answer the question? A linear probe on SQuAD 2.0.

Support reads the answer's words in the passages (docs/citations.md); on SQuAD 2.0, whose unanswerable questions
keep the subject and the paragraph's words, it separates right answers from unanswerable questions with AUROC about
0.7. A probe on what the model itself read is the next place such a signal could be. The steps:

``python cookbook/research/answerability_probe.py extract validation 800 val.npz`` (and ``test 400 test.npz``)
    renders each row as the default method's full stream reads it (its own paragraph and two of the same article's,
    the package's prompt) and keeps the hidden state at the prompt's last token, every fourth layer of the model,
    with the row's label (answerable) and article;
``python cookbook/research/answerability_probe.py report val.npz test.npz``
    fits a logistic head per layer and prints its AUROC three ways: rows of the same articles held out (five folds:
    the head may learn the articles' questions), whole articles held out (the question a user's documents pose),
    and fitted on every validation row, read on the test rows (their own articles) with a bootstrap CI;
``python cookbook/research/answerability_probe.py extract-run RUN/generations.jsonl run.npz``, then
``combine val.npz run.npz RUN/generations.jsonl``
    reads the rows a ``grounded-rag eval`` run decoded on SQuAD 2.0 (docs/citations.md's table) and prints, for the
    default's answers, support alone, the probe alone and support x probe ** w: AUROC of right answers against
    unanswerable questions and against wrong answers, and the share of unanswerable questions withheld at the cut
    that withholds 10% of right answers (a cut read off the same rows: it compares the signals, it is no threshold).
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

import numpy as np

SQUAD = Path(__file__).parents[2].parent / "shared" / "data" / "squad_v2_dev.jsonl"
EVERY = 4  # every fourth layer's state is kept: the probe's grid
C = 0.01  # the head's inverse regularisation: one value for every layer (an equal grid, nothing chosen on test)
DEFAULT = "grounded_contrast"  # the method whose answers an eval run's records are read for
POWERS = (0.0, 0.5, 1.0, 2.0, 4.0)  # w in support x probe ** w


def rows_of(data: Path, split: str, limit: int) -> list:
    """``limit`` shuffled rows of ``split``, each with two paragraphs of its own article beside its own."""
    from grounded_rag.evaluation.data import add_distractors, load_examples, split_examples

    rows = split_examples(load_examples(data), split)
    random.Random(0).shuffle(rows)
    return add_distractors(rows[:limit], rows, 2)


def states(decoder, rows) -> dict[str, np.ndarray]:
    """Each row's hidden state at its prompt's last token (every :data:`EVERY`-th layer), its label and article."""
    import torch

    from grounded_rag import DecodingConfig, Document
    from grounded_rag.prompts import build_prompts, encode

    config = DecodingConfig()
    kept, labels, articles = [], [], []
    for row in rows:
        docs = [Document(text=d["text"], title=d.get("title")) for d in row.documents]
        prompt = build_prompts(decoder.tokenizer, row.question, docs, (), config.template, config.system_prompt,
                               config.answer_prefix)[0]
        ids = torch.tensor([encode(decoder.tokenizer, prompt)])  # the passages' text kept text, as decoding does
        with torch.no_grad():
            hidden = decoder.model(ids, output_hidden_states=True).hidden_states
        kept.append(torch.stack([h[0, -1] for h in hidden[EVERY::EVERY]]).float().numpy())
        labels.append(not row.unanswerable)
        articles.append(docs[0].title or "")
    return {"states": np.array(kept), "answerable": np.array(labels), "article": np.array(articles)}


def extract(split: str, limit: int, out: Path, model: str | None = None, data: Path = SQUAD) -> None:
    from grounded_rag import GroundedDecoder

    np.savez(out, **states(GroundedDecoder.from_pretrained(model), rows_of(data, split, limit)))


def _head():
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    return make_pipeline(StandardScaler(), LogisticRegression(C=C, max_iter=3000))


def layer_aurocs(validation: dict[str, np.ndarray], test: dict[str, np.ndarray]) -> list[dict[str, float]]:
    """Per kept layer: AUROC with rows held out, with articles held out, and on the test rows (with its CI)."""
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import GroupKFold, StratifiedKFold, cross_val_predict

    from grounded_rag.evaluation.bootstrap import auroc_ci

    y, groups = validation["answerable"], validation["article"]
    folds = min(5, len(set(groups)))
    out = []
    for layer in range(validation["states"].shape[1]):
        x = validation["states"][:, layer]
        rows = cross_val_predict(_head(), x, y, cv=StratifiedKFold(5, shuffle=True, random_state=0),
                                 method="predict_proba")[:, 1]
        articles = cross_val_predict(_head(), x, y, groups=groups, cv=GroupKFold(folds), method="predict_proba")[:, 1]
        scores = _head().fit(x, y).predict_proba(test["states"][:, layer])[:, 1]
        value, low, high = auroc_ci(list(scores), list(test["answerable"]))
        out.append({"layer": EVERY * (layer + 1), "rows_held_out": roc_auc_score(y, rows),
                    "articles_held_out": roc_auc_score(y, articles), "test": value, "test_low": low, "test_high": high})
    return out


def report(validation: Path, test: Path) -> None:
    val, tst = dict(np.load(validation)), dict(np.load(test))
    print(f"validation {len(val['answerable'])} rows of {len(set(val['article']))} articles, "
          f"test {len(tst['answerable'])} rows of {len(set(tst['article']))} articles")
    print("| layer | rows held out | articles held out | test (95% CI) |\n|---|---|---|---|")
    for r in layer_aurocs(val, tst):
        print(f"| {r['layer']} | {r['rows_held_out']:.2f} | {r['articles_held_out']:.2f} | "
              f"{r['test']:.2f} [{r['test_low']:.2f}, {r['test_high']:.2f}] |")


def run_records(generations: Path) -> dict[str, dict]:
    """The records of a ``grounded-rag eval`` run's answers by the default method, by row id, in run order."""
    return {r["id"]: r for r in map(json.loads, generations.open(encoding="utf-8")) if r.get("method") == DEFAULT}


def extract_run(generations: Path, out: Path, model: str | None = None, data: Path = SQUAD) -> None:
    """:func:`states` of the rows an eval run decoded (with their distractors), and their ids."""
    from grounded_rag import GroundedDecoder
    from grounded_rag.evaluation.data import add_distractors, load_examples

    rows = {r.id: r for r in load_examples(data)}
    decoded = add_distractors([rows[i] for i in run_records(generations)], list(rows.values()), 2)
    np.savez(out, ids=np.array([r.id for r in decoded]),
             **states(GroundedDecoder.from_pretrained(model), decoded))



def signal_table(probe_scores: np.ndarray, support: np.ndarray, kind: np.ndarray) -> list[dict[str, float]]:
    """Per signal (support x probe ** w for each power, then the probe alone): AUROC right/unanswerable, right/wrong,
    and the share of unanswerable rows below the cut that withholds 10% of right answers."""
    from grounded_rag.evaluation.bootstrap import auroc

    out = []
    for w in (*POWERS, None):
        s = probe_scores if w is None else support * probe_scores ** w
        right, wrong, unans = s[kind == "right"], s[kind == "wrong"], s[kind == "unanswerable"]
        out.append({"power": w, "right_unanswerable": auroc(right, unans), "right_wrong": auroc(right, wrong),
                    "withheld": float(np.mean(unans < np.quantile(right, 0.10)))})
    return out


def combine(validation: Path, run: Path, generations: Path, data: Path = SQUAD) -> None:
    from grounded_rag.evaluation.data import load_examples, split_examples
    from grounded_rag.evaluation.metrics import substring_match

    val, states_ = dict(np.load(validation)), dict(np.load(run))
    made = run_records(generations)
    rows = load_examples(data)
    test = {r.id for r in split_examples(rows, "test")}
    by_id = {r.id: r for r in rows}
    keep = [i for i, x in enumerate(states_["ids"]) if x in test]
    kind = np.array(["unanswerable" if by_id[x].unanswerable else
                     "right" if substring_match(made[x]["text"], by_id[x].answers) else "wrong"
                     for x in states_["ids"][keep]])
    support = np.array([made[x]["support"] for x in states_["ids"][keep]])
    print(f"{len(keep)} test rows: {sum(kind == 'right')} right, {sum(kind == 'wrong')} wrong, "
          f"{sum(kind == 'unanswerable')} unanswerable")
    print("| layer | signal | right/unanswerable | right/wrong | unanswerable withheld at 10% of right |\n|---|---|---|---|---|")
    for layer in range(val["states"].shape[1]):
        scores = _head().fit(val["states"][:, layer], val["answerable"]).predict_proba(
            states_["states"][keep, layer])[:, 1]
        for r in signal_table(scores, support, kind):
            name = "probe" if r["power"] is None else "support" if r["power"] == 0 else f"support x probe^{r['power']}"
            print(f"| {EVERY * (layer + 1)} | {name} | {r['right_unanswerable']:.2f} | {r['right_wrong']:.2f} | "
                  f"{r['withheld']:.2f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    steps = parser.add_subparsers(dest="step", required=True)
    e = steps.add_parser("extract")
    e.add_argument("split", choices=["validation", "test", "all"])
    e.add_argument("limit", type=int)
    e.add_argument("out", type=Path)
    x = steps.add_parser("extract-run")
    x.add_argument("generations", type=Path)
    x.add_argument("out", type=Path)
    for step in (e, x):
        step.add_argument("--model", default=None)
        step.add_argument("--data", type=Path, default=SQUAD)
    r = steps.add_parser("report")
    r.add_argument("validation", type=Path)
    r.add_argument("test", type=Path)
    c = steps.add_parser("combine")
    c.add_argument("validation", type=Path)
    c.add_argument("run", type=Path)
    c.add_argument("generations", type=Path)
    args = parser.parse_args()
    if args.step == "extract":
        extract(args.split, args.limit, args.out, args.model, args.data)
    elif args.step == "extract-run":
        extract_run(args.generations, args.out, args.model, args.data)
    elif args.step == "report":
        report(args.validation, args.test)
    else:
        combine(args.validation, args.run, args.generations)


if __name__ == "__main__":
    main()
