"""The table that chose support's question-coverage power and the support threshold on validation rows.

Three steps, each resumable by its output file:

``python cookbook/research/support_threshold.py squad validation 150 squad_val.jsonl``
    decodes SQuAD 2.0 validation rows (its own paragraph and two of the same article's, shuffled; 150 answerable and
    150 unanswerable) at package defaults with abstention off, keeping what support is computed from;
``python cookbook/research/support_threshold.py handbook 'cookbook/data/real_handbook/*.md' QUESTIONS real_val.jsonl
--split validation`` does the same for a handbook's questions as ``ask --store`` reads them (ingest, the top 3
    passages);
``python cookbook/research/support_threshold.py choose squad=squad_val.jsonl real=real_val.jsonl made=made_val.jsonl``
    recomputes each answer's parts with the package's own code (``covered``, the best grounding passage's question
    gain, the question coverage) and prints, for each power and threshold, the share of right answers withheld (false
    abstention) and of unanswerable questions withheld, per set and their mean. The rule that chose the defaults:
    the threshold and power with the most unanswerable questions withheld on average while the mean false abstention
    stays at most 10%.
"""

from __future__ import annotations

import argparse
import glob
import hashlib
import json
import random
import tempfile
from pathlib import Path
from typing import Any

from grounded_rag import DecodingConfig, Document, GroundedDecoder
from grounded_rag.attribution import Answer, passage_evidence, token_offsets
from grounded_rag.evaluation.metrics import substring_match
from grounded_rag.relevance import question_likelihoods
from grounded_rag.support import support_parts

SQUAD = Path(__file__).parents[2].parent / "shared" / "data" / "squad_v2_dev.jsonl"
POWERS = (0.0, 0.5, 1.0, 1.5, 2.0)
THRESHOLDS = tuple(round(0.2 + 0.05 * i, 2) for i in range(12))


def _done(out: Path) -> set[str]:
    return {json.loads(line)["id"] for line in out.open()} if out.exists() else set()


def _record(row_id: str, question: str, answers: list[str], x: Any) -> dict[str, Any]:
    return {"id": row_id, "question": question, "answerable": bool(answers),
            "right": bool(answers) and bool(substring_match(x.text, answers)), "text": x.text,
            "kept": [{"text": d.text, "title": d.title} for d in x.documents], "numbers": x.numbers,
            "token_ids": x.token_ids, "finish": x.finish_reason}


def _decode(requests: list[tuple[str, str, list[str], list[Any]]], out: Path) -> None:
    """(id, question, gold answers, documents) decoded in batches of 8 at package defaults, abstention off."""
    decoder, config = GroundedDecoder.from_pretrained(), DecodingConfig(support_threshold=None)
    todo = [r for r in requests if r[0] not in _done(out)]
    with out.open("a") as sink:
        for i in range(0, len(todo), 8):
            batch = todo[i:i + 8]
            results = decoder.generate_batch([{"question": q, "documents": d} for _, q, _, d in batch], config)
            for (row_id, question, answers, _), x in zip(batch, results):
                sink.write(json.dumps(_record(row_id, question, answers, x)) + "\n")
            sink.flush()


def squad(split: str, n: int, out: Path) -> None:
    """SQuAD 2.0 rows of one split (articles split by title hash, 30% validation), n answerable and n not."""
    rows = [json.loads(line) for line in SQUAD.open()]
    mine = [r for r in rows if (int(hashlib.sha1(r["documents"][0]["title"].encode()).hexdigest()[:8], 16)
                                / 0xFFFFFFFF < 0.3) == (split == "validation")]
    rng = random.Random(0)
    answerable, unanswerable = [r for r in mine if r["answerable"]], [r for r in mine if not r["answerable"]]
    rng.shuffle(answerable)
    rng.shuffle(unanswerable)
    picked = [r for pair in zip(answerable[:n], unanswerable[:n]) for r in pair]

    def documents(r: dict[str, Any]) -> list[Any]:
        docs = list(r["documents"]) + list(r["distractors"])
        random.Random(r["id"]).shuffle(docs)
        return docs

    _decode([(r["id"], r["question"], r["answers"] if r["answerable"] else [], documents(r)) for r in picked], out)


