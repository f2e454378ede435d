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
from grounded_rag.engine import Rows, fuse_step, open_taps, step_masks
from grounded_rag.evaluation.ablations import register as register_ablations
from grounded_rag.evaluation.data import load_examples, split_examples
from grounded_rag.evaluation.memotrap import MEMOTRAP_NEW_TOKENS
from grounded_rag.evaluation.metrics import choice_generated, substring_match
from grounded_rag.evaluation.protocol import ANSWER_PREFIX, PROTOCOL, base_config
from grounded_rag.fusion import log_probs
from grounded_rag.methods import StepInputs, get_method
from grounded_rag.prefill import prefill
from grounded_rag.prompts import encode
from grounded_rag.taps import build_datastore, dola_candidates
from grounded_rag.trust import retrieval_trust

from ..conftest import DOCUMENTS, QUESTION

register_ablations()  # the research ablations decode here as in grounded-rag eval

FIXTURES = Path(__file__).parent.parent / "fixtures"


def first_step(decoder, method_name, cfg):
    method = get_method(method_name)
    req = decoder.prepare(QUESTION, DOCUMENTS, [0.7, 0.3, 0.2], cfg, method)
    logits, _ = prefill(decoder.model, req.token_ids, method.streams, decoder.pad_id)
    lp = log_probs(logits).view(1, method.streams, -1)
    fused = method.step(StepInputs(lp[:, 0], lp[:, 1], torch.tensor([req.trust]), cfg))
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


def entropy(p):
    return float(-np.sum(np.where(p > 0, p * np.log(p), 0.0)))


def engine_first_step(decoder, cfg, scores=(0.7, 0.3, 0.2)):
    """The engine's own first fused distribution (taps, datastore and all)."""
    method = get_method(cfg.method)
    req = decoder.prepare(QUESTION, DOCUMENTS, list(scores), cfg, method)
    inputs = decoder.row_inputs([req], method, cfg)  # before the taps open: a datastore is built with the model
    with open_taps(decoder.model, method, cfg) as taps:
        logits, _ = prefill(decoder.model, req.token_ids, method.streams, decoder.pad_id)
        rows = Rows.start(method, inputs, cfg, logits.shape[-1], logits.device)
        ends, pieces = step_masks(method, decoder.eos_ids, rows.copies, logits.shape[-1], logits.device)
        _, _, fused = fuse_step(method, logits, taps, rows, cfg, True, ends, pieces)
    return req, logits.double().numpy(), fused.log_q.exp()[0].double().numpy()


@torch.inference_mode()
def hidden_states(decoder, ids):
    """Every layer's hidden states at the last position, straight from transformers (no hooks)."""
    out = decoder.model(input_ids=torch.tensor([ids]), output_hidden_states=True)
    return [h[0, -1] for h in out.hidden_states], out.logits[0, -1]


def test_coiecd_and_cocoa_match_their_formulas(decoder):
    cfg = DecodingConfig(method="coiecd", coiecd_alpha=0.8, coiecd_epsilon=1.5)
    _, logits, q = engine_first_step(decoder, cfg)
    p, ref = softmax(logits[0]), softmax(logits[1])
    typical = np.abs(-np.log(p) - entropy(ref)) <= 1.5
    assert 0 < typical.sum() < typical.size, "the constraint must split the vocabulary on this prompt"
    merged = np.where(typical, 0.2 * np.log(ref) + 0.8 * np.log(p), 1.8 * np.log(p) - 0.8 * np.log(ref))
    assert np.abs(q - softmax(merged)).max() < 2e-5

    cfg = DecodingConfig(method="cocoa", cocoa_lambda_max=3.0, renyi_alpha=0.5)
    _, logits, q = engine_first_step(decoder, cfg)
    p, ref = softmax(logits[0]), softmax(logits[1])
    renyi = np.log(np.sum(ref ** 0.5 * p ** 0.5)) / (0.5 - 1)
    kappa = 1 - np.exp(-0.5 * renyi)
    top = np.sort(p)[::-1]
    psi = 0.5 * (1 / (1 + np.exp(-(entropy(ref) - entropy(p)))) + top[0] - top[1])
    lam = 1 + kappa * (2.0 * psi - (1 - psi))
    assert np.abs(q - geometric(ref, p, lam)).max() < 2e-5


