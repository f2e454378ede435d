"""The closed form, its limits, and numerical safety of the fusion in log space."""

import math

import pytest
import torch

from grounded_rag.config import DecodingConfig
from grounded_rag.evaluation.ablations import register as register_ablations
from grounded_rag.fusion import (
    arithmetic_fusion,
    conflict,
    eta_from_rho,
    finite,
    geometric_fusion,
    js_divergence,
    kl_barycenter_objective,
)
from grounded_rag.methods import StepInputs, anchor, full_stream_ends, get_method

register_ablations()  # the research ablations decode here as in grounded-rag eval


def fuse(method, lp_full, lp_ref, trust, cfg, doc_tokens=None, words=None, trusted=None):
    """A method's fuse rule on one step's inputs."""
    return method.fuse(StepInputs(lp_full, lp_ref, trust, cfg, doc_tokens=doc_tokens, words=words, trusted=trusted))


def random_logp(rows: int, vocab: int, seed: int, scale: float = 3.0) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    return torch.log_softmax(torch.randn(rows, vocab, generator=g) * scale, dim=-1)


@pytest.mark.parametrize("rho", [0.0, 0.3, 1.0, 4.0, 25.0])
def test_closed_form_equals_numerical_minimizer(rho):
    from scipy.optimize import minimize

    lp_full, lp_ref = random_logp(1, 12, 1), random_logp(1, 12, 2)
    closed = geometric_fusion(lp_full, lp_ref, eta_from_rho(torch.tensor([rho]))).exp()[0].double()

    p_full, p_ref = lp_full.exp()[0].double(), lp_ref.exp()[0].double()

    def objective(z):
        q = torch.softmax(torch.tensor(z, dtype=torch.float64), dim=-1)
        return float(kl_barycenter_objective(q, p_full, p_ref, rho))

    found = minimize(objective, x0=[0.0] * 12, method="BFGS", options={"gtol": 1e-10})
    numerical = torch.softmax(torch.tensor(found.x), dim=-1)
    assert torch.allclose(closed, numerical, atol=2e-5), (closed, numerical)
    assert objective(torch.log(closed).tolist()) <= found.fun + 1e-9


def test_rho_zero_is_exactly_p_full_and_rho_inf_is_exactly_p_ref():
    lp_full, lp_ref = random_logp(3, 50, 3), random_logp(3, 50, 4)
    assert torch.equal(geometric_fusion(lp_full, lp_ref, torch.zeros(3)), lp_full)
    eta = eta_from_rho(torch.full((3,), float("inf")))
    assert torch.equal(eta, torch.ones(3))
    assert torch.equal(geometric_fusion(lp_full, lp_ref, eta), lp_ref)


def test_interpolation_is_monotone_in_rho():
    lp_full, lp_ref = random_logp(1, 30, 5), random_logp(1, 30, 6)
    distances = []
    for rho in [0.0, 0.5, 1.0, 2.0, 8.0, 64.0]:
        q = geometric_fusion(lp_full, lp_ref, eta_from_rho(torch.tensor([rho])))
        distances.append(js_divergence(q, lp_ref).item())
    assert all(a > b for a, b in zip(distances, distances[1:]))


def test_fusion_is_stable_with_minus_infinity_entries():
    lp_full = random_logp(1, 10, 7)
    lp_ref = random_logp(1, 10, 8)
    lp_ref[0, :3] = -float("inf")  # the reference rules these tokens out
    lp_ref = torch.log_softmax(lp_ref, dim=-1)
    q0 = geometric_fusion(lp_full, lp_ref, torch.zeros(1))
    assert torch.equal(q0, lp_full), "eta = 0 must not let the reference veto tokens"
    q = geometric_fusion(lp_full, lp_ref, torch.tensor([0.4]))
    assert not torch.isnan(q).any()
    assert torch.isinf(q[0, :3]).all() and torch.isfinite(q[0, 3:]).all()
    assert math.isclose(q.exp().sum().item(), 1.0, rel_tol=1e-5)
    assert not torch.isnan(conflict(lp_full, lp_ref)).any()
    a = arithmetic_fusion(lp_full, lp_ref, torch.tensor([0.4]))
    assert torch.isfinite(a).all() and math.isclose(a.exp().sum().item(), 1.0, rel_tol=1e-5)


