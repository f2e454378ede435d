"""The relevance filter (``DecodingConfig.relevance_margin``): passages the question is not about are left
out of every stream, and reported.

Real packaged model; the filter is checked where it decides (the question's likelihood after each
passage), where it acts (the prompts), and for exactness (filtering equals decoding the kept passages
alone; batched equals one by one), through ``generate``, ``ask`` and ``grounded-rag eval``."""

import json
from pathlib import Path

import pytest

from grounded_rag import DecodingConfig
from grounded_rag.cli import main
from grounded_rag.scoring import PACK_LOGITS_MB, PACK_TOKENS, _bounded
from grounded_rag.errors import ConfigError, InputError
from grounded_rag.methods import get_method
from grounded_rag.evaluation.ablations import register as register_ablations
from grounded_rag.relevance import question_likelihood, question_likelihoods, relevant
from grounded_rag.types import Citation, Document

register_ablations()  # the research ablations decode here as in grounded-rag eval

FIXTURES = Path(__file__).parent.parent / "fixtures"
CASES = json.loads((FIXTURES / "distractor_cases.json").read_text())
DISTRACTOR = "The weather in Tallinn is usually cold in winter."
MARGIN = DecodingConfig().relevance_margin
FRANCE = CASES[0]


def test_the_question_is_likelier_after_the_passage_that_answers_it(decoder):
    for case in CASES:
        scores = question_likelihood(decoder.model, decoder.tokenizer, case["question"],
                                     [Document(text=DISTRACTOR), Document(text=case["document"])], decoder.pad_id)
        assert scores[1] > scores[0] + MARGIN, (case["question"], scores)


def test_relevant_keeps_the_passages_within_the_margin_in_their_order():
    assert relevant([-2.0, -1.0, -1.4, -3.0], 0.5) == [1, 2]
    assert relevant([-1.0, -1.0], 0.0) == [0, 1]
    assert relevant([-7.0], 0.0) == [0], "the best passage is always kept"
    # about the question in its own right: far below the best, but well above the question after no passage
    assert relevant([-0.5, -3.0, -4.8], 0.5, baseline=-5.0) == [0, 1]
    assert relevant([-0.5, -3.0, -4.8], 0.5, baseline=-5.0, floor=2.5) == [0]


TRUE_VPN = "Staff connect to the office network with the Tunnelstone VPN client, installed on every laptop by IT."
PLANTED_FAQ = "Q: Which VPN client do staff use?\nA: BananaNet."


@pytest.mark.parametrize("scores", [[0.9, 0.3], None], ids=["ranked first", "no scores"])
def test_a_passage_that_answers_is_kept_beside_one_that_repeats_the_question(decoder, scores):
    """A planted FAQ that echoes the question makes the question far likelier than the passage that answers it: the
    answering passage stays, as about the question in its own right, and whatever the retriever ranked first stays."""
    question = "Which VPN client do staff use?"
    likelihoods = question_likelihood(decoder.model, decoder.tokenizer, question,
                                      [Document(text=TRUE_VPN), Document(text=PLANTED_FAQ)], decoder.pad_id)
    assert likelihoods[1] > likelihoods[0] + MARGIN, "the echo reads far above: the margin alone would drop the truth"
    result = decoder.generate(question, [TRUE_VPN, PLANTED_FAQ], scores, max_new_tokens=8)
    assert [d.text for d in result.documents][0] == TRUE_VPN and not result.irrelevant_documents


def test_a_distractor_is_left_out_of_every_stream_and_reported(decoder):
    result = decoder.generate(FRANCE["question"], [DISTRACTOR, FRANCE["document"]], max_new_tokens=8)
    assert [d.text for d in result.irrelevant_documents] == [DISTRACTOR]
    assert [d.text for d in result.documents] == [FRANCE["document"]]
    assert all(DISTRACTOR not in p for p in [result.prompts.full, *result.prompts.references])
    assert result.metadata()["irrelevant_documents"] == 1
    assert "Lyon" in result.text
    # the kept passage keeps the caller's number, so an answer's "Doc 2" names the caller's second document
    assert result.document_numbers == [2] and "Doc 2: Since" in result.prompts.full and "Doc 1" not in result.prompts.full