@pytest.mark.parametrize("name", ["grounded_pmi", "grounded_pmi_gated", "grounded_pmi_anchored", "grounded_contrast",
                                  "pmi_anchored_ungated",
                                  "pmi_anchored_fused_ends", "pmi_static", "pmi_evidence_only", "pmi_question_only", "pmi_no_head"])
def test_grounded_pmi_and_its_ablations_match_the_formula(decoder, name):
    kappa = 0.0 if "anchored" in name or name == "grounded_contrast" else 0.05  # no head: the anchor must show on every token, not the head's few
    cfg = DecodingConfig(method=name, pmi_alpha=3.0, pmi_beta=0.8, plausibility=kappa, gamma=10.0, b=0.5, pmi_gate=0.3)
    req, logits, q = engine_first_step(decoder, cfg)
    assert len(req.token_ids) == 3 and req.token_ids[2] != req.token_ids[1]
    p, ret, query = softmax(logits[0]), softmax(logits[1]), softmax(logits[2])
    r = retrieval_trust([0.7, 0.3, 0.2], 1.0, 10.0, 0.5)
    adaptive = name != "pmi_static"
    a = 3.0 * r * (js2(p, query) if adaptive else 1.0) * (name != "pmi_question_only")
    b = 0.8 * (js2(p, ret) if adaptive else 1.0) * (name != "pmi_evidence_only")
    gated = name in ("grounded_pmi_gated", "grounded_pmi_anchored", "grounded_contrast", "pmi_anchored_fused_ends")
    assert not np.isin(p.argmax(), list(decoder.eos_ids)), "a first step the full stream does not end"
    supported = (np.log(p) - np.log(ret) > 0.3) if gated else np.ones_like(p, dtype=bool)
    assert not gated or 0 < supported.sum() < supported.size, "the gate must bite somewhere"
    evidence = a * (np.log(p) - np.log(query)) * supported
    head = p >= (kappa if name != "pmi_no_head" else 0.0) * p.max()
    if "anchored" in name or name == "grounded_contrast":  # the documents raise only their own tokens (any spelling in them), lower any token
        in_docs = np.zeros_like(p, dtype=bool)
        in_docs[list(decoder.document_tokens([req], get_method(name))[0])] = True
        raised_elsewhere = head & (evidence > 0) & ~in_docs
        assert raised_elsewhere.sum() > 100, "the anchor must bite on this prompt"
        assert in_docs[decoder.tokenizer.encode(" Paris", add_special_tokens=False)[0]]
        unanchored = softmax(np.log(p) + evidence + b * (np.log(p) - np.log(ret)))
        assert np.abs(q - unanchored).max() > 1e-3, "the anchor must change the distribution, or this test cannot fail"
        evidence = np.where(in_docs | (evidence < 0), evidence, 0.0)
    scores = np.log(p) + evidence + b * (np.log(p) - np.log(ret))
    assert 0 < head.sum() < head.size or name == "pmi_no_head" or kappa == 0
    expected = softmax(np.where(head, scores, -np.inf))
    assert np.abs(q - expected).max() < 2e-5, name


def test_dola_matches_its_formula_on_the_real_layers(decoder):
    for bucket in ["low", "high"]:
        cfg = DecodingConfig(method="dola", dola_layers=bucket, dola_alpha=0.1)
        req, _, q = engine_first_step(decoder, cfg)
        layers, final_logits = hidden_states(decoder, req.token_ids[0])
        norm, head = decoder.model.get_decoder().norm, decoder.model.get_output_embeddings()
        p = softmax(final_logits.double().numpy())
        candidates = dola_candidates(decoder.model, bucket)
        assert candidates and all(j % 2 == candidates[0] % 2 for j in candidates)
        with torch.inference_mode():
            premature = [softmax(head(norm(layers[j])).double().numpy()) for j in candidates]
        best = premature[int(np.argmax([js2(p, m) for m in premature]))]
        head_mask = p >= 0.1 * p.max()
        expected = softmax(np.where(head_mask, np.log(p) - np.log(best), -np.inf))
        assert np.abs(q - expected).max() < 2e-5, bucket