def test_fusion_is_float32_and_shift_invariant():
    lp_full, lp_ref = random_logp(2, 40, 9).half(), random_logp(2, 40, 10).half()
    q = geometric_fusion(lp_full.float(), lp_ref.float(), torch.tensor([0.3, 0.7]))
    assert q.dtype == torch.float32
    shifted = geometric_fusion(lp_full.float() + 5.0, lp_ref.float() - 2.0, torch.tensor([0.3, 0.7]))
    assert torch.allclose(q, shifted, atol=1e-5)


def test_js_bounds():
    lp = random_logp(4, 20, 11)
    assert torch.allclose(js_divergence(lp, lp), torch.zeros(4), atol=1e-6)
    disjoint_a = torch.full((1, 4), -float("inf"))
    disjoint_a[0, :2] = math.log(0.5)
    disjoint_b = torch.full((1, 4), -float("inf"))
    disjoint_b[0, 2:] = math.log(0.5)
    assert math.isclose(conflict(disjoint_a, disjoint_b).item(), 1.0, rel_tol=1e-6)
    c = conflict(random_logp(64, 20, 12), random_logp(64, 20, 13))
    assert ((c >= 0) & (c <= 1)).all()
    assert torch.allclose(js_divergence(lp, random_logp(4, 20, 14)), js_divergence(random_logp(4, 20, 14), lp))


def test_arithmetic_fusion_limits():
    lp_full, lp_ref = random_logp(1, 10, 15), random_logp(1, 10, 16)
    assert torch.allclose(arithmetic_fusion(lp_full, lp_ref, torch.zeros(1)), lp_full, atol=1e-6)
    mid = arithmetic_fusion(lp_full, lp_ref, torch.tensor([0.5])).exp()
    assert torch.allclose(mid, 0.5 * lp_full.exp() + 0.5 * lp_ref.exp(), atol=1e-6)


def test_anchor_lets_documents_raise_only_their_own_tokens_and_lower_any():
    """The anchored methods' evidence term: a positive boost survives only on tokens the row's documents
    contain; a penalty (the documents argue against a token) survives everywhere."""
    evidence = torch.tensor([[2.0, -1.0, 3.0, -0.5], [1.0, 1.0, -2.0, 0.0]])
    in_docs = torch.tensor([[True, False, False, True], [False, True, False, False]])
    out = anchor(evidence, in_docs)
    assert out.tolist() == [[2.0, -1.0, 0.0, -0.5], [0.0, 1.0, -2.0, 0.0]]
    with pytest.raises(ValueError, match="document tokens"):
        anchor(evidence, None)


def test_full_stream_ends_takes_the_full_step_only_where_its_top_token_ends_the_answer():
    """The anchored default's end rule: a row whose full stream would end the answer gets the full
    stream's step (so greedy ends it); every other row keeps the fused step."""
    lp_full = torch.log_softmax(torch.tensor([[2.0, 1.0, 0.5], [0.1, 3.0, 0.2]]), dim=-1)
    log_q = torch.log_softmax(torch.tensor([[0.0, 4.0, 0.0], [0.0, 0.0, 5.0]]), dim=-1)
    ends = torch.tensor([True, False, False])  # token 0 ends the answer
    out = full_stream_ends(log_q, lp_full, ends)
    assert torch.equal(out[0], lp_full[0]) and out[0].argmax() == 0  # the contrast would have gone on with token 1
    assert torch.equal(out[1], log_q[1])
    with pytest.raises(ValueError, match="end-of-answer token ids"):
        full_stream_ends(log_q, lp_full, None)


