import math

import pytest

from grounded_rag import (
    DecodingConfig,
    Document,
    calibrate_bias,
    calibrate_bias_from_retrievals,
    normalize_scores,
    retrieval_trust,
)
from grounded_rag.errors import InputError
from grounded_rag.evaluation.ablations import register as register_ablations
from grounded_rag.methods import ABLATIONS, METHODS, get_method
from grounded_rag.trust import aggregate_score

register_ablations()  # the research ablations decode here as in grounded-rag eval


def test_aggregate_is_softmax_weighted_and_approaches_max():
    scores = [0.2, 0.5, 0.9]
    weights = [math.exp(s) for s in scores]
    expected = sum(w * s for w, s in zip(weights, scores)) / sum(weights)
    assert math.isclose(aggregate_score(scores, 1.0), expected)
    assert math.isclose(aggregate_score(scores, 1e-3), 0.9, rel_tol=1e-6)
    assert math.isclose(aggregate_score(scores, 1e6), sum(scores) / 3, rel_tol=1e-4)


def test_trust_gate_is_monotone_bounded_and_centred_on_b():
    values = [retrieval_trust([s, s - 0.1], tau_r=0.5, gamma=8.0, b=0.5) for s in [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]]
    assert all(a < b for a, b in zip(values, values[1:]))
    assert all(0 < v < 1 for v in values)
    assert math.isclose(retrieval_trust([0.5], 1.0, 8.0, 0.5), 0.5)
    assert retrieval_trust(None, 1.0, 8.0, 0.5) == 1.0
    assert retrieval_trust([-1e6], 1.0, 10.0, 0.0) == 0.0  # no overflow for extreme scores


def test_calibration_takes_the_median_top_score():
    assert calibrate_bias([0.1, 0.9, 0.4]) == 0.4
    assert calibrate_bias_from_retrievals([[0.1, 0.3], [0.8, 0.2], [0.5]]) == 0.5
    with pytest.raises(ValueError):
        calibrate_bias([])


def test_normalize_scores_maps_each_distance_space_to_cosine():
    assert normalize_scores([0.0, 2.0, 4.0], "l2") == [1.0, 0.0, -1.0]
    assert normalize_scores([0.0, 1.0], "cosine") == [1.0, 0.0]
    assert normalize_scores([0.25], "ip") == [0.75]
    assert normalize_scores([1.7], "relevance") == [1.7]
    assert normalize_scores([math.exp(-0.5)], "exp_l2") == [0.75]
    assert math.isclose(normalize_scores([math.exp(-0.25)], "exp_cosine")[0], 0.75)
    with pytest.raises(ValueError, match="not finite"):
        normalize_scores([float("nan")], "l2")
    with pytest.raises(ValueError, match="unknown distance space"):
        normalize_scores([0.1], "manhattan")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="exp_l2, exp_cosine"):  # the message names every space, even with no scores
        normalize_scores([], "cos")  # type: ignore[arg-type]


def test_a_config_passed_where_the_scores_go_is_named() -> None:
    """generate(q, docs, DecodingConfig(...)): the third argument is the scores; a config there was read as one
    score per field ("got 40 scores for 1 documents")."""
    from grounded_rag.inputs import check_scores, documents_and_scores

    with pytest.raises(InputError, match="scores is a DecodingConfig.*config=DecodingConfig"):
        documents_and_scores(["a passage"], DecodingConfig(extractive=True))  # type: ignore[arg-type]
    with pytest.raises(InputError, match="scores is a DecodingConfig"):
        check_scores([Document(text="a passage")], DecodingConfig())  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "field,value,fragment",
    [
        ("rho_max", -1.0, "rho_max"),
        ("rho_max", float("nan"), "rho_max"),
        ("tau_r", 0.0, "tau_r"),
        ("top_p", 0.0, "top_p"),
        ("top_p", 1.5, "top_p"),
        ("top_k", -1, "top_k"),
        ("min_p", 1.0, "min_p"),
        ("method", "beam", "method"),
        ("max_new_tokens", 0, "max_new_tokens"),
        ("stop", [""], "stop"),
        ("template", "fancy", "template"),
        ("coiecd_epsilon", 0.0, "coiecd_epsilon"),
        ("cocoa_lambda_max", 0.5, "cocoa_lambda_max"),
        ("renyi_alpha", 1.0, "renyi_alpha"),
        ("dola_layers", "middle", "dola_layers"),
        ("dola_alpha", 0.0, "dola_alpha"),
        ("knn_k", 0, "knn_k"),
        ("knn_lambda", 1.5, "knn_lambda"),
        # finite, and past what fp32 holds: a 500 from the server before, now refused by name
        ("beta", 1e308, "beta=1e+308: must be at most 1e+06"),
        ("rho_max", 1e308, "rho_max"),
        ("pmi_alpha", 1e39, "pmi_alpha"),
        ("b", -1e39, "b=-1e+39"),
    ],
)
def test_config_rejects_bad_values_naming_the_field(field, value, fragment):
    with pytest.raises(InputError) as err:
        DecodingConfig(**{field: value})
    assert fragment in str(err.value)


def test_config_accepts_infinite_rho_and_forbids_typos():
    assert DecodingConfig(rho_max=float("inf")).rho_max == float("inf")
    assert DecodingConfig(beta=1e6, b=-1e6).beta == 1e6
    with pytest.raises(InputError, match="rho_mx"):
        DecodingConfig(rho_mx=1.0)


