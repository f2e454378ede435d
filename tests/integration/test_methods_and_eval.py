"""Each method's one-step distribution against its paper formula on the real model's logits,
and the eval command end to end (resumable) on a handful of real benchmark rows."""

import json
import math
from pathlib import Path

import numpy as np
import pytest
import torch

from grounded_rag import DecodingConfig
from grounded_rag.cli import main
from grounded_rag.engine import prefill
from grounded_rag.fusion import log_probs
from grounded_rag.methods import get_method
from grounded_rag.trust import retrieval_trust

from ..conftest import DOCUMENTS, QUESTION

FIXTURES = Path(__file__).parent.parent / "fixtures"


def first_step(decoder, method_name, cfg):
    method = get_method(method_name)
    req = decoder.prepare(QUESTION, DOCUMENTS, [0.7, 0.3, 0.2], cfg, method)
    logits, _ = prefill(decoder.model, req.token_ids, method.streams, decoder.pad_id)
    lp = log_probs(logits).view(1, method.streams, -1)
    fused = method.fuse(lp[:, 0], lp[:, 1], torch.tensor([req.trust]), cfg)
    return logits.double().numpy(), fused.log_q.exp()[0].double().numpy(), req.trust


def softmax(x):
    e = np.exp(x - x.max())
    return e / e.sum()


def js2(p, q):
    m = (p + q) / 2
    kl = lambda a, b: float(np.sum(np.where(a > 0, a * (np.log(a) - np.log(b)), 0.0)))
    return (0.5 * kl(p, m) + 0.5 * kl(q, m)) / math.log(2)


def geometric(p, q, eta):
    w = p ** (1 - eta) * q ** eta
    return w / w.sum()


@pytest.mark.parametrize("name", ["grounded", "static", "conflict_only", "trust_only", "arithmetic",
                                  "query_only_reference", "cad", "adacad"])
def test_one_step_distribution_matches_the_formula(decoder, name):
    cfg = DecodingConfig(method=name, rho_max=3.0, beta=0.7, gamma=10.0, b=0.5)
    logits, q, trust = first_step(decoder, name, cfg)
    p, ref = softmax(logits[0]), softmax(logits[1])
    c = js2(p, ref)
    r = retrieval_trust([0.7, 0.3, 0.2], 1.0, 10.0, 0.5)
    rho = {"grounded": 3.0 * r * c, "query_only_reference": 3.0 * r * c, "arithmetic": 3.0 * r * c,
           "static": 3.0, "conflict_only": 3.0 * c, "trust_only": 3.0 * r}.get(name)
    if name == "cad":
        expected = softmax(1.7 * np.log(p) - 0.7 * np.log(ref))
    elif name == "adacad":
        expected = softmax((1 + c) * np.log(p) - c * np.log(ref))
    elif name == "arithmetic":
        a = rho / (1 + rho)
        expected = (1 - a) * p + a * ref
    else:
        expected = geometric(p, ref, rho / (1 + rho))
    assert np.abs(q - expected).max() < 2e-5, name
    assert trust == pytest.approx(r)


def test_eval_command_end_to_end_and_resumes(tmp_path):
    out = tmp_path / "eval"
    args = ["eval", "--data", str(FIXTURES / "nq_swap_6.jsonl"), "--data", str(FIXTURES / "memotrap_8.jsonl"),
            "--methods", "standard,cad,grounded", "--limit", "3", "--validation-limit", "2",
            "--max-new-tokens", "6", "--batch-size", "4", "--out", str(out)]
    assert main(args) == 0
    report = json.loads((out / "report.json").read_text())
    nq, mt = report["datasets"]["nq_swap_6"], report["datasets"]["memotrap_8"]
    assert set(nq["methods"]) == {"standard", "cad", "grounded"}
    for m in nq["methods"].values():
        for key in ("em", "f1", "substring", "context_following", "memorization", "evidence_support"):
            mean, lo, hi = m["metrics"][key]
            assert 0 <= lo <= mean <= hi <= 1
    assert nq["methods"]["cad"]["params"]["beta"] in (0.5, 1.0, 2.0)
    assert len(nq["methods"]["grounded"]["tuning"]) == 3 and nq["methods"]["standard"]["tuning"] == []
    assert "loglik_accuracy" in mt["methods"]["grounded"]["metrics"]
    md = (out / "report.md").read_text()
    assert "| grounded |" in md and "Δ substring vs standard" in md
    assert set(report["latency"]) == {"standard", "cad", "grounded"}
    for row in report["latency"].values():
        assert row["prefill_ms"] > 0 and row["decode_ms_per_token"] > 0 and row["peak_memory_mb"] > 100
    assert "### Latency and memory" in md
    assert (out / "nq_swap_6_substring.png").stat().st_size > 1000
    lines = (out / "generations.jsonl").read_text().splitlines()
    records = [json.loads(x) for x in lines]
    assert any(r.get("trace") for r in records), "every generation is stored with its trace"

    # Interrupted run: drop the last records (and leave a half-written line); rerun continues.
    (out / "generations.jsonl").write_text("\n".join(lines[:-3]) + "\n" + lines[-1][:20])
    args.append("--no-latency")
    assert main(args) == 0
    again = json.loads((out / "report.json").read_text())
    assert again["datasets"]["nq_swap_6"]["methods"]["grounded"]["metrics"] == nq["methods"]["grounded"]["metrics"]
    assert main(args) == 0  # nothing left to do: no new generations
    assert len((out / "generations.jsonl").read_text().splitlines()) == len(lines) - 3 + 1 + 3