def test_knnlm_matches_its_formula_with_a_datastore_of_the_passages(decoder):
    cfg = DecodingConfig(method="knnlm", knn_k=8, knn_lambda=0.3, knn_temperature=50.0, relevance_margin=None)
    req, _, q = engine_first_step(decoder, cfg)
    layers, final_logits = hidden_states(decoder, req.token_ids[0])
    keys, values = [], []
    with torch.inference_mode():
        for text in DOCUMENTS:
            ids = decoder.tokenizer(text, add_special_tokens=False).input_ids
            out = decoder.model(input_ids=torch.tensor([ids]), output_hidden_states=True)
            keys.append(out.hidden_states[-1][0, :-1].double().numpy())
            values.extend(ids[1:])
    keys, values = np.concatenate(keys), np.array(values)
    d = ((keys - layers[-1].double().numpy()) ** 2).sum(-1)
    near = np.argsort(d)[:8]
    w = softmax(-d[near] / 50.0)
    p_knn = np.zeros_like(q)
    np.add.at(p_knn, values[near], w)
    expected = 0.7 * softmax(final_logits.double().numpy()) + 0.3 * p_knn
    assert np.abs(q - expected).max() < 2e-5
    store = build_datastore(decoder.model, decoder.tokenizer, DOCUMENTS)
    assert store.keys.shape[0] == len(values) == store.values.shape[0]


def eval_args(out, methods, *options):
    """`grounded-rag eval` over the two fixture slices (NQ-Swap generation, MemoTrap log-likelihood)."""
    data = ["--data", str(FIXTURES / "nq_swap_6.jsonl"), "--data", str(FIXTURES / "memotrap_8.jsonl")]
    return ["eval", *data, "--methods", methods, *options, "--out", str(out)]


def test_new_baselines_run_through_the_eval_command(tmp_path):
    out = tmp_path / "eval"
    args = eval_args(out, "standard,coiecd,cocoa,dola,knnlm", "--limit", "2", "--no-tune", "--no-latency",
                     "--max-new-tokens", "4", "--batch-size", "2")
    assert main(args) == 0
    report = json.loads((out / "report.json").read_text())
    for name in ["coiecd", "cocoa", "dola", "knnlm"]:
        assert "substring" in report["datasets"]["nq_swap_6"]["methods"][name]["metrics"]
        assert {"loglik_accuracy", "generation_accuracy"} <= set(report["datasets"]["memotrap_8"]["methods"][name]["metrics"])


def test_a_data_file_with_no_rows_to_score_is_an_error_not_a_traceback(tmp_path, capsys):
    """An empty file (or one whose few ids all fall in the other split) failed with a KeyError from the report."""
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    assert main(["eval", "--data", str(empty), "--methods", "standard", "--no-tune", "--no-latency",
                 "--out", str(tmp_path / "out")]) == 2
    assert f"{empty} has no test rows (0 rows in all;" in capsys.readouterr().err


def test_eval_on_memotrap_without_loglik_scores_generations_only(tmp_path):
    """`--no-loglik`: MemoTrap's test rows are generated and scored by generation, and nothing is scored by
    log-likelihood (the slow part for the copying methods) — the default included."""
    out = tmp_path / "mt"
    assert main(["eval", "--data", str(FIXTURES / "memotrap_8.jsonl"), "--methods", "standard,grounded_contrast",
                 "--limit", "2", "--no-tune", "--no-latency", "--no-loglik", "--batch-size", "2", "--out", str(out)]) == 0
    mt = json.loads((out / "report.json").read_text())["datasets"]["memotrap_8"]
    assert mt["main_metric"] == "generation_accuracy"
    for m in mt["methods"].values():
        assert set(m["metrics"]) == {"generation_accuracy", "generation_memorization"}
    kinds = {json.loads(x)["key"].split("|")[1] for x in (out / "generations.jsonl").read_text().splitlines()}
    assert kinds == {"mtgen"}
    assert (out / "report.md").read_text().count("| Δ generation_accuracy vs standard") == 1  # the main metric's Δ, once


