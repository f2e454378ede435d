"""Property-based tests (hypothesis) that need the packaged models' files: prompts rendered from any text by the real
tokenizers, and a few decodes of any text by the real model. No crash other than the documented errors, no NaN.

The model examples are few (``max_examples`` small, no deadline: the machine is shared and slow).
"""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from transformers import AutoTokenizer

from grounded_rag import ContextWindowError, Document, InputError
from grounded_rag.evaluation.ablations import register as register_ablations
from grounded_rag.methods import ABLATIONS, METHODS
from grounded_rag.prompts import build_prompts, control_token_ids, encode

from ..unit.test_fuzz import text

register_ablations()  # the research ablations decode here as in grounded-rag eval


# ----------------------------------------------------------------------------- prompts from any text
@pytest.fixture(scope="module")
def tokenizers():
    from grounded_rag.models import resolve_model

    return [AutoTokenizer.from_pretrained(resolve_model(alias)[0]) for alias in ("smollm2-135m-instruct", "gemma3-270m")]


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(question=text, docs=st.lists(st.tuples(text, st.one_of(st.none(), text)), min_size=1, max_size=3),
       system=text, template=st.sampled_from(["documents_first", "paper"]),
       reference=st.sampled_from(["retrieval", "query", "none"]))
def test_any_text_renders_with_only_the_templates_control_tokens(tokenizers, question, docs, system, template,
                                                                 reference):
    documents = [Document(text=t if t.strip() else "x", title=title or None) for t, title in docs]
    for tok in tokenizers:
        special = control_token_ids(tok)
        clean = build_prompts(tok, "q", [Document(text="d")], reference, template, "s")
        for prompt, plain in zip(build_prompts(tok, question or "q", documents, reference, template, system), clean):
            if prompt is None:
                continue
            ids = encode(tok, prompt)
            assert sum(i in special for i in ids) == sum(i in special for i in encode(tok, plain))


# ----------------------------------------------------------------------------- the model, a few examples
@settings(max_examples=5, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(question=text, docs=st.lists(text, min_size=1, max_size=2), method=st.sampled_from(sorted({**METHODS, **ABLATIONS})),
       temperature=st.sampled_from([0.0, 0.7, 50.0]), top_p=st.sampled_from([1.0, 0.01]))
def test_decoding_any_text_never_crashes_or_yields_nan(decoder, question, docs, method, temperature, top_p):
    try:
        result = decoder.generate(question, docs, method=method, max_new_tokens=2, temperature=temperature,
                                  top_p=top_p, seed=0)
    except (InputError, ContextWindowError) as exc:
        assume(False)  # a documented refusal (empty question or document)
        raise AssertionError from exc
    for step in result.trace:
        assert all(v is None or math.isfinite(v) for v in (step.q, step.p_full, step.p_ref, step.rho, step.eta,
                                                            step.conflict)), step