def test_a_copied_word_needs_no_question_support_and_is_not_cut():
    """grounded_contrast: a token finishing a word the answer copies passes the question gate (both
    streams read the word's first pieces, so PMI(y; x | D) is ~0 there); elsewhere it is
    grounded_pmi_anchored. A row whose fused step finishes a copied word is not ended by the full stream's
    wish to stop."""
    lp_full = torch.log_softmax(torch.tensor([[2.0, 1.0, 0.0, 0.5]]), dim=-1)
    lp_ret = lp_full.clone()  # the question adds nothing: the gate blocks every token
    lp_q = torch.log_softmax(torch.tensor([[2.0, -3.0, 0.0, 0.5]]), dim=-1)  # the documents raise token 1
    refs = torch.stack([lp_ret, lp_q], dim=1)
    cfg = DecodingConfig(pmi_alpha=4.0, pmi_gate=1.0, plausibility=0.0)
    in_docs = torch.ones(1, 4, dtype=torch.bool)
    spans, anchored = get_method("grounded_contrast"), get_method("grounded_pmi_anchored")
    none = torch.zeros(1, 4, dtype=torch.bool)
    blocked = fuse(spans, lp_full, refs, torch.ones(1), cfg, in_docs, words=none)
    assert torch.allclose(blocked.log_q, fuse(anchored, lp_full, refs, torch.ones(1), cfg, in_docs).log_q)
    assert blocked.log_q.argmax() == 0
    passed = fuse(spans, lp_full, refs, torch.ones(1), cfg, in_docs, words=torch.tensor([[False, True, False, False]]))
    assert passed.log_q.argmax() == 1, "the span's continuation gets the evidence boost"
    with pytest.raises(ValueError, match="copied-word continuations"):
        fuse(spans, lp_full, refs, torch.ones(1), cfg, in_docs)
    ends = torch.tensor([True, False, False, False])
    assert torch.equal(full_stream_ends(passed.log_q, lp_full, ends, torch.tensor([True])), passed.log_q)
    assert torch.equal(full_stream_ends(passed.log_q, lp_full, ends, torch.tensor([False])), lp_full)


def test_a_trusted_row_is_anchored_cad_and_its_neighbours_are_untouched():
    """The guarded default with ``trusted`` rows (the caller wrote every document): those rows are CAD's contrast at
    trusted_beta, raising only document tokens, over the whole vocabulary; the other rows are the guarded rule's,
    bit for bit, and no trusted row at all is the guarded rule."""
    lp_full, lp_ret, lp_q = random_logp(2, 8, 11), random_logp(2, 8, 12), random_logp(2, 8, 13)
    refs = torch.stack([lp_ret, lp_q], dim=1)
    in_docs = torch.tensor([[True, False, True, False, True, False, False, True]] * 2)
    none = torch.zeros(2, 8, dtype=torch.bool)
    cfg = DecodingConfig(trusted_beta=1.5, pmi_gate=1.0)
    words = get_method("grounded_contrast")
    guarded = fuse(words, lp_full, refs, torch.ones(2), cfg, in_docs, words=none)
    mixed = fuse(words, lp_full, refs, torch.ones(2), cfg, in_docs, words=none, trusted=torch.tensor([True, False]))
    assert torch.equal(mixed.log_q[1], guarded.log_q[1]) and mixed.rho[1] == guarded.rho[1]
    boost = 1.5 * (lp_full[0] - lp_q[0])
    expected = torch.log_softmax(lp_full[0] + torch.where(in_docs[0] | (boost < 0), boost, torch.zeros_like(boost)), -1)
    assert torch.allclose(mixed.log_q[0], expected, atol=1e-6)
    assert not torch.allclose(mixed.log_q[0], guarded.log_q[0], atol=1e-3), "the trusted rule must differ here"
    assert float(mixed.rho[0]) == 1.5 and float(mixed.eta[0]) == 0.0
    untrusted = fuse(words, lp_full, refs, torch.ones(2), cfg, in_docs, words=none, trusted=None)
    assert torch.equal(untrusted.log_q, guarded.log_q)
    gated = get_method("grounded_pmi_gated")  # not anchored: the boost reaches every token
    plain = fuse(gated, lp_full, refs, torch.ones(2), cfg, trusted=torch.tensor([True, True])).log_q
    assert torch.allclose(plain, torch.log_softmax(lp_full + 1.5 * (lp_full - lp_q), -1), atol=1e-6)


