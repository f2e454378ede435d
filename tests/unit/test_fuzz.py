"""Property-based tests (hypothesis) over the public API's inputs: configs, scores, text with any
Unicode and control characters, and every method's fusion on random log-probabilities. No crash
other than the documented errors, no NaN in any fused distribution.

The fusion and validation properties run many examples cheaply; the examples that run the model
are few (``max_examples`` small, no deadline: the machine is shared and slow).
"""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grounded_rag import DecodingConfig, Document, InputError
from grounded_rag.config import DecodingConfig as Config
from grounded_rag.config import settings_fields
from grounded_rag.evaluation.ablations import register as register_ablations
from grounded_rag.inputs import check_scores
from grounded_rag.methods import ABLATIONS, METHODS, StepInputs, get_method
from grounded_rag.trust import retrieval_trust

register_ablations()  # the research ablations decode here as in grounded-rag eval

SPECIALS = ["<|im_start|>", "<|im_end|>", "<|endoftext|>", "<end_of_turn>", "<start_of_turn>", "<bos>", "<eos>",
            "<pad>", "\x00", "\u202e", "\ufeff", "\r\n", "\t", " ", "Doc 1:", "Question:"]
# any code point but lone surrogates (refused with InputError, tested apart), mixed with special-token strings
text = st.lists(st.one_of(st.text(st.characters(exclude_categories=["Cs"]), max_size=12), st.sampled_from(SPECIALS)),
                max_size=6).map("".join)
numbers = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-10**30, 10**30), st.booleans())
anything = st.one_of(numbers, st.none(), st.text(max_size=8), st.lists(st.text(max_size=4), max_size=3))


def field_values(name: str):
    """Valid-looking and hostile values for one DecodingConfig field."""
    field = settings_fields()[name]
    return st.one_of(st.just(field.get_default(call_default_factory=True)), anything)


config_dicts = st.fixed_dictionaries({}, optional={name: field_values(name) for name in settings_fields()})


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(config_dicts)
def test_any_config_is_valid_or_an_input_error(values):
    try:
        config = DecodingConfig(**values)
    except InputError as exc:
        assert str(exc).startswith("invalid DecodingConfig: ")
        return
    again = DecodingConfig(**config.model_dump())
    assert again == config
    for name, value in config.model_dump().items():
        if isinstance(value, float) and name != "rho_max":
            assert math.isfinite(value), (name, value)


score_lists = st.one_of(st.lists(numbers, min_size=1, max_size=4), st.lists(anything, min_size=1, max_size=4))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scores=score_lists, space=st.sampled_from(["cosine", "raw"]),
       tau_r=st.floats(1e-6, 1e6), gamma=st.floats(0, 1e6), b=st.floats(-1e308, 1e308))
def test_any_scores_give_a_trust_in_0_1_or_an_input_error(scores, space, tau_r, gamma, b):
    docs = [Document(text=f"passage {i}") for i in range(len(scores))]
    try:
        checked = check_scores(docs, scores, space)
    except InputError:
        return
    assert checked is not None and all(math.isfinite(s) for s in checked)
    if space == "cosine":
        assert all(-1.001 <= s <= 1.001 for s in checked)
    trust = retrieval_trust(checked, tau_r, gamma, b)
    assert 0.0 <= trust <= 1.0


# ----------------------------------------------------------------------------- fusion, every method
def logp(rows: int, vocab: int, seed: int, scale: float, masked: float) -> torch.Tensor:
    """Random log-probabilities; ``masked`` of the tokens ruled out (-inf), token 0 always kept."""
    g = torch.Generator().manual_seed(seed)
    logits = torch.randn(rows, vocab, generator=g) * scale
    drop = torch.rand(rows, vocab, generator=g) < masked
    drop[:, 0] = False
    return torch.log_softmax(logits.masked_fill(drop, -math.inf), dim=-1)


# Contrastive rules divide by the reference: a token the reference rules out (-inf) would get +inf and the
# normalization would turn the row into NaN. finite_reference gives such a token no contrast instead.
CONTRASTS = {"cad", "adacad", "dola", "coiecd", "cocoa"}