def test_the_menu_holds_the_default_the_paper_standard_and_the_baselines_and_the_ablations_are_apart():
    assert list(METHODS) == ["grounded_contrast", "grounded", "standard", "cad", "adacad", "coiecd", "cocoa", "dola",
                             "knnlm"]
    assert set(ABLATIONS) >= {"static", "conflict_only", "trust_only", "arithmetic", "query_only_reference",
                              "grounded_pmi", "grounded_pmi_gated", "grounded_pmi_anchored", "pmi_words_cut"}
    assert not set(ABLATIONS) & set(METHODS)
    assert get_method("standard").streams == 1
    assert get_method("query_only_reference").reference == "query"
    with pytest.raises(ValueError, match="unknown method"):
        get_method("beam")


def test_config_names_eval_grids_and_the_methods_table_list_the_same_methods():
    """A method added to the table is settable in DecodingConfig (and so in both wrappers) and tunable by eval."""
    from typing import get_args

    from grounded_rag.menu import MethodName
    from grounded_rag.evaluation.protocol import GRIDS

    assert set(get_args(MethodName)) == set(METHODS)
    assert set(GRIDS) == set(METHODS) | set(ABLATIONS)


def test_the_default_is_the_contrast_method_with_every_part_and_each_ablation_turns_one_off():
    default = get_method("grounded_contrast")
    assert DecodingConfig().method == "grounded_contrast"
    assert [step.name for step in default.post] == ["end_rule", "finish_words"]
    assert default.needs == {"document_tokens", "copies", "word_breaks", "end_ids", "trusted"}
    cut, untrusting = get_method("pmi_words_cut"), get_method("pmi_words_untrusting")
    assert cut.fuse is default.fuse and [step.name for step in cut.post] == ["end_rule"]
    assert untrusting.fuse is default.fuse and untrusting.needs == default.needs - {"trusted"}
    assert get_method("pmi_anchored_fused_ends").post == () and "copies" not in get_method("grounded_pmi_anchored").needs


def test_the_former_name_of_the_default_still_works_with_a_deprecation_warning():
    with pytest.warns(DeprecationWarning, match="grounded_contrast"):
        assert DecodingConfig(method="grounded_pmi_words").method == "grounded_contrast"
    with pytest.warns(DeprecationWarning):
        assert get_method("grounded_pmi_words") is get_method("grounded_contrast")


def test_an_ablation_is_not_a_user_method_until_the_evaluation_registers_it_where_it_reads_its_methods():
    """Importing the evaluation registers nothing; eval's reading of ``--methods`` (``method_grid``) does, through
    ``ablations.register`` (idempotent). In a fresh process: this one has registered them above."""
    import subprocess
    import sys

    refused = "try:\n    DecodingConfig(method='pmi_words_cut')\nexcept Exception as e:\n    print(e)\n"
    accepted = "print(DecodingConfig(method='pmi_words_cut').method)\n"
    code = ("from grounded_rag import DecodingConfig\n" + refused + "import grounded_rag.evaluation\n" + refused
            + "from grounded_rag.evaluation.protocol import method_grid\nmethod_grid('pmi_words_cut')\n" + accepted
            + "from grounded_rag.evaluation.ablations import register\nregister()\n" + accepted)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.count("unknown method 'pmi_words_cut'") == 2 and "grounded-rag eval --methods" in out
    assert out.splitlines()[-2:] == ["pmi_words_cut", "pmi_words_cut"]


def test_an_infinite_rho_in_a_trace_travels_as_json_and_back():
    """rho_max=inf (the reference stream followed) puts inf in the trace; JSON has no inf, and the server's answer
    must be JSON (it was a 500): it travels as "inf" and is read back as inf."""
    import json

    from grounded_rag.types import TraceStep

    step = TraceStep(token_id=1, token="a", rho=float("inf"), conflict=None, p_full=0.5, q=0.25)
    sent = json.dumps(step.model_dump(mode="json"), allow_nan=False)
    assert TraceStep(**json.loads(sent)) == step and step.model_dump()["rho"] == float("inf")


def test_chat_content_parts_join_as_lines():
    """OpenAI clients may split a message into text parts; vLLM joins them with newlines (joined bare, "Where is" and
    "the tower?" made "Where isthe tower?")."""
    from grounded_rag.serving.protocol import ChatMessage

    parts = [{"type": "text", "text": "Where is"}, {"type": "text", "text": "the Eiffel Tower?"}]
    assert ChatMessage(role="user", content=parts).text() == "Where is\nthe Eiffel Tower?"


def test_a_null_decoding_setting_yields_to_the_openai_field():
    """Clients that send whole dicts send ``decoding.max_new_tokens: null`` beside ``max_tokens``; the null is a setting
    left unset (it was refused as "set twice with different values"). Two real values that differ still are."""
    from grounded_rag.config import DecodingConfig
    from grounded_rag.serving.protocol import ChatRequest, to_job
    from grounded_rag.serving.settings import ServeSettings

    def job(**fields):
        req = ChatRequest(model="m", messages=[{"role": "user", "content": "Where?"}], documents=["Paris."], **fields)
        return to_job(req, "Where?", None, DecodingConfig(), ServeSettings())

    assert job(max_tokens=5, decoding={"max_new_tokens": None}).config.max_new_tokens == 5
    assert job(temperature=0.5, decoding={"temperature": None, "seed": None}).config.temperature == 0.5
    with pytest.raises(InputError, match="temperature is set twice"):
        job(temperature=0.5, decoding={"temperature": 0.0})
    with pytest.raises(InputError, match="decoding.max_new_tokens"):  # a null alone: no setting to fall back on
        job(decoding={"max_new_tokens": None})
    assert job(max_tokens=7, max_completion_tokens=7).config.max_new_tokens == 7
    with pytest.raises(InputError, match="max_tokens=7 and max_completion_tokens=9 differ"):  # was: 9, silently
        job(max_tokens=7, max_completion_tokens=9)