def test_the_question_term_variants_raise_only_what_they_may():
    """The ablations of the question term, against the default on the same step: where the question raises a word
    (PMI(y; x | D) > 0) that no document holds, the default lifts it, ``pmi_words_question_anchored`` does not, and
    ``pmi_words_question_lowers`` raises nothing at all; a word the question-blind stream prefers is lowered by all
    three alike."""
    lp_full = torch.log_softmax(torch.tensor([[2.0, 1.0, 1.0, 0.0]]), dim=-1)
    lp_ret = torch.log_softmax(torch.tensor([[2.0, -2.0, -2.0, 3.0]]), dim=-1)  # the question evokes tokens 1 and 2
    refs = torch.stack([lp_ret, lp_full.clone()], dim=1)  # no evidence term: the documents add nothing for the question
    cfg = DecodingConfig(plausibility=0.0)
    in_docs = torch.tensor([[True, True, False, True]])  # token 2 is the question's association, in no document
    none = torch.zeros(1, 4, dtype=torch.bool)
    out = {name: fuse(get_method(name), lp_full, refs, torch.ones(1), cfg, in_docs, words=none)
           for name in ("grounded_contrast", "pmi_words_question_anchored", "pmi_words_question_lowers")}
    b = out["grounded_contrast"].eta[0]
    pmi_x = lp_full[0] - lp_ret[0]
    raw = lp_full[0] + b * pmi_x
    assert b > 0
    assert torch.allclose(out["grounded_contrast"].log_q[0], torch.log_softmax(raw, -1), atol=1e-6)
    anchored = lp_full[0] + b * torch.where(in_docs[0] | (pmi_x < 0), pmi_x, torch.zeros_like(pmi_x))
    assert torch.allclose(out["pmi_words_question_anchored"].log_q[0], torch.log_softmax(anchored, -1), atol=1e-6)
    lowers = lp_full[0] + b * pmi_x.clamp(max=0)
    assert torch.allclose(out["pmi_words_question_lowers"].log_q[0], torch.log_softmax(lowers, -1), atol=1e-6)
    q = {name: fused.log_q[0].exp() for name, fused in out.items()}
    assert q["grounded_contrast"][2] > q["pmi_words_question_anchored"][2]
    assert q["pmi_words_question_anchored"][1] > q["pmi_words_question_lowers"][1]


def test_finite_is_isfinite_on_every_kind_of_float():
    """The fused step's two-pass mask equals torch.isfinite on finite values, both infinities, NaN and -0.0, in every
    float type the streams' logits come in."""
    values = [0.0, -0.0, 1.5, -3.0e38, 3.0e38, 1e-45, math.inf, -math.inf, math.nan]
    for dtype in (torch.float32, torch.float16, torch.bfloat16, torch.float64):
        x = torch.tensor(values, dtype=dtype)
        assert torch.equal(finite(x), torch.isfinite(x)), dtype


def test_the_default_shares_its_intermediates_without_changing_a_bit():
    """The default's step computes exp(log p_full) and PMI(y; x | D) once for both contrasts; its result equals the
    formula written term by term (as the rule stood before), on rows where a reference rules tokens out."""
    lp = random_logp(6, 64, seed=11).view(2, 3, 64)
    lp[1, 1, 5:9] = -math.inf  # the retrieval stream rules tokens out
    lp[0, 2, 20:30] = -math.inf  # the question stream does
    lp_full, lp_ret, lp_q = lp[:, 0], lp[:, 1], lp[:, 2]
    cfg, trust = DecodingConfig(), torch.tensor([0.3, 0.8])
    doc = torch.zeros(2, 64, dtype=torch.bool)
    doc[:, ::3] = True
    words = torch.zeros(2, 64, dtype=torch.bool)
    got = fuse(get_method("grounded_contrast"), lp_full, lp[:, 1:], trust, cfg, doc_tokens=doc, words=words)

    def weighted(w, ref):
        diff = torch.where(torch.isfinite(ref), lp_full - ref, torch.zeros_like(lp_full))
        return torch.where(w.unsqueeze(-1) == 0, torch.zeros_like(diff), w.unsqueeze(-1) * diff)

    a = cfg.pmi_alpha * trust * conflict(lp_full, lp_q)
    b = cfg.pmi_beta * conflict(lp_full, lp_ret)
    pmi_x = torch.where(torch.isfinite(lp_ret), lp_full - lp_ret, torch.full_like(lp_full, math.inf))
    evidence = torch.where(pmi_x > cfg.pmi_gate, weighted(a, lp_q), torch.zeros_like(lp_full))
    evidence = anchor(evidence, doc)
    scores = lp_full + evidence + weighted(b, lp_ret)
    keep = (lp_full >= lp_full.max(-1, keepdim=True).values + math.log(cfg.plausibility)) & torch.isfinite(lp_full)
    want = torch.log_softmax(scores.masked_fill(~keep, -math.inf), dim=-1)
    assert torch.equal(got.log_q, want) and torch.equal(got.rho, a) and torch.equal(got.eta, b)
