"""Citations and support from their ingredients: copy spans, per-passage evidence, question gains (no model)."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grounded_rag.attribution import EVIDENCE_NATS, Answer, cite, copy_spans, find_citations, model_citations, words
from grounded_rag.support import grounded_words, says_more_than, support, support_of
from grounded_rag.types import Document, GenerationResult, Prompts, no_documents_metadata

PASSAGES = ["Our Berlin office is at Kastanienallee 41, 10435 Berlin.", "The sales office is in Hamburg, at Speicherstadt 12."]


def answer(text: str, question: str = "Where is the Berlin office?", passages=PASSAGES, numbers=None) -> Answer:
    docs = [Document(text=p, id=f"d{i}", metadata={"source": f"f{i}.md"}) for i, p in enumerate(passages)]
    return Answer(question, docs, numbers or list(range(1, len(docs) + 1)), list(range(len(text.split()))), text)


def spans(text: str) -> list[tuple[int, int]]:
    """One token per whitespace-separated piece, with its character span."""
    out, at = [], 0
    for piece in text.split():
        at = text.index(piece, at)
        out.append((at, at + len(piece)))
        at += len(piece)
    return out


def test_words_keep_figures_whole():
    assert [w.norm for w in words("It costs 1,200 euros at 10:00, not 1.1 million.")] == \
        ["it", "costs", "1,200", "euros", "at", "10:00", "not", "1.1", "million"]


def test_a_copied_span_names_the_passage_and_its_characters():
    text = "The office is at Kastanienallee 41 in Berlin."
    found = copy_spans(text, PASSAGES)
    quoted = [(text[s.start:s.end], [PASSAGES[d][lo:hi] for d, lo, hi in s.sources]) for s in found]
    assert quoted[0] == ("office is at Kastanienallee 41", ["office is at Kastanienallee 41"]), "the longest run"
    assert quoted[1] == ("Berlin", ["Berlin", "Berlin"]), "every place that spells it"
    assert all(any(w.content for w in words(q)) for q, _ in quoted), "a span of stopwords only is no evidence"


def test_the_longest_run_wins_and_every_passage_that_spells_it_is_listed():
    found = copy_spans("the office", ["one office", "another office"])
    assert len(found) == 1 and sorted(d for d, _, _ in found[0].sources) == [0, 1]


def test_cite_picks_the_passage_whose_reading_raises_the_span_most():
    a = answer("Berlin office", passages=["Berlin office one.", "Berlin office two."])
    offsets = spans(a.text)
    weak, strong = [[0.1, 0.1], [3.0, 3.0]]
    [c] = cite(a, [weak, strong], offsets, [0.5, 0.5])
    assert c.document == 2 and c.kind == "copy" and c.quote == "Berlin office" and c.evidence == pytest.approx(3.0)
    [c] = cite(a, [strong, weak], offsets, [0.5, 0.5])
    assert c.document == 1


def test_a_word_the_passage_spells_twice_is_quoted_where_the_answer_read_it():
    """The answer follows one place of the passage: its next word is quoted from the place nearest its last quote."""
    passage = "Buddies help for the first three months. Your probation period lasts six months. Leave is paid."
    a = answer("The probation period is 6 months.", passages=[passage])
    cited = cite(a, [[0.0] * 6], spans(a.text), [1.0])
    assert [(a.text[c.answer_start:c.answer_end], c.start) for c in cited] == [
        ("probation period", passage.index("probation")), ("6 months", passage.index("six months"))]
    a = answer("Months, then probation.", passages=[passage])
    first = cite(a, [[0.0] * 3], spans(a.text), [1.0])[0]
    assert first.quote == "months" and first.start == passage.index("months"), "the first place, none before"
    a = answer("The probation period lasts months.", passages=[passage])
    months = cite(a, [[0.0] * 5], spans(a.text), [1.0])[-1]
    assert months.start == passage.index("months. Leave"), "after the last quote, the nearer place"


def test_words_no_passage_spells_are_cited_only_where_a_passage_raises_them():
    a = answer("Roughly forty staff", question="How many staff?")
    offsets = spans(a.text)
    raised = cite(a, [[EVIDENCE_NATS + 1] * 3, [0.0] * 3], offsets, [1.0, 1.0])
    assert [(c.kind, c.document, c.start, a.text[c.answer_start:c.answer_end]) for c in raised] == \
        [("evidence", 1, None, "Roughly forty staff")]
    assert cite(a, [[0.2] * 3, [0.0] * 3], offsets, [1.0, 1.0]) == [], "a faint raise is not a citation"


def test_citations_carry_the_caller_numbers_id_and_source():
    a = answer("Speicherstadt 12", passages=PASSAGES[1:], numbers=[7])
    [c] = cite(a, [[1.0, 1.0]], spans(a.text), [1.0])
    assert (c.document, c.document_id, c.source, c.quote) == (7, "d0", "f0.md", "Speicherstadt 12")


def test_model_written_marks_are_a_second_source():
    a = answer("Kastanienallee 41 [1], see Doc 2.")
    cited = find_citations(a.text, 2)
    assert cited == [1, 2]
    assert [(c.kind, c.document, a.text[c.answer_start:c.answer_end]) for c in model_citations(a, cited)] == \
        [("model", 1, "[1]"), ("model", 2, "Doc 2")]


def test_support_is_the_grounded_share_of_the_new_facts_times_the_passage_relevance():
    flat = [[0.0] * 6, [0.0] * 6]
    a = answer("It is at Kastanienallee 41.")
    assert support(a, flat, spans(a.text), [1.0, -1.0]) == pytest.approx(support_of(1.0), abs=1e-4)
    half = answer("It is at Kastanienallee 99.")  # one of its two figures and names is nowhere
    assert support(half, flat, spans(half.text), [1.0, -1.0]) == pytest.approx(0.5 * support_of(1.0), abs=1e-4)
    invented = answer("It has 77 staff.")
    assert support(invented, flat, spans(invented.text), [1.0, 1.0]) == 0.0


def test_a_raise_does_not_ground_a_word_another_passage_spells():
    """The answer is the unrelated passage's sentence: the relevant passage raised its words too (reading any
    passage does), but the answer rests on the passage that spells them, and so does its support."""
    passages = ["Staff connect through the Tunnelstone VPN client.", "The cafeteria serves lunch from noon to two."]
    a = answer("The cafeteria serves lunch from noon to two.", question="Which VPN client do we use?",
               passages=passages)
    raised = [[5.0] * 8, [9.0] * 8]  # both passages raise every word by more than EVIDENCE_NATS
    _, grounds = grounded_words(a, raised, spans(a.text))
    assert all(g == {1} for g in grounds.values())
    # its gain is the lunch passage's, not the VPN passage's, and its sentence speaks to none of the question's words
    assert support(a, raised, spans(a.text), [1.7, -1.0]) == 0.0
    weekly = answer("It is paid weekly.", question="How often are staff paid?", passages=["Pay comes every week."])
    assert grounded_words(weekly, [[2.0] * 4], spans(weekly.text))[1] == {0: {0}}, "a word none spells: its raise"
    assert grounded_words(weekly, [[0.5] * 4], spans(weekly.text))[1] == {0: set()}, "a faint raise grounds nothing"


def test_a_figure_in_words_spells_the_same_figure_in_digits():
    """ "Printer 20" spells the answer's "20" too, but the passage about leave says it: "twenty days"."""
    passages = ["Staff get twenty days of paid leave a year.", "Printer 20 is on the second floor."]
    a = answer("The answer is 20 days.", question="How many days of leave do staff get?", passages=passages)
    offsets, flat = spans(a.text), [[0.0] * 5, [0.0] * 5]
    judged, grounds = grounded_words(a, flat, offsets)
    assert [w.norm for w in judged] == ["20"] and grounds == {0: {0, 1}}
    assert support(a, flat, offsets, [2.3, -0.5]) == pytest.approx(support_of(2.3), abs=1e-4)
    [c] = cite(a, flat, offsets, [2.3, -0.5])
    assert (c.document, c.quote, a.text[c.answer_start:c.answer_end]) == (1, "twenty days", "20 days")
    six = answer("It is 6 months.", question="How long is probation?",
                 passages=["Probation lasts six months.", "Rent is due in 6 months."])
    [c] = cite(six, [[0.0] * 4, [0.0] * 4], spans(six.text), [3.2, 0.7])
    assert (c.document, c.quote) == (1, "six months"), "of places as long and barely raised: the one about the question"
    [c] = cite(six, [[0.0] * 4, [0.0, 0.0, 2.0, 2.0]], spans(six.text), [3.2, 0.7])
    assert c.document == 2, "a passage whose reading raises the figure is the one cited"
    alone = answer("Six.", question="How many months?", passages=["It lasts 6 months."])
    assert grounded_words(alone, [[0.0]], spans(alone.text)) == ([words("Six.")[0]], {0: set()}), \
        "a figure alone is not spelt by its other spelling: nothing says which"


