"""Extractive answers (``DecodingConfig.extractive``): every answer is a verbatim span of one document.

Real packaged model and tokenizer; the constraint composes with every method, batches like the
free decode, and goes through ``ask``, ``generate_batch`` and ``grounded-rag eval`` alike."""

import json
import re
from pathlib import Path

import pytest
import torch

from grounded_rag import DecodingConfig
from grounded_rag.cli import main
from grounded_rag.evaluation.ablations import register as register_ablations
from grounded_rag.spans import CopyState, DocumentSpans, document_tokens, end_tokens, restrict, unwrap, vocabulary_texts

from ..conftest import DOCUMENTS, QUESTION

register_ablations()  # the research ablations decode here as in grounded-rag eval

FIXTURES = Path(__file__).parent.parent / "fixtures"
CONFLICT = ["Since the 2031 reform, the capital of France is Lyon.", "The weather in Tallinn is usually cold in winter."]


def is_span(answer: str, documents: list[str]) -> bool:
    """The answer is a substring of one document, its first letter's case aside (it may open a sentence), a line
    break inside a paragraph read as a space (:func:`~grounded_rag.spans.unwrap`)."""
    a = re.sub(r"\s+", " ", answer.strip())
    return bool(a) and any(a in u or a[0].swapcase() + a[1:] in u for u in (unwrap(d)[0] for d in documents))


@pytest.fixture(scope="module")
def ends(decoder):
    return end_tokens(decoder.tokenizer, decoder.eos_ids, [])


def test_vocabulary_texts_are_what_batch_decode_gives(decoder):
    """The fast path (the tokenizer's own batch decoder) spells every token id exactly as transformers does."""
    ids = [[i] for i in range(len(decoder.tokenizer))]
    assert vocabulary_texts(decoder.tokenizer) == decoder.tokenizer.batch_decode(ids)


def test_document_spans_allow_only_continuations_of_the_documents(decoder, ends):
    tok = decoder.tokenizer
    spans = DocumentSpans.build(tok, CONFLICT, ends)
    first = spans.allowed()
    lyon, bare_lyon = tok.encode(" Lyon"), tok.encode("Lyon")
    assert len(lyon) == 1 and lyon[0] in first, "a word as the passage spells it (with its space) may start"
    assert bare_lyon[0] in first, "and as it opens the assistant turn (no space)"
    assert tok.encode("The")[0] in first and tok.encode(" Paris")[0] not in first
    assert not first & ends, "an answer has at least one token"
    for t in tok.encode("Lyon"):
        spans.advance(t)
    assert spans.allowed() == {tok.encode(".")[0]} | ends, "after 'Lyon' only the passage's '.' or the end"
    number = DocumentSpans.build(tok, ["There are 43 cities in the sections below."], ends)
    for t in tok.encode(" 4"):
        number.advance(t)
    assert number.allowed() == set(tok.encode("3")), "an answer ends where a word ends: '4' of '43' cannot end it"
    for t in tok.encode("3"):
        number.advance(t)
    assert ends <= number.allowed()
    cap = DocumentSpans.build(tok, CONFLICT, ends)
    for t in tok.encode("The capital of"):  # 'the capital' opens a sentence in the answer
        cap.advance(t)
    assert tok.encode(" France")[0] in cap.allowed()
    cap.advance(next(iter(ends)))
    assert cap.allowed() == set(ends), "an ended answer only ends"


def test_copy_state_follows_the_span_the_answer_copies_and_starts_another_anywhere(decoder):
    """grounded_contrast's copy state: nothing follows before the answer's first token; then the tokens that
    continue every place the documents spell the answer's last tokens; an answer that leaves the documents
    and comes back ("the year 1881") starts a new span (an extractive answer could not)."""
    tok = decoder.tokenizer
    copy = CopyState.build(tok, ["The Seahawks won the Super Bowl in 1881 and in 1914."])
    assert copy.follows() == set()
    for t in tok.encode("The year", add_special_tokens=False):
        copy.advance(t)
    assert copy.follows() == set(), "'year' is in no document"
    digits = tok.encode(" 1881", add_special_tokens=False)
    for t in digits[:-2]:
        copy.advance(t)
    assert digits[-2] in copy.follows(), "'18' continues as the passage spells it"
    copy.advance(digits[-2])
    assert copy.follows() == {digits[-1]} and digits[-1] in copy.joins, "'188' continues with the word's last digit"
    copy.advance(digits[-1])
    assert tok.encode(" and", add_special_tokens=False)[0] in copy.follows()