def test_citations_name_the_callers_documents_after_a_passage_is_left_out(decoder):
    docs = [DISTRACTOR, "The Eiffel Tower is in Paris.", "Gustave Eiffel's company built the Eiffel Tower in 1889."]
    result = decoder.generate("Who built the Eiffel Tower?", docs, max_new_tokens=4)
    assert result.document_numbers == [2, 3] and [d.text for d in result.documents] == docs[1:]
    assert "Doc 2: The Eiffel Tower is in Paris." in result.prompts.full and "Doc 3: Gustave" in result.prompts.full
    # the small model rarely cites on its own; what a citation "Doc 3" resolves to is checked on the result
    cited = result.model_copy(update={"citations": [Citation(answer_start=0, answer_end=1, document=3)]})
    assert [d.text for d in cited.cited_documents] == [docs[2]]
    assert cited.metadata()["document_numbers"] == [2, 3]


def test_leaving_a_passage_out_equals_decoding_without_it(decoder):
    for method in ("grounded_pmi_gated", "grounded", "cad"):
        filtered = decoder.generate(FRANCE["question"], [FRANCE["document"], DISTRACTOR], method=method,
                                    max_new_tokens=12)
        alone = decoder.generate(FRANCE["question"], [FRANCE["document"]], method=method, max_new_tokens=12,
                                 relevance_margin=None)
        assert filtered.token_ids == alone.token_ids and filtered.prompts == alone.prompts, method


def test_without_a_margin_every_passage_is_read(decoder):
    result = decoder.generate(FRANCE["question"], [FRANCE["document"], DISTRACTOR], max_new_tokens=4,
                              relevance_margin=None)
    assert not result.irrelevant_documents and DISTRACTOR in result.prompts.full


def test_scores_and_ids_follow_their_documents_and_trust_reads_every_score(decoder):
    docs = [{"text": DISTRACTOR, "id": "weather", "score": 0.9}, {"text": FRANCE["document"], "id": "fr", "score": 0.4}]
    result = decoder.generate(FRANCE["question"], docs, max_new_tokens=4)
    assert [(d.id, d.score) for d in result.documents] == [("fr", 0.4)]
    assert [d.id for d in result.irrelevant_documents] == ["weather"]
    everything = decoder.generate(FRANCE["question"], docs, max_new_tokens=4, relevance_margin=None)
    assert result.trust == everything.trust, "trust judges the retrieval as it came, before any passage is left out"


def test_batched_equals_one_by_one_with_the_filter(decoder):
    requests = [{"question": c["question"], "documents": [DISTRACTOR, c["document"]]} for c in CASES[:3]]
    cfg = DecodingConfig(max_new_tokens=10)
    batched = decoder.generate_batch(requests, cfg)
    for request, got in zip(requests, batched):
        one = decoder.generate(request["question"], request["documents"], config=cfg)
        assert got.token_ids == one.token_ids and got.irrelevant_documents == one.irrelevant_documents