def test_a_figure_in_other_spelling_needs_a_content_word_beside_it_and_a_compound_is_no_figure_of_its_parts():
    passage = "The warranty lasts thirty-six months. The Senate is one of the two chambers."
    six = answer("The warranty lasts 6 months.", question="How long is the warranty?", passages=[passage])
    assert grounded_words(six, [[0.0] * 5], spans(six.text))[1] == {0: set()}, "the six of thirty-six is not 6"
    one = answer("It is Article 1 of the Constitution.", question="Where?", passages=[passage])
    assert [one.text[c.answer_start:c.answer_end] for c in cite(one, [[0.0] * 7], spans(one.text), [1.0])] == [], \
        "'one of the' beside stopwords only does not spell '1 of the'"
    assert [w.key for w in words("twenty four hours, twenty-four, twenty hours")] == \
        ["twenty", "four", "hours", "twenty", "four", "20", "hours"]


def test_one_as_a_pronoun_is_no_new_fact():
    a = answer("The Eiffel Tower is one of the most famous landmarks in Paris.", question="What is the Eiffel Tower?",
               passages=["The Eiffel Tower is a lattice tower in Paris, France."])
    assert [w.norm for w in grounded_words(a, [[0.0] * 12], spans(a.text))[0]] == ["paris"]