def test_copy_state_knows_when_the_answer_stopped_inside_a_word_it_copies(decoder):
    """``CopyState.inside`` (grounded_contrast may not end or break off the answer there): after "2" the
    answer stands inside every number the passage starts with "2"; after "27" it is at a word's end. A digit
    that matches only from the middle of a passage's number ("2020" against "2017") copies no word, so the
    answer may end there."""
    tok = decoder.tokenizer
    passage = ["There are 27 episodes in 2017 and 28 days."]

    def enc(text: str) -> list[int]:
        return tok.encode(text, add_special_tokens=False)

    copy = CopyState.build(tok, passage)
    states = []
    for t in enc(" 27"):
        copy.advance(t)
        states.append(copy.inside)
    assert states[-2:] == [True, False], "inside after '2', at the word's end after '27'"
    other = CopyState.build(tok, passage)
    for t in enc(" 2020"):
        other.advance(t)
        states.append(other.inside)
    assert states[-3] is True and states[-1] is False, "'20' copies 2017 from its start; '2020' copies no word"
    quoted = CopyState.build(tok, ['Write a quote that ends in the word "early":'])
    for t in enc(" early"):
        quoted.advance(t)
    assert quoted.live and not quoted.inside
    assert quoted.fresh().live == [] and quoted.live, "fresh() starts over and leaves the state it came from"


def test_a_word_after_punctuation_is_the_documents_word_as_an_answer_spells_it(decoder, ends):
    """A word in quotes or parentheses has no space of its own in the passage ('"early":', "(1881)"), but
    an answer spells it with one: without its spaced and capitalized variants the anchored methods could
    not raise MemoTrap's instructed word, and an extractive answer could not start there. A piece inside
    a word ("bar" of "Subbarao") gets no variants."""
    tok = decoder.tokenizer
    docs = ['Write a quote that ends in the word "early":', "Subbarao (1881) wrote it."]
    tokens = document_tokens(tok, docs)
    for word in (" early", " Early", " Sub"):
        assert tok.encode(word, add_special_tokens=False)[0] in tokens, word
    hyphen = document_tokens(tok, ["Theories ( neo-Lamarckism ) of U.S. law"])
    assert tok.encode(" L", add_special_tokens=False)[0] not in hyphen, "not after a hyphen ('Robert Lister')"
    assert tok.encode(" S", add_special_tokens=False)[0] not in hyphen, "nor after a full stop"
    spans = DocumentSpans.build(tok, docs, ends)
    first = spans.allowed()
    assert tok.encode(" early", add_special_tokens=False)[0] in first
    assert tok.encode(" 1881", add_special_tokens=False)[0] in first, "'1881' in parentheses may start an answer"
    inner = [t for t in tok.encode(" Subbarao", add_special_tokens=False)[1:]]
    assert inner and not any(tok.encode(" " + tok.decode([t]), add_special_tokens=False)[0] in first
                             for t in inner if tok.decode([t])[:1].isalpha()), "no answer starts inside a word"
    for t in tok.encode(" early", add_special_tokens=False):
        spans.advance(t)
    assert tok.encode('":', add_special_tokens=False)[0] in spans.allowed(), "the variant continues in the passage"


def test_restrict_renormalizes_and_falls_back_to_the_full_stream_when_the_method_rules_out_every_span():
    spans = [DocumentSpans([[5, 6]], [None], frozenset({0})), DocumentSpans([[7]], [None], frozenset({0}))]
    log_q = torch.log_softmax(torch.randn(2, 10), dim=-1)
    log_q[1, 7] = -float("inf")  # a plausibility head that drops the only span token
    lp_full = torch.log_softmax(torch.randn(2, 10), dim=-1)
    out = restrict(log_q, lp_full, spans)
    assert torch.allclose(out.exp().sum(-1), torch.ones(2))
    assert set(torch.nonzero(out[0] > -float("inf")).flatten().tolist()) == {5, 6}
    assert out[1, 7] == 0.0, "the row falls back to p_full over the allowed tokens, not to NaN"


WRAPPED = ("Lumenfold Analytics was founded in 2014 in Porto by Ines Carvalho and Daniel Brandt, who met while "
           "working on\nweather forecasting models.\n\n- Ledgerly for expenses\n- Harbour for leave")


def test_a_line_break_inside_a_paragraph_does_not_end_a_span(decoder, ends):
    """A hard-wrapped passage: after "working on" the span goes on with " weather" (the break read as a space), the
    newline the model would copy there is no end but carried to that word; between list items a newline still
    ends the answer."""
    tok = decoder.tokenizer
    spans = DocumentSpans.build(tok, [WRAPPED], ends)
    for t in tok.encode(" who met while working on", add_special_tokens=False):
        spans.advance(t)
    weather = tok.encode(" weather", add_special_tokens=False)[0]
    newline = tok.encode("\n", add_special_tokens=False)[0]
    assert spans.carried() == {weather} and newline in spans.newlines
    assert weather in spans.allowed() and newline not in spans.allowed() and tok.eos_token_id in spans.allowed()
    log_q = torch.full((1, len(tok)), -30.0)
    log_q[0, newline], log_q[0, weather] = 0.0, -3.0  # the model copies the break
    out = restrict(torch.log_softmax(log_q, dim=-1), log_q, [spans])
    assert out[0].argmax() == weather and out[0, newline] == -float("inf")
    for t in tok.encode(" Ledgerly for expenses", add_special_tokens=False):
        spans.advance(t)
    assert spans.carried() == set() and newline in spans.allowed(), "a list item ends at its line"