def test_eval_command_end_to_end_and_resumes(tmp_path, decoder):
    out = tmp_path / "eval"
    args = eval_args(out, "standard,cad,grounded", "--limit", "3", "--validation-limit", "2",
                     "--max-new-tokens", "6", "--batch-size", "4")
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
    mt_test = split_examples(load_examples(FIXTURES / "memotrap_8.jsonl"), "test")[:3]
    keys = [(r["key"].split("|"), r) for r in map(json.loads, (out / "generations.jsonl").read_text().splitlines())]
    gen = {(k[3], k[4], r["id"]): r["text"] for k, r in keys if k[1] == "mtgen"}  # (method, params, row)
    assert all(k[0] == PROTOCOL for k, _ in keys), "every record is keyed by the protocol it was made under"
    for method, m in mt["methods"].items():  # MemoTrap by generation, recomputed from the stored continuations
        params = json.dumps(m["params"], sort_keys=True)
        picks = [choice_generated(gen[method, params, ex.id], ex.choices) == ex.answer_index for ex in mt_test]
        assert m["metrics"]["generation_accuracy"][0] == pytest.approx(sum(picks) / len(picks))
    # MemoTrap is judged and tuned by generation: each setting's validation score is its continuations' accuracy
    assert mt["main_metric"] == "generation_accuracy"
    mt_val = split_examples(load_examples(FIXTURES / "memotrap_8.jsonl"), "validation")[:2]
    for t in mt["methods"]["cad"]["tuning"]:
        params = json.dumps(t["params"], sort_keys=True)
        picks = [choice_generated(gen["cad", params, ex.id], ex.choices) == ex.answer_index for ex in mt_val]
        assert t["validation_generation_accuracy"] == pytest.approx(sum(picks) / len(picks))
    for d in (nq, mt):  # a paired Δ against standard for every metric
        ref = d["methods"]["standard"]["metrics"]
        for m in d["methods"].values():
            for key, (delta, lo, hi) in m["diffs_vs_standard"].items():
                assert delta == pytest.approx(m["metrics"][key][0] - ref[key][0]) and lo <= delta <= hi
    assert set(nq["methods"]["cad"]["diffs_vs_standard"]) >= {"em", "f1", "substring", "evidence_support"}
    assert nq["methods"]["standard"]["diffs_vs_standard"]["f1"] == [0.0, 0.0, 0.0]
    ex = mt_test[0]  # the standard continuation is transformers' greedy continuation of the same turn
    req = decoder.prepare(ex.question, ex.documents, None, base_config("standard", {}, MEMOTRAP_NEW_TOKENS, short_answer=False),
                          get_method("standard"))
    ids = torch.tensor([req.token_ids[0] + encode(decoder.tokenizer, ex.question)])
    hf = decoder.model.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=MEMOTRAP_NEW_TOKENS, do_sample=False,
                                pad_token_id=decoder.pad_id, eos_token_id=sorted(decoder.eos_ids))[0, ids.shape[1]:]
    assert gen["standard", "{}", ex.id] == decoder.tokenizer.decode(hf, skip_special_tokens=True).split("\n")[0].strip()
    md = (out / "report.md").read_text()
    assert "| grounded |" in md and "Δ substring vs standard" in md
    assert set(report["latency"]) == {"standard", "cad", "grounded"}
    for row in report["latency"].values():
        assert row["prefill_ms"] > 0 and row["decode_ms_per_token"] > 0
        assert row["peak_mb"] >= row["loaded_mb"] > 100 and row["extra_mb"] == pytest.approx(row["peak_mb"] - row["loaded_mb"])
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
    resumed = (out / "generations.jsonl").read_text().splitlines()
    assert len(resumed) == len(lines), "the torn line is cut off and the three dropped records are made again"
    assert all(json.loads(x) for x in resumed), "no half-written line is left in the checkpoint"


