"""Public data types: what goes into the decoder and what comes out of it."""

from __future__ import annotations

import math
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_serializer, field_validator


class Document(BaseModel):
    """One retrieved passage. ``score`` is the retriever's relevance on the trust scale
    (see :mod:`grounded_rag.trust`); it may also be passed separately to ``generate``.

    ``trusted`` declares a passage the caller wrote or vouches for (their own instruction, policy or notes), not
    retrieved text. Retrieved text is untrusted input: the default method does not let an instruction inside it
    dictate the answer. A request whose documents are *all* trusted is followed even where it dictates the answer
    against the model's habits (docs/method-note.md, "Trusted documents and MemoTrap"); one retrieved passage beside them keeps the guards on.
    """

    model_config = ConfigDict(frozen=True)

    text: str
    title: str | None = None
    id: str | None = None
    score: float | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    trusted: bool = Field(False, strict=True,
                          description="the caller wrote or vouches for this passage (not retrieved text)")

    @field_validator("text")
    @classmethod
    def _text_not_empty(cls, value: str) -> str:
        if not value or not value.strip():
            raise ValueError("document text is empty; drop empty passages before decoding")
        return value


def json_number(value: float | None) -> float | str | None:
    """A number as JSON can carry it: rho is inf where rho_max is (the reference stream followed), and JSON has no
    inf, so it travels as "inf" (which pydantic and ``float()`` read back)."""
    return value if value is None or math.isfinite(value) else str(value)


class TraceStep(BaseModel):
    """One decoded token and the quantities the paper's token-level table reports."""

    token_id: int
    token: str
    conflict: float | None = Field(None, description="c_t = JS(p_full, p_ref) / log 2")
    rho: float = 0.0
    eta: float = 0.0
    p_full: float
    p_ref: float | None = Field(None, description="p_ret(y_t), or the method's reference stream")
    q: float = Field(description="probability of y_t under the fused distribution (before sampling transforms)")

    @field_serializer("conflict", "rho", "eta", "p_full", "p_ref", "q", when_used="json")
    def _json(self, value: float | None) -> float | str | None:
        return json_number(value)


class Prompts(BaseModel):
    full: str
    reference: str | None = None
    reference_kind: Literal["retrieval", "query", "none"] = "retrieval"
    references: list[str] = Field(default_factory=list, description="every reference prompt, in stream order")
    reference_kinds: list[str] = Field(default_factory=list)
    shared_prefix_tokens: int = 0


class Citation(BaseModel):
    """One span of the answer and the passage that supports it, computed by the decoder (``kind`` "copy": the
    passage spells the span word for word; "evidence": reading the passage raised the span's tokens, though it
    does not spell them) or written by the model ("model": a "[k]" or "Doc k" in the answer text); or, ``kind``
    "conflict", a passage that answers otherwise (:class:`Conflict`), with the span its own answer rests on."""

    model_config = ConfigDict(frozen=True)

    answer_start: int = Field(description="the span's first character in the answer text")
    answer_end: int = Field(description="one past the span's last character in the answer text")
    document: int = Field(description="the passage's 1-based number in the caller's list (its 'Doc k')")
    document_id: str | None = None
    title: str | None = None
    source: str | None = Field(None, description="the passage's metadata source (file, URL), where it has one")
    start: int | None = Field(None, description="the supporting span's first character in the passage text")
    end: int | None = Field(None, description="one past the supporting span's last character in the passage text")
    quote: str = Field("", description="the passage's text at [start, end): what the answer span rests on")
    kind: Literal["copy", "evidence", "model", "conflict"] = "copy"
    evidence: float | None = Field(
        None, description="mean log-probability gain of the span's tokens from reading this passage alone, in nats")


class WithheldText(BaseModel):
    """A sentence of a passage (or its title) withheld because it addresses the model rather than stating a fact
    (DecodingConfig.screen_instructions; grounded_rag.screening)."""

    document: int = Field(description="the passage's 1-based number in the caller's list (its 'Doc k')")
    field: Literal["text", "title"] = "text"
    text: str = Field(description="the withheld sentence as the passage wrote it")
    rule: str = Field(description="what it was taken for: markup, turn, reader, order, answer, foreign, disguise, "
                      "learned (the classifier of grounded_rag.learned_screen), or paragraph (it shares a paragraph "
                      "with one of those)")


class Conflict(BaseModel):
    """A kept passage that, asked the question alone, gives another answer than the one shown (grounded_rag.conflicts):
    the documents disagree, and a reader should look at both."""

    model_config = ConfigDict(frozen=True)

    document: int = Field(description="the passage's 1-based number in the caller's list (its 'Doc k')")
    document_id: str | None = None
    answer: str = Field(description="what the passage says, asked the question alone")
    quote: str = Field("", description="the passage's words that answer rests on")
    support: float = Field(description="that answer's support (0-1), read from this passage alone")


SecondLook = Literal["insist", "quote"]
SHOWN_AS: dict[str, str] = {"insist": "insisted", "quote": "quoted"}  # the field marking an answer a look found


NO_DOCUMENTS_ANSWER = "No documents were retrieved for this question, so no grounded answer can be given."


def no_documents_metadata() -> dict[str, Any]:
    """:meth:`GenerationResult.metadata`'s keys for a pipeline that retrieved nothing and so decoded nothing (the
    wrappers answer :data:`NO_DOCUMENTS_ANSWER` rather than an ungrounded guess), so code that reads the metadata
    reads it the same way either way; ``fallback`` says why."""
    return {"trust": 0.0, "trust_source": None, "method": None, "finish_reason": None, "citations": [],
            "cited_documents": [], "cited_document_ids": [], "support": None, "abstained": False,
            "unsupported_answer": None, "quoted": False, "insisted": False, "second_looks": [], "trace_summary": None,
            "dropped_documents": 0, "irrelevant_documents": 0, "withheld": [], "document_numbers": [],
            "conflict": False, "conflicts": [],
            "fallback": "no documents retrieved: answer not grounded"}