fusion_configs = st.builds(
    lambda rho, tau, beta, ca, ce, lam, ra, da, kl, pa, pb, kappa, gate: DecodingConfig(
        rho_max=rho, tau_r=tau, beta=beta, coiecd_alpha=ca, coiecd_epsilon=ce, cocoa_lambda_max=lam,
        renyi_alpha=ra, dola_alpha=da, knn_lambda=kl, pmi_alpha=pa, pmi_beta=pb, plausibility=kappa, pmi_gate=gate),
    st.one_of(st.floats(0, 1e6), st.just(math.inf)), st.floats(1e-3, 1e3), st.floats(0, 50), st.floats(0, 50),
    st.floats(1e-3, 50), st.floats(1, 50), st.floats(0.01, 0.99), st.floats(1e-3, 1), st.floats(0, 1),
    st.floats(0, 50), st.floats(0, 50), st.floats(0, 0.99), st.floats(-50, 50),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(method=st.sampled_from(sorted({**METHODS, **ABLATIONS})), config=fusion_configs, seed=st.integers(0, 2**31),
       rows=st.integers(1, 3), vocab=st.integers(2, 40), scale=st.sampled_from([0.01, 1.0, 5.0, 30.0, 200.0]),
       masked=st.sampled_from([0.0, 0.5, 0.95]), trust=st.floats(0, 1))
def test_no_method_ever_fuses_to_nan(method, config, seed, rows, vocab, scale, masked, trust):
    lp_full = logp(rows, vocab, seed, scale, masked)
    if method == "dola" or get_method(method).streams > 2:  # premature layers, or one row per reference stream
        k = 3 if method == "dola" else get_method(method).streams - 1
        reference = torch.stack([logp(rows, vocab, seed + j + 1, scale, masked) for j in range(k)], dim=1)
    else:
        reference = logp(rows, vocab, seed + 1, scale, masked)
    needs, kwargs = get_method(method).needs, {}
    if "document_tokens" in needs:  # a random set of document tokens per row, sometimes none at all
        g = torch.Generator().manual_seed(seed)
        kwargs["doc_tokens"] = torch.rand(rows, vocab, generator=g) < masked
    if "question_tokens" in needs:  # a random set of the question's tokens per row
        g = torch.Generator().manual_seed(seed + 3)
        kwargs["question_tokens"] = torch.rand(rows, vocab, generator=g) < masked
    if "copies" in needs:  # a random set of copied-word continuations per row
        g = torch.Generator().manual_seed(seed + 7)
        kwargs["words"] = torch.rand(rows, vocab, generator=g) < masked
    if "end_ids" in needs:  # the post-fusion end rule too
        kwargs["ends"] = torch.arange(vocab) == 0
    out = get_method(method).step(StepInputs(lp_full, reference, torch.full((rows,), trust), config, **kwargs))
    assert not torch.isnan(out.log_q).any(), method
    assert torch.isfinite(out.log_q).any(dim=-1).all(), "every row keeps a token"
    assert torch.allclose(torch.logsumexp(out.log_q, dim=-1), torch.zeros(rows), atol=1e-3), method
    for signal in (out.rho, out.eta, out.conflict):
        assert signal is None or not torch.isnan(signal).any(), method


@pytest.mark.parametrize("method", sorted(CONTRASTS))
def test_contrastive_methods_with_a_ruled_out_token(method):
    lp_full = torch.log_softmax(torch.tensor([[1.0, 2.0, 3.0, 0.0]]), dim=-1)
    lp_ref = torch.log_softmax(torch.tensor([[1.0, -math.inf, 3.0, 0.0]]), dim=-1)
    pair = [(lp_full, lp_ref), (lp_ref, lp_full)]
    nan = False
    for a, b in pair:
        reference = torch.stack([b, b], dim=1) if method == "dola" else b
        out = get_method(method).step(StepInputs(a, reference, torch.tensor([0.7]), DecodingConfig()))
        nan |= bool(torch.isnan(out.log_q).any())
    assert not nan


class _RuleSettings:
    """A config that fails the test when a rule reads a setting the graph key leaves out (engine.NOT_READ_BY_RULES):
    a captured step would bake in the first request's value for every later one."""

    def __init__(self, config: DecodingConfig) -> None:
        self._config = config

    def __getattr__(self, name: str):
        from grounded_rag.engine import NOT_READ_BY_RULES

        assert name not in NOT_READ_BY_RULES, f"a rule reads {name!r}, which the captured step's key leaves out"
        return getattr(self._config, name)


@pytest.mark.parametrize("method", sorted({**METHODS, **ABLATIONS}))
def test_no_rule_reads_a_setting_the_graph_key_leaves_out(method):
    m, rows, vocab = get_method(method), 2, 12
    k = 3 if method == "dola" else m.streams - 1
    reference = (torch.stack([logp(rows, vocab, j, 3.0, 0.3) for j in range(k)], dim=1) if k > 1
                 else logp(rows, vocab, 9, 3.0, 0.3))
    masks = {"doc_tokens": torch.rand(rows, vocab) < 0.5, "words": torch.rand(rows, vocab) < 0.3,
             "breaks": torch.rand(rows, vocab) < 0.3, "ends": torch.arange(vocab) == 0,
             "trusted": torch.tensor([True, False]), "question_tokens": torch.rand(rows, vocab) < 0.5}
    for begun in (False, True):
        m.step(StepInputs(logp(rows, vocab, 1, 3.0, 0.3), reference, torch.tensor([0.2, 0.9]),
                          _RuleSettings(DecodingConfig()), begun=begun, **masks))