def test_scoring_many_questions_in_packed_passes_equals_scoring_each_alone(decoder):
    """Every passage of every request in one call (packs of similar lengths sharing the template's head)
    gives each question's scores as scoring it alone does; ``plan`` scores a batch so, and refuses a bad request in
    its place."""
    requests = [(c["question"], [Document(text=DISTRACTOR), Document(text=c["document"], title="Note")]) for c in CASES]
    together = question_likelihoods(decoder.model, decoder.tokenizer, requests, decoder.pad_id)
    for (question, docs), scores in zip(requests, together):
        alone = question_likelihood(decoder.model, decoder.tokenizer, question, docs, decoder.pad_id)
        assert scores == pytest.approx(alone, abs=1e-4)
    decoder.clear_cache()
    cfg = DecodingConfig(max_new_tokens=4)
    planned = decoder.plan([{"question": c["question"], "documents": [DISTRACTOR, c["document"]]} for c in CASES]
                           + [{"question": "bad", "documents": "not a list"}], cfg, get_method(cfg.method),
                           raise_errors=False)
    assert isinstance(planned[-1], InputError) and "must be a list" in str(planned[-1])  # refused in its place
    assert [[d.text for d in r.documents] for r in planned[:-1]] == [[c["document"]] for c in CASES]
    kept = [decoder.generate(c["question"], [DISTRACTOR, c["document"]], config=cfg).documents for c in CASES]
    assert [[d.text for d in docs] for docs in kept] == [[c["document"]] for c in CASES]


def test_a_question_prepare_refuses_is_refused_the_same_in_a_batch_that_scores_relevance(decoder):
    broken = b"Where is caf\xe9?".decode("utf-8", "surrogateescape")  # a lone surrogate: not encodable text
    with pytest.raises(InputError) as alone:
        decoder.generate(broken, [DISTRACTOR, FRANCE["document"]], max_new_tokens=2)
    with pytest.raises(InputError) as batched:
        decoder.generate_batch([{"question": FRANCE["question"], "documents": [DISTRACTOR, FRANCE["document"]]},
                                {"question": broken, "documents": [DISTRACTOR, FRANCE["document"]]}], max_new_tokens=2)
    assert str(batched.value) == str(alone.value)


def test_scoring_passes_are_bounded_in_tokens_and_logits():
    rows = [list(range(100))] * 50
    pairs = [(r[:-5], r[-5:]) for r in rows]
    chunks = list(_bounded(list(range(50)), rows, pairs, mb_per_position=0.01))
    assert [i for c in chunks for i in c] == list(range(50))
    assert all(len(c) * 100 <= PACK_TOKENS for c in chunks)
    huge_vocabulary = list(_bounded(list(range(50)), rows, pairs, mb_per_position=PACK_LOGITS_MB / 6))
    assert [len(c) for c in huge_vocabulary] == [1] * 50, "six kept positions of such logits fill a pass"


def test_a_negative_margin_is_refused_with_its_meaning():
    with pytest.raises(ConfigError, match="relevance_margin"):
        DecodingConfig(relevance_margin=-1.0)


def test_ask_reports_the_left_out_passages_and_all_documents_reads_them(capsys):
    base = ["ask", FRANCE["question"], "--doc", FRANCE["document"], "--doc", DISTRACTOR, "--trace",
            "--max-new-tokens", "4"]
    assert main(base) == 0
    assert "left out as irrelevant: 1 of 2 passages" in capsys.readouterr().out
    assert main([*base, "--all-documents"]) == 0
    assert "left out as irrelevant: 0 of 2 passages" in capsys.readouterr().out


def test_eval_runs_relevant_variants_and_refuses_unknown_options(tmp_path, capsys):
    out = tmp_path / "eval"
    args = ["eval", "--data", str(FIXTURES / "nq_swap_6.jsonl"), "--methods", "standard,standard+relevant+extractive",
            "--distractors", "1", "--limit", "2", "--no-tune", "--no-latency", "--max-new-tokens", "6",
            "--out", str(out)]
    assert main(args) == 0
    methods = json.loads((out / "report.json").read_text())["datasets"]["nq_swap_6+1distractors"]["methods"]
    assert methods["standard"]["params"] == {}, "the published methods read every passage"
    assert methods["standard+relevant+extractive"]["params"] == {"relevance_margin": MARGIN, "extractive": True}
    capsys.readouterr()
    assert main(["eval", "--data", str(FIXTURES / "nq_swap_6.jsonl"), "--methods", "cad+relevent",
                 "--out", str(tmp_path / "bad")]) == 2
    assert "+relevant" in capsys.readouterr().err
