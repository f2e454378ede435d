"""Passages that disagree (grounded_rag.conflicts): which passages are asked alone, when their answers disagree, and
what the result then says. The decode itself is tested in tests/integration/test_conflicts.py."""

from grounded_rag.conflicts import candidates, common_ground, disagrees, facts, with_conflicts
from grounded_rag.types import Citation, Document, GenerationResult, Prompts

QUESTION = "Which VPN client do staff use?"
TRUE = Document(text="Staff connect to the office network with the Tunnelstone VPN client.", id="it")
FAQ = Document(text="Q: Which VPN client do staff use?\nA: BananaNet.", id="faq")
LUNCH = Document(text="The cafeteria serves lunch from noon.", id="lunch")


def result(text: str, documents: list[Document], support: float = 0.9, abstained: bool = False,
           citations: list[Citation] | None = None) -> GenerationResult:
    return GenerationResult(text=text, token_ids=[], trace=[], trust=1.0, trust_source="scores", method="standard",
                            finish_reason="abstain" if abstained else "stop", prompts=Prompts(full=""),
                            documents=documents, support=support, abstained=abstained, citations=citations or [])


def test_an_answers_facts_are_its_names_and_figures_the_question_does_not_say():
    assert facts(QUESTION, "Staff use BananaNet.") == {"banananet"}
    assert facts("How long is probation?", "It lasts six months.") == {"6"}, "a figure in words is its digits"
    assert facts(QUESTION, "They use a VPN client.") == set(), "the question's own words state nothing"


def test_only_passages_about_the_question_that_do_not_spell_all_the_answers_facts_are_asked():
    shown = result("Staff use BananaNet.", [FAQ, TRUE, LUNCH])
    assert candidates(QUESTION, shown, [5.0, 3.0, 0.2]) == [1], "the FAQ spells it; lunch is about something else"
    assert candidates(QUESTION, shown, [5.0, 1.0, 0.2]) == [], "a passage no likelier than the floor is not asked"
    assert candidates(QUESTION, result("Staff use BananaNet.", [FAQ]), [5.0]) == []
    assert candidates(QUESTION, result("x", [FAQ, TRUE], abstained=True), [5.0, 3.0]) == []


def test_a_supported_answer_with_other_facts_disagrees_and_a_weak_or_same_one_does_not():
    alone = result("The staff use the Tunnelstone VPN client.", [TRUE], support=0.95)
    assert disagrees(QUESTION, "Staff use BananaNet.", alone, 0.35)
    assert not disagrees(QUESTION, "Staff use BananaNet.", alone.model_copy(update={"support": 0.2}), 0.35)
    assert not disagrees(QUESTION, "BananaNet and Tunnelstone.", alone, 0.35), "a shared fact is no disagreement"
    assert not disagrees(QUESTION, "Staff use BananaNet.", result("A VPN client.", [TRUE]), 0.35)


def test_a_conflict_is_listed_cited_and_shares_the_support():
    shown = result("Staff use BananaNet.", [FAQ, TRUE], support=0.9)
    quote = Citation(answer_start=18, answer_end=29, document=1, start=48, end=59, quote="Tunnelstone", kind="copy")
    alone = result("The staff use the Tunnelstone VPN client.", [TRUE], support=0.9, citations=[quote])
    out = with_conflicts(shown, QUESTION, [(1, alone)])
    assert out.conflict and out.conflicts[0].document == 2 and out.conflicts[0].quote == "Tunnelstone"
    cited = [c for c in out.citations if c.kind == "conflict"]
    assert len(cited) == 1 and cited[0].document == 2 and out.text[cited[0].answer_start:cited[0].answer_end] == "BananaNet"
    assert out.support == 0.45, "two answers as well supported share it"
    assert out.metadata()["conflict"] and out.metadata()["conflicts"][0]["answer"] == alone.text
    assert with_conflicts(shown, QUESTION, []) is shown


def test_a_passage_spelling_some_of_the_answers_facts_is_asked_and_figures_decide_between_figures():
    question = "How often must staff change their network password?"
    policy = Document(text="Network passwords must be changed every 180 days.", id="policy")
    faq = Document(text="Q: How often must staff change their network password?\nA: Every 90 days.", id="faq")
    shown = result("Every 90 days.", [faq, policy])
    assert candidates(question, shown, [5.0, 4.0]) == [1], "the policy spells 'every', not the 90 of the answer"
    alone = result("Passwords are changed every 180 days.", [policy], support=0.9)
    assert disagrees(question, shown.text, alone, 0.25), "180 against 90"
    size = "What is the maximum attachment size?"
    assert disagrees(size, "The maximum is 100 MB.", result("It is 25 MB.", [policy], support=0.9), 0.25), \
        "a shared unit is not a shared fact"
    assert not disagrees(size, "Either 25 MB or 100 MB.", result("It is 25 MB.", [policy], support=0.9), 0.25)


def test_what_both_passages_spell_is_common_ground_not_a_shared_fact():
    """Both sides cite the standard they name ("[CS-12]"): its 12 is not the fact they share. An answer that says only
    what the answer says, or only common ground, is no disagreement."""
    question = "Which encryption algorithm must backups use?"
    standard = Document(text="The cryptography standard [CS-12] requires AES-256-GCM for all backups.", id="std")
    draft = Document(text="Per the cryptography standard [CS-12], backups use AES-128-CBC.", id="draft")
    shown = result("The standard [CS-12] requires AES-256-GCM.", [standard, draft])
    alone = result("Per [CS-12], backups use AES-128-CBC.", [draft], support=0.9)
    common = common_ground(shown, 1)
    assert {"12", "cs", "aes"} <= common and "128" not in common and "256" not in common
    assert not disagrees(question, shown.text, alone, 0.25), "without common ground, the 12 they share hides it"
    assert disagrees(question, shown.text, alone, 0.25, common)
    same = result("Per [CS-12], AES-256-GCM.", [draft], support=0.9)
    assert not disagrees(question, shown.text, same, 0.25, common)
    assert not disagrees(question, shown.text, result("[CS-12] applies.", [draft], support=0.9), 0.25, common)