def test_eval_asks_every_method_for_a_short_answer_and_adds_distractors(tmp_path, decoder):
    """The short-answer protocol: the same instruction and answer prefix in every stream, a newline
    ends the answer; ``--distractors 2`` adds passages of other questions to every row, ``--inject``
    an instruction dictating another answer, scored as ``hijacked``."""
    for name in ["standard", "cad", "grounded", "grounded_pmi"]:
        cfg = base_config(name, {}, 8)
        req = decoder.prepare(QUESTION, DOCUMENTS, None, cfg, get_method(name))
        prompts = [req.prompts.full, *req.prompts.references]
        assert all(p.endswith("<|im_start|>assistant\n" + ANSWER_PREFIX) for p in prompts), name
        assert cfg.stop == ["\n"]
    out = tmp_path / "eval"
    args = ["eval", "--data", str(FIXTURES / "nq_swap_6.jsonl"), "--methods", "standard,grounded_pmi", "--limit", "2",
            "--no-tune", "--no-latency", "--max-new-tokens", "6", "--distractors", "2", "--inject", "--out", str(out)]
    assert main(args) == 0
    report = json.loads((out / "report.json").read_text())
    assert report["protocol"]["answer_prefix"] == ANSWER_PREFIX and report["protocol"]["distractors"] == 2
    nq = report["datasets"]["nq_swap_6+2distractors+injected"]
    assert set(nq["methods"]) == {"standard", "grounded_pmi"} and nq["n_test"] == 2
    assert all("hijacked" in m["metrics"] and "hijacked" in m["diffs_vs_standard"] for m in nq["methods"].values())
    assert "| hijacked |" in (out / "report.md").read_text()
    records = [json.loads(x) for x in (out / "generations.jsonl").read_text().splitlines()]
    assert all("\n" not in r["text"] for r in records)