def test_a_count_in_words_does_not_spell_a_date():
    """ "one of two Steve Miller Band songs" does not spell the "2" of an invented release date."""
    a = answer("December 2, 1974", question="when did the song the joker come out",
               passages=["It is one of two Steve Miller Band songs. The song topped the Hot 100 in early 1974."])
    judged, grounds = grounded_words(a, [[0.0] * 3], spans(a.text))
    assert [w.norm for w in judged] == ["december", "2", "1974"] and grounds == {0: set(), 1: set(), 2: {0}}
    assert [a.text[c.answer_start:c.answer_end] for c in cite(a, [[0.0] * 3], spans(a.text), [1.0])] == ["1974"]


def test_words_the_question_says_are_not_new_facts():
    a = answer("It is at Kastanienallee 41 for the Berlin office.", question="Where is the Berlin office?")
    judged, _ = grounded_words(a, [[0.0] * 9, [0.0] * 9], spans(a.text))
    assert [w.norm for w in judged] == ["kastanienallee", "41"], "only what the answer adds is judged"
    clara = answer("Santa Clara Diet", question="who plays in santa clarita diet")
    assert [w.norm for w in grounded_words(clara, [[0.0] * 3, [0.0] * 3], spans(clara.text))[0]] == \
        ["santa", "clara", "diet"], "a misspelt question is restated, so judged on its content words"
    bill = answer("The two-dollar bill stopped in 1966.", question="when were 2 dollar bills stopped being made")
    assert [w.norm for w in grounded_words(bill, [[0.0] * 6] * 2, spans(bill.text))[0]] == ["1966"], \
        "the question's figure in other spelling is no new fact"


def test_an_answer_that_only_restates_the_question_rests_on_the_passages_that_spell_it():
    a = answer("The Berlin office", question="Where is the Berlin office?")
    assert support(a, [[0.0] * 3, [0.0] * 3], spans(a.text), [1.0, -1.0]) == pytest.approx(support_of(1.0), abs=1e-4)


def test_a_last_word_cut_off_by_the_token_limit_is_not_judged():
    flat = [[0.0] * 6, [0.0] * 6]
    cut = answer("It is at Kastanienallee 41, 104")  # "10435" cut by max_new_tokens
    assert support(cut, flat, spans(cut.text), [1.0, -1.0]) == pytest.approx(2 / 3 * support_of(1.0), abs=1e-4)
    cut.cut = True
    assert support(cut, flat, spans(cut.text), [1.0, -1.0]) == pytest.approx(support_of(1.0), abs=1e-4)
    ended = answer("It is at Kastanienallee 41, 104.")  # a finished word is judged, whatever stopped the decode
    ended.cut = True
    assert support(ended, flat, spans(ended.text), [1.0, -1.0]) == pytest.approx(2 / 3 * support_of(1.0), abs=1e-4)