def handbook(files: str, questions: Path, out: Path, split: str | None) -> None:
    """A handbook's questions over its ingested files, the top three passages as ``ask --store`` reads them."""
    from grounded_rag.cli import main
    from grounded_rag.retrieval import ChromaStore

    rows = [json.loads(line) for line in questions.open() if line.strip()]
    rows = [q for q in rows if split is None or q.get("split") == split]
    store = tempfile.mkdtemp() + "/store"
    assert main(["ingest", *sorted(glob.glob(files)), "--store", store]) == 0
    chroma = ChromaStore.open(store)
    _decode([(q["question"], q["question"], q["answers"], [h.document for h in chroma.search(q["question"], k=3)])
             for q in rows], out)


def parts(records: list[dict[str, Any]], decoder: GroundedDecoder) -> list[dict[str, Any]]:
    """Each answer's support parts (grounded_rag.support.support_parts, the package's own), with whether it is
    answerable and right; ``parts`` None where nothing grounds the answer (support 0)."""
    config, out = DecodingConfig(), []
    for i in range(0, len(records), 16):
        batch = records[i:i + 16]
        documents = [[Document(text=k["text"], title=k.get("title")) for k in r["kept"]] for r in batch]
        asked = [(r["question"], d) for r, d in zip(batch, documents)] + [(r["question"], None) for r in batch]
        likelihoods = question_likelihoods(decoder.model, decoder.tokenizer, asked, decoder.pad_id)
        answers = [Answer(r["question"], d, r["numbers"], r["token_ids"], r["text"].strip(), None,
                          r["finish"] == "length") for r, d in zip(batch, documents)]
        for j, (r, a, rows) in enumerate(zip(batch, answers, passage_evidence(decoder.model, decoder.tokenizer,
                                                                                decoder.pad_id, answers, config))):
            gains = [v - likelihoods[len(batch) + j][0] for v in likelihoods[j]]
            found = None
            if a.token_ids and a.text:
                found = support_parts(a, rows, token_offsets(decoder.tokenizer, a.token_ids, a.text), gains)
            out.append({"answerable": r["answerable"], "right": r["right"], "parts": found})
    return out


def support(part: dict[str, Any], power: float) -> float:
    return 0.0 if part["parts"] is None else part["parts"].support(power)


def choose(sets: dict[str, list[dict[str, Any]]]) -> None:
    """The false abstention and unanswerable withheld of every power and threshold, per set and on average."""
    print("power | threshold | mean false abstention | mean unanswerable withheld | " + " | ".join(sets))
    for power in POWERS:
        for t in THRESHOLDS:
            fa, withheld = [], []
            for rows in sets.values():
                right = [support(p, power) for p in rows if p["answerable"] and p["right"]]
                unanswerable = [support(p, power) for p in rows if not p["answerable"]]
                fa.append(sum(s < t for s in right) / max(len(right), 1))
                withheld.append(sum(s < t for s in unanswerable) / max(len(unanswerable), 1))
            cells = " | ".join(f"{a:.2f} / {u:.2f}" for a, u in zip(fa, withheld))
            print(f"{power} | {t} | {sum(fa) / len(fa):.3f} | {sum(withheld) / len(withheld):.3f} | {cells}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="step", required=True)
    s = sub.add_parser("squad")
    s.add_argument("split", choices=["validation", "test"])
    s.add_argument("n", type=int)
    s.add_argument("out", type=Path)
    h = sub.add_parser("handbook")
    h.add_argument("files")
    h.add_argument("questions", type=Path)
    h.add_argument("out", type=Path)
    h.add_argument("--split", choices=["validation", "test"])
    c = sub.add_parser("choose")
    c.add_argument("sets", nargs="+", help="NAME=RECORDS.jsonl, as the squad and handbook steps wrote them")
    args = parser.parse_args()
    if args.step == "squad":
        squad(args.split, args.n, args.out)
    elif args.step == "handbook":
        handbook(args.files, args.questions, args.out, args.split)
    else:
        decoder = GroundedDecoder.from_pretrained()
        named = dict(arg.split("=", 1) for arg in args.sets)
        choose({name: parts([json.loads(line) for line in Path(path).open()], decoder)
                for name, path in named.items()})


if __name__ == "__main__":
    main()