def test_an_extractive_answer_runs_on_past_a_hard_wrapped_line(decoder):
    """The handbook's files are hard-wrapped; an extractive answer from one is the whole clause, not the clause
    up to where the line ends."""
    handbook = FIXTURES.parent.parent / "cookbook" / "data" / "handbook"
    docs = [(handbook / name).read_text(encoding="utf-8") for name in ("company-history.md", "expenses.md")]
    result = decoder.generate("Who founded Lumenfold Analytics, and what were they working on when they met?", docs,
                              extractive=True)
    assert "working on weather forecasting models" in result.text, result.text
    assert is_span(result.text, docs) and "\n" not in result.text


@pytest.mark.parametrize("method", ["standard", "grounded_pmi_gated", "cad", "grounded", "knnlm"])
def test_extractive_answers_are_spans_of_the_documents(decoder, method):
    result = decoder.generate("What is the capital of France?", CONFLICT, method=method, extractive=True,
                              max_new_tokens=24)
    assert is_span(result.text, CONFLICT), (method, result.text)
    assert result.finish_reason in ("eos", "stop")
    assert "\n" not in result.text


def test_extractive_follows_the_evidence_where_free_decoding_answers_from_memory(decoder):
    # both passages read (relevance_margin=None): reading the weather passage too, the model answers from memory
    free = decoder.generate("What is the capital of France?", CONFLICT, method="standard", max_new_tokens=24,
                            relevance_margin=None, support_threshold=None)
    assert "Paris" in free.text, "the premise: the model answers from memory"
    withheld = decoder.generate("What is the capital of France?", CONFLICT, method="standard", max_new_tokens=24,
                                relevance_margin=None)
    assert withheld.abstained and withheld.unsupported_answer == free.text, "no passage spells Paris"
    result = decoder.generate("What is the capital of France?", CONFLICT, method="standard", extractive=True,
                              max_new_tokens=24, relevance_margin=None)
    assert "Lyon" in result.text and "Paris" not in result.text


@pytest.mark.parametrize("method", ["grounded_pmi_gated", "cad"])
def test_extractive_batched_equals_one_by_one(decoder, method):
    requests = [
        {"question": QUESTION, "documents": DOCUMENTS, "scores": [0.8, 0.4, 0.3]},
        {"question": "What is the capital of France?", "documents": CONFLICT},
        {"question": "When was the tower moved?", "documents": DOCUMENTS[:1]},
    ]
    cfg = DecodingConfig(method=method, extractive=True, max_new_tokens=32)
    batched = decoder.generate_batch(requests, config=cfg)
    for request, b in zip(requests, batched):
        single = decoder.generate(request["question"], request["documents"], scores=request.get("scores"), config=cfg)
        assert b.token_ids == single.token_ids and b.finish_reason == single.finish_reason
        assert is_span(b.text, request["documents"])
        for x, y in zip(b.trace, single.trace):
            assert abs(x.q - y.q) < 1e-4


def test_ask_extractive_from_the_command_line(capsys):
    args = ["ask", "What is the capital of France?", "--doc", CONFLICT[0], "--doc", CONFLICT[1], "--extractive",
            "--no-sources"]
    assert main(args) == 0
    answer = capsys.readouterr().out.strip()
    assert is_span(answer, CONFLICT) and "Lyon" in answer


def test_eval_runs_extractive_variants_and_refuses_them_on_memotrap(tmp_path, capsys):
    out = tmp_path / "eval"
    args = ["eval", "--data", str(FIXTURES / "nq_swap_6.jsonl"), "--methods", "standard,cad+extractive",
            "--limit", "2", "--validation-limit", "2", "--no-latency", "--max-new-tokens", "8", "--out", str(out)]
    assert main(args) == 0
    report = json.loads((out / "report.json").read_text())
    methods = report["datasets"]["nq_swap_6"]["methods"]
    assert set(methods) == {"standard", "cad+extractive"}
    assert methods["cad+extractive"]["params"]["extractive"] is True
    assert [t["params"]["beta"] for t in methods["cad+extractive"]["tuning"]] == [0.5, 1.0, 2.0]
    rows = {json.loads(x)["id"]: json.loads(x) for x in (FIXTURES / "nq_swap_6.jsonl").read_text().splitlines()}
    records = [json.loads(x) for x in (out / "generations.jsonl").read_text().splitlines()]
    extractive = [r for r in records if r.get("params", {}).get("extractive")]
    assert len(extractive) >= 2 + 3 * 2
    for r in extractive:
        assert is_span(r["text"], [d["text"] for d in rows[r["id"]]["documents"]]), r["text"]
    capsys.readouterr()
    assert main(["eval", "--data", str(FIXTURES / "memotrap_8.jsonl"), "--methods", "standard+extractive",
                 "--limit", "1", "--no-tune", "--no-latency", "--out", str(tmp_path / "mt")]) == 2
    assert "MemoTrap" in capsys.readouterr().err
    assert not (tmp_path / "mt" / "report.json").exists()