def test_an_answer_without_new_content_is_judged_by_the_evidence_for_all_of_it():
    a = answer("Yes.", question="Is the Berlin office open?")
    assert support(a, [[EVIDENCE_NATS * 2], [0.0]], [(0, 4)], [1.0, 3.0]) == pytest.approx(support_of(1.0), abs=1e-4)
    assert support(a, [[0.0], [0.0]], [(0, 4)], [1.0, 3.0]) == 0.0


@settings(max_examples=200, deadline=None)
@given(st.floats(-20, 20), st.floats(-20, 20))
def test_support_scale_is_monotone_and_bounded(x, y):
    assert 0.0 <= support_of(x) <= 1.0 and math.isclose(support_of(0.0), 0.5)
    if x < y:
        assert support_of(x) <= support_of(y)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=60), st.lists(st.text(max_size=80), min_size=1, max_size=3))
def test_copy_spans_point_at_equal_words_on_both_sides(text, passages):
    for span in copy_spans(text, passages):
        said = [w.norm for w in words(text[span.start:span.end])]
        for d, lo, hi in span.sources:
            assert [w.norm for w in words(passages[d][lo:hi])] == said


@pytest.mark.parametrize("question, quote, tells", [
    ("Which planet is known as the Red Planet?", "The Red Planet", False),  # restates the question
    ("When were the Vikings last in the NFC championship?", "The Vikings were", False),
    ("Who did Cora marry?", "Cora", False),
    ("Who painted The Starry Night?", "The Starry Night is an oil painting by Paul Gauguin", True),
    ("When did they stop putting lead in paint?", "1992", True),
    ("How many planets are there?", "The Solar System has ten planets", True),
])
def test_a_quote_tells_something_only_with_a_word_the_question_does_not_say(question, quote, tells):
    assert says_more_than(question, quote) is tells


def test_a_word_the_token_limit_cut_off_tells_nothing():
    assert says_more_than("Which planet is known as the Red Planet?", "The Red Planet is Ve")
    assert not says_more_than("Which planet is known as the Red Planet?", "The Red Planet is Ve", cut=True)


def test_a_pipeline_that_retrieved_nothing_reports_every_metadata_key():
    """The wrappers answer NO_DOCUMENTS_ANSWER where nothing was retrieved; code reading a result's metadata reads
    that answer's metadata the same way (every key of :meth:`GenerationResult.metadata`)."""
    result = GenerationResult(text="x", token_ids=[1], trace=[], trust=1.0, trust_source="scores", method="standard",
                              finish_reason="eos", prompts=Prompts(full="p"), documents=[Document(text="a")])
    empty = no_documents_metadata()
    assert result.metadata().keys() <= empty.keys() and empty["trust"] == 0.0 and empty["citations"] == []


def test_ask_says_which_second_looks_ran_on_an_answer_that_stays_withheld():
    """``ask``'s note reads the result's own record of the looks that ran (GenerationResult.second_looks), so it
    says nothing where none ran (a method without --insist's rule, an extractive answer) and names both where both
    did."""
    from grounded_rag.display import second_looks_note

    base = dict(token_ids=[], trace=[], trust=1.0, trust_source="scores", method="grounded_contrast",
                prompts=Prompts(full="p"), documents=[Document(text="a")])
    withheld = GenerationResult(text="The documents do not say.", finish_reason="abstain", abstained=True,
                                unsupported_answer="Mars", second_looks=["insist", "quote"], **base)
    assert second_looks_note(withheld) == "(--insist and --quote: tried, nothing to show; the answer stays withheld)"
    assert second_looks_note(withheld.model_copy(update={"second_looks": []})) is None
    shown = withheld.model_copy(update={"abstained": False, "quoted": True, "text": "Mars"})
    assert second_looks_note(shown) is None and shown.metadata()["second_looks"] == ["insist", "quote"]