def test_eval_killed_mid_run_resumes_to_the_same_report(tmp_path):
    """SIGKILL while records are being written (plus a torn last line, as a kill mid-write leaves):
    the rerun completes, redoes only what is missing, and reports what an uninterrupted run reports."""
    import os
    import signal
    import subprocess
    import sys
    import time

    options = ["--limit", "3", "--no-tune", "--no-latency", "--max-new-tokens", "4", "--batch-size", "1"]
    killed, clean = tmp_path / "killed", tmp_path / "clean"
    args = eval_args(killed, "standard,grounded", *options)
    proc = subprocess.Popen([sys.executable, "-c", f"from grounded_rag.cli import main; raise SystemExit(main({args!r}))"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ckpt = killed / "generations.jsonl"
    deadline = time.monotonic() + 600
    while not (ckpt.exists() and len(ckpt.read_text().splitlines()) >= 2) and proc.poll() is None:
        assert time.monotonic() < deadline, "the eval wrote no records"
        time.sleep(0.02)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert not (killed / "report.json").exists(), "killed before the end"
    done = len(ckpt.read_text().splitlines())
    with ckpt.open("a") as handle:
        handle.write('{"key": "short-v1|gen|nq_swap_6|standard|{}|torn')  # a record cut off mid-write
    assert main(args) == 0
    lines = ckpt.read_text().splitlines()
    records = [json.loads(line) for line in lines]  # every line whole again
    assert len({r["key"] for r in records}) == len(records) > done, "nothing done twice, the rest added"
    assert main(eval_args(clean, "standard,grounded", *options)) == 0
    report, want = (json.loads((d / "report.json").read_text()) for d in (killed, clean))
    for dataset in want["datasets"]:
        for method, m in want["datasets"][dataset]["methods"].items():
            assert report["datasets"][dataset]["methods"][method]["metrics"] == m["metrics"], (dataset, method)
    texts = lambda d: {r["key"]: r.get("text") for r in map(json.loads, (d / "generations.jsonl").read_text().splitlines())}  # noqa: E731
    assert texts(killed) == texts(clean)


def test_grounded_contrast_finishes_the_number_the_default_cuts(decoder):
    """An NQ-Swap validation row under the short-answer protocol: after "4" of the passage's "43" the full
    stream would end the turn (0.295 against "3" 0.262) and the default's question gate withholds the
    passage's boost for "3" (PMI(y; x | D) = +0.24 < m), so the default answers "4"; grounded_contrast lets
    the rest of a copied word through the gate and answers "43" (docs/method-note.md, "The end rule and whole words")."""
    question = "what is the number of cities in texas"
    documents = [{"text": "Texas is a state located in the Southern United States . There are 43 cities in the "
                          "sections below ."}]
    answers = {name: decoder.generate(question, documents, config=base_config(name, {"pmi_gate": 1.0}, 8)).text
               for name in ("grounded_pmi_anchored", "grounded_contrast")}
    assert answers == {"grounded_pmi_anchored": "4", "grounded_contrast": "43"}


def test_grounded_contrast_does_not_stop_inside_a_copied_number(decoder):
    """An NQ-Swap validation row (nqswap-237) under the short-answer protocol: the answer copies "2" of the
    passage's "27", where the passage also spells "2017" and "28"; the fused step then ends the turn (0.346
    against "7" 0.121) and the answer is "2", a number no passage says. grounded_contrast drops the tokens
    that would break off a word the answer stopped inside, so it finishes one: "27". Its ablation
    pmi_words_cut still answers "2"."""
    question = "how many episodes of greys anatomy season 14"
    documents = [{"text": "The fourteenth season of the American television medical drama Grey 's Anatomy was ordered "
                          "on February 10 , 2017 , by American Broadcasting Company ( ABC ) , and premiered on "
                          "September 28 , 2017 with a special two - hour premiere . The season will consist of 27 "
                          "episodes , with the season 's seventh episode marking the 300th episode for the series "
                          "overall . The season is produced by ABC Studios , in association with Shondaland Production "
                          "Company and The Mark Gordon Company ; the showrunners being Krista Vernoff and William "
                          "Harper ."}]
    answers = {name: decoder.generate(question, documents, config=base_config(name, {"pmi_gate": 1.0}, 8)).text
               for name in ("pmi_words_cut", "grounded_contrast")}
    assert answers == {"pmi_words_cut": "2", "grounded_contrast": "27"}


def test_the_question_echo_keeps_the_questions_entity_where_the_default_swaps_it(decoder):
    """The handbook's three project paragraphs, "Who leads Project Juniper?": after "Project" the full stream and the
    question-only stream both say " Jun", but the evidence term lifts " K" (Kestrel, which the question rules out),
    and the default answered about the wrong project when this was written. The ablation pmi_words_echo takes the
    full stream's step there: the question's tokens reach the fused step (without them it answers as the default)."""
    from grounded_rag.sources import chunk_text

    handbook = Path(__file__).resolve().parents[2] / "cookbook" / "data" / "handbook" / "projects.md"
    documents = [{"title": "projects", "text": chunk} for chunk in chunk_text(handbook.read_text(encoding="utf-8"))]
    answer = decoder.generate("Who leads Project Juniper?", documents, method="pmi_words_echo", support_threshold=0)
    assert answer.text.startswith("Project Juniper"), answer.text


def test_the_memory_extract_copies_the_passages_answer_where_memory_contradicts_it(decoder):
    """Two validation rows of the counterfactual set: beside the passage that puts the capital of the United Kingdom
    in Manchester the default said "… is London." (the full and the question-only stream both put " London" first,
    no passage spells it); the ablation copies " Manchester" from there, and the Sudan passage's answer likewise.
    Batched, each answer is its one-by-one decode: the span state travels with its row."""

    wanted = {"capital-united-kingdom-alone": "Manchester", "pyramids-of-giza-alone": "Sudan"}
    rows = [e for e in load_examples(Path(__file__).resolve().parents[2] / "cookbook" / "data" /
                                     "counterfactuals.jsonl") if e.id in wanted]
    requests = [{"question": e.question, "documents": e.documents} for e in rows]
    default = decoder.generate_batch(requests, base_config("grounded_contrast", {"pmi_gate": 1.0}, 24))
    extract = decoder.generate_batch(requests, base_config("pmi_words_memory_extract", {"pmi_gate": 1.0}, 24))
    for e, before, after in zip(rows, default, extract):
        assert wanted[e.id] not in before.text and wanted[e.id] in after.text, (before.text, after.text)
        single = decoder.generate(e.question, e.documents, config=base_config("pmi_words_memory_extract",
                                                                              {"pmi_gate": 1.0}, 24))
        assert single.token_ids == after.token_ids


def test_eval_unanswerable_reports_abstention_and_the_threshold_tables_from_validation_rows(tmp_path):
    """`--unanswerable`: each row's twin reads other rows' passages (its main metric is abstention); every tuned set
    gets the support-threshold table of its validation rows, recomputable from the stored supports."""
    out = tmp_path / "un"
    args = ["eval", "--data", str(FIXTURES / "nq_swap_6.jsonl"), "--methods", "standard,standard+prompted",
            "--limit", "2", "--validation-limit", "2", "--no-latency", "--max-new-tokens", "6", "--unanswerable",
            "--out", str(out)]
    assert main(args) == 0
    report = json.loads((out / "report.json").read_text())
    twin = report["datasets"]["nq_swap_6+unanswerable"]
    assert twin["main_metric"] == "abstention" and set(twin["methods"]) == {"standard", "standard+prompted"}
    table = report["abstention"]["nq_swap_6"]["standard"]
    assert set(report["abstention"]["nq_swap_6"]) == {"standard"}, "a prompted method abstains in words, not by support"
    records = [json.loads(x) for x in (out / "generations.jsonl").read_text().splitlines()]
    twin_supports = [r["support"] for r in records if r["key"].split("|")[2] == "nq_swap_6+unanswerable"
                     and r["key"].split("|")[3] == "standard" and "system_prompt" not in r["key"]
                     and r["id"] in {ex.id for ex in split_examples(load_examples(FIXTURES / "nq_swap_6.jsonl"),
                                                                          "validation")[:2]}]
    assert len(twin_supports) == 2
    for row in table:
        assert row["unanswerable_withheld"] == sum(s < row["threshold"] for s in twin_supports) / 2
        assert 0 <= row["right_withheld_points"] <= row["answerable_withheld"] <= 1
    assert "### Support threshold on nq_swap_6's validation rows: standard" in (out / "report.md").read_text()
    # without --unanswerable the table has no twin column, and its decodes are the ones tuning already made
    plain = tmp_path / "plain"
    assert main([a if a != str(out) else str(plain) for a in args if a != "--unanswerable"]) == 0
    rows = json.loads((plain / "report.json").read_text())["abstention"]["nq_swap_6"]["standard"]
    assert all(r["unanswerable_withheld"] is None for r in rows)
    assert [r["right_withheld"] for r in rows] == [r["right_withheld"] for r in table]


def test_eval_pool_chooses_one_setting_on_every_files_validation_rows(tmp_path):
    """``--pool``: each method runs every file at the one setting with the best mean validation score over the files
    (a file and its distractor variant among them); each setting's per-file score is its stored answers' substring
    rate; the margins table reads the same validation scores and the report's paired test Δs."""
    out = tmp_path / "pooled"
    nq = str(FIXTURES / "nq_swap_6.jsonl")
    assert main(["eval", "--pool", "--data", nq, "--data", f"{nq}+2distractors", "--methods", "standard,cad",
                 "--limit", "2", "--validation-limit", "2", "--max-new-tokens", "4", "--batch-size", "2",
                 "--no-latency", "--support-threshold", "0", "--out", str(out)]) == 0
    report = json.loads((out / "report.json").read_text())
    assert set(report["datasets"]) == {"nq_swap_6", "nq_swap_6+2distractors"}
    settings = report["pooled"]["settings"]
    cad = settings["cad"]
    assert [row["params"]["beta"] for row in cad["table"]] == [0.5, 1.0, 2.0]
    assert cad["params"] == max(cad["table"], key=lambda row: row["mean"])["params"]
    for d in report["datasets"].values():
        assert d["pooled"] and d["n_validation"] == 2 and d["methods"]["cad"]["params"] == cad["params"]
    records = {tuple(r["key"].split("|")[2:6]): r["text"]
               for r in map(json.loads, (out / "generations.jsonl").read_text().splitlines())}
    validation = split_examples(load_examples(FIXTURES / "nq_swap_6.jsonl"), "validation")[:2]
    for row in cad["table"]:
        params = json.dumps(row["params"], sort_keys=True)
        for name, score in row["per_set"].items():
            hits = [substring_match(records[name, "cad", params, ex.id], ex.answers) for ex in validation]
            assert score == pytest.approx(sum(hits) / len(hits)), (name, params)
        assert row["mean"] == pytest.approx(sum(row["per_set"].values()) / 2)
    margin = report["pooled"]["margins"]["cad vs standard"]["nq_swap_6+2distractors"]
    chosen = next(row for row in cad["table"] if row["params"] == cad["params"])["per_set"]
    assert margin["validation"] == pytest.approx(
        chosen["nq_swap_6+2distractors"] - settings["standard"]["table"][0]["per_set"]["nq_swap_6+2distractors"])
    assert margin["test"] == report["datasets"]["nq_swap_6+2distractors"]["methods"]["cad"]["diffs_vs"]["standard"]["substring"]
    assert "### Settings chosen on the pooled validation rows" in (out / "report.md").read_text()