class GenerationResult(BaseModel):
    """Everything one ``generate`` call produced, so users can audit the grounding."""

    text: str
    token_ids: list[int]
    trace: list[TraceStep]
    trust: float
    trust_source: Literal["scores", "no scores: trust fixed to 1"]
    method: str
    finish_reason: Literal["eos", "stop", "length", "abstain"] = Field(
        description="'abstain': no passage supports an answer, and the text is DecodingConfig.abstention_text")
    prompts: Prompts
    prompt_tokens: int = Field(0, description="tokens of the full prompt (the question with the documents) decoded")
    documents: list[Document]
    dropped_documents: list[Document] = Field(default_factory=list, description="left out to fit the context window")
    irrelevant_documents: list[Document] = Field(
        default_factory=list, description="left out as not about the question (DecodingConfig.relevance_margin)"
    )
    withheld: list[WithheldText] = Field(
        default_factory=list,
        description="sentences of the passages withheld before decoding: they addressed the model (instructions, chat "
        "turns, control markup), so no stream read them")
    document_numbers: list[int] = Field(
        default_factory=list,
        description="each document's 1-based position in the caller's list: the 'Doc k' the prompt shows it as "
        "(1..n unless documents were left out); empty means 1..n",
    )
    citations: list[Citation] = Field(
        default_factory=list,
        description="each answer span and the passage span it rests on, left to right (grounded_rag.attribution)")
    support: float | None = Field(
        None, description="0-1: how much the best passage the answer rests on is about the question; 0.5 = no more "
        "than no passage; None when DecodingConfig.attribute is off")
    abstained: bool = Field(False, description="no passage supports an answer: the text says so instead")
    unsupported_answer: str | None = Field(
        None, description="the answer the decoder withheld by abstaining (None if it abstained before decoding), or "
        "replaced by a quote")
    quoted: bool = Field(False, description="the free answer rested on no passage about the question, and this text is "
                         "a verbatim span of a passage that does (DecodingConfig.quote_threshold)")
    insisted: bool = Field(False, description="the free answer rested on no passage about the question, and this text "
                           "was decoded again taking the passages at their word (DecodingConfig.insist_beta)")
    second_looks: list[SecondLook] = Field(
        default_factory=list, description="the second looks that decoded the withheld answer again, in order "
        "('insist': DecodingConfig.insist_beta, 'quote': quote_threshold), whether or not one found an answer to show")
    conflicts: list[Conflict] = Field(
        default_factory=list, description="kept passages that, asked alone, answer otherwise: the documents disagree "
        "(DecodingConfig.check_conflicts); each is also cited, and the support is shared with their answers")

    @property
    def conflict(self) -> bool:
        """The kept passages disagree about the answer (:attr:`conflicts`)."""
        return bool(self.conflicts)

    @property
    def numbers(self) -> list[int]:
        """Each document's caller-side number ('Doc k')."""
        return self.document_numbers or list(range(1, len(self.documents) + 1))

    @property
    def cited_documents(self) -> list[Document]:
        """The documents the answer cites, in order of first citation."""
        cited = list(dict.fromkeys(c.document for c in self.citations))
        return [self.documents[self.numbers.index(k)] for k in cited if k in self.numbers]

    def metadata(self) -> dict[str, Any]:
        """The result's grounding facts as plain data, for framework metadata fields."""
        return {
            "trust": self.trust,
            "trust_source": self.trust_source,
            "method": self.method,
            "finish_reason": self.finish_reason,
            "citations": [c.model_dump() for c in self.citations],
            "cited_documents": list(dict.fromkeys(c.document for c in self.citations)),
            "cited_document_ids": [d.id for d in self.cited_documents],
            "support": self.support,
            "abstained": self.abstained,
            "unsupported_answer": self.unsupported_answer,
            "quoted": self.quoted,
            "insisted": self.insisted,
            "second_looks": list(self.second_looks),
            "trace_summary": self.trace_summary(),
            "dropped_documents": len(self.dropped_documents),
            "irrelevant_documents": len(self.irrelevant_documents),
            "withheld": [w.model_dump() for w in self.withheld],
            "document_numbers": self.document_numbers,
            "conflict": self.conflict,
            "conflicts": [c.model_dump() for c in self.conflicts],
        }

    def _repr_html_(self) -> str:
        from .result_view import result_html  # noqa: PLC0415 - notebooks only

        return result_html(self)

    def trace_summary(self) -> dict[str, float | str | None]:
        """Means and maxima of the per-token grounding signals (for framework metadata, so JSON's numbers)."""
        if not self.trace:
            return {"tokens": 0}
        conflicts = [s.conflict for s in self.trace if s.conflict is not None]
        rhos = [s.rho for s in self.trace]
        etas = [s.eta for s in self.trace]
        out: dict[str, float] = {
            "tokens": len(self.trace),
            "mean_rho": sum(rhos) / len(rhos),
            "max_rho": max(rhos),
            "mean_eta": sum(etas) / len(etas),
            "max_eta": max(etas),
        }
        if conflicts:
            out["mean_conflict"] = sum(conflicts) / len(conflicts)
            out["max_conflict"] = max(conflicts)
        return {k: json_number(v) for k, v in out.items()}
