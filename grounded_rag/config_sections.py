"""The sections of a :class:`~grounded_rag.config.DecodingConfig`: sampling, the prompt, retrieval trust, which
passages are read, what an answer comes with (citations, support, abstention, second looks, conflicts), and each
method's own settings. Every section validates on construction and on assignment; no number is inf or NaN unless it
says so, none is a bool, and none overflows the decoder's fp32 arithmetic."""

from __future__ import annotations

import math
from typing import Any, Literal, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

DEFAULT_SYSTEM_PROMPT = "Use only provided documents.\nCite documents when needed."
TOP_K_LIMIT = 1_000_000  # more tokens than any vocabulary: a larger top_k is a mistake (10**30 was taken)
# Chosen on validation rows only (docs/citations.md has the table and the command behind it).
SUPPORT_THRESHOLD = 0.25
QUOTE_THRESHOLD = 0.8  # a withheld answer's extractive retry is shown from here: chosen on validation rows
INSIST_BETA = 1.0  # a withheld answer's second look at the trusted rule's weight; at 2 its answers garble (validation)
# a second look is shown from this support: on validation rows the lowest that answers no more unanswerable questions
# than withholding does (docs/citations.md)
INSIST_THRESHOLD = 0.8
MAX_SETTING = 1e6  # the largest size of a finite float setting (rho_max also takes inf)
TemplateName = Literal["paper", "documents_first"]


def _types(annotation: Any) -> set[Any]:
    """The types an annotation admits (``int | None`` -> {int, None}; ``Literal[...]`` -> {Literal})."""
    args = get_args(annotation)
    return {annotation} if not args or get_origin(annotation) is Literal else set().union(*map(_types, args))


def unicode_text(value: str, what: str) -> str:
    """``value`` unchanged if it can be encoded as UTF-8; lone surrogates (undecodable bytes read
    with ``surrogateescape``, e.g. a non-UTF-8 command-line argument) cannot be tokenized."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError(
            f"{what} holds characters that are not valid Unicode text ({value[exc.start:exc.end]!r} at position "
            f"{exc.start}, from bytes that are not UTF-8); decode the input as UTF-8 first, e.g. "
            "bytes.decode('utf-8', errors='replace')"
        ) from None
    return value


class Section(BaseModel):
    """What every section of the settings checks."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True, allow_inf_nan=False)

    @field_validator("*", mode="before")
    @classmethod
    def _no_bool_as_number(cls, value: Any, info: ValidationInfo) -> Any:
        """``max_new_tokens=True`` would be 1 token and ``rho_max=False`` 0.0: a bool is no count or weight."""
        if isinstance(value, bool) and bool not in _types(cls.model_fields[info.field_name].annotation):
            raise ValueError(f"is {value!r}, a bool; pass a number")
        return value

    @field_validator("*")
    @classmethod
    def _within_fp32(cls, value: Any) -> Any:
        """Settings are weights, scales and thresholds in the decoder's fp32 arithmetic: a finite one beyond
        :data:`MAX_SETTING` overflows there (inf and NaN logits) instead of meaning anything."""
        if isinstance(value, float) and math.isfinite(value) and abs(value) > MAX_SETTING:
            raise ValueError(f"must be at most {MAX_SETTING:g} in size: larger values overflow the decoder's fp32 "
                             "arithmetic")
        return value


class Sampling(Section):
    """How the token is drawn from the fused distribution, the same for every method; temperature 0 is greedy."""

    temperature: float = Field(0.0, ge=0, description="0 = greedy; else at least 0.001")
    top_k: int = Field(0, ge=0, le=TOP_K_LIMIT, description="0 disables top-k; at most a vocabulary's size")
    top_p: float = Field(1.0, gt=0, le=1, description="nucleus mass in (0, 1]")
    min_p: float = Field(0.0, ge=0, lt=1, description="min-p ratio in [0, 1); 0 disables")
    seed: int | None = Field(None, ge=0, le=2**63 - 1, description="sampling seed, a 63-bit whole number")

    @field_validator("temperature")
    @classmethod
    def _temperature(cls, value: float) -> float:
        if 0 < value < 1e-3:  # logits divided by it overflow: greedy is what such a temperature means
            raise ValueError("a positive temperature must be at least 0.001; use 0 for greedy decoding")
        return value


class Prompt(Section):
    """How every stream's prompt is laid out."""

    template: TemplateName = Field("documents_first", description="the prompt's layout: documents_first or paper")
    system_prompt: str = Field(DEFAULT_SYSTEM_PROMPT, description="the system turn of every stream")
    answer_prefix: str = Field(
        "", description="text every stream's assistant turn starts with (e.g. 'Answer:'); not part of the result")

    @field_validator("system_prompt", "answer_prefix")
    @classmethod
    def _is_text(cls, value: str, info: ValidationInfo) -> str:
        return unicode_text(value, info.field_name or "text")


class Trust(Section):
    """How much the retriever's scores say the documents deserve trust (grounded_rag.trust)."""

    tau_r: float = Field(1.0, gt=0, description="softmax temperature over retriever scores; > 0")
    gamma: float = Field(10.0, ge=0, description="slope of the trust sigmoid; >= 0")
    b: float = Field(0.5, description="trust bias: median top-document score on validation data")
    score_space: Literal["cosine", "raw"] = Field(
        "cosine", description="scale of the retriever scores: 'cosine' similarity in [-1, 1] (see normalize_scores), "
        "or 'raw' retriever scores (e.g. inner products) with b calibrated on validation data")


class Passages(Section):
    """Which of the retrieved passages are read, and as what."""

    # Chosen on NQ-Swap validation rows with two distractors: the relevant passage kept, most distractors dropped
    relevance_margin: float | None = Field(
        0.5, ge=0, description="leave out documents whose question likelihood is more than this many nats per "
        "question token below the best document's, unless they are about the question in their own right (see "
        "grounded_rag.relevance); None keeps every document")
    screen_instructions: bool = Field(
        True, description="withhold the sentences of retrieved passages (and titles) that address the model: "
        "instructions, chat turns, control markup, orders in disguise (grounded_rag.screening), with what they point "
        "at; GenerationResult.withheld lists them. The caller's own passages (Document.trusted) are read as written")
    screen_classifier: bool = Field(
        False, description="with screen_instructions, also withhold the sentences a learned classifier takes for "
        "words to the model, which the rules miss (grounded_rag.learned_screen). Opt-in: it catches more attacks and "
        "misreads more honest pages (docs/security.md); False screens by the rules alone and never loads MiniLM for "
        "it; screen_instructions=False reads passages as written, this classifier's part too")
    overflow: Literal["truncate", "error"] = Field(
        "truncate", description="prompt longer than the context window: drop lowest-score documents with a warning, "
        "or refuse")


class Answers(Section):
    """What an answer comes with: citations and support, abstention, second looks, and other passages' answers."""

    attribute: bool = Field(
        True, description="cite, for every span of the answer, the passage and the span of it that supports it, and "
        "score the answer's support (grounded_rag.attribution, grounded_rag.support: one scoring pass after "
        "decoding); False skips both, and abstention with them")
    support_threshold: float | None = Field(
        SUPPORT_THRESHOLD, ge=0, le=1, description="withhold an answer whose support (0-1, GenerationResult.support) "
        "is below this and answer abstention_text instead; a request none of whose passages can reach it is not "
        "decoded; None never abstains")
    abstention_text: str = Field(
        "The documents do not say.", description="what an abstaining answer says (GenerationResult.abstained); a "
        "non-empty string")
    quote_threshold: float | None = Field(
        None, ge=0, le=1, description="an answer withheld for its support is decoded again as a verbatim span of a "
        "passage (extractive) and that quote is shown where its support reaches this (and support_threshold). None "
        f"withholds; {QUOTE_THRESHOLD} was chosen on validation rows (docs/citations.md). GenerationResult.quoted marks "
        "it")
    insist_beta: float | None = Field(
        None, gt=0, description="an answer withheld for its support is decoded again taking its passages at their "
        "word (the trusted documents' rule at this weight: the question gate that guards against planted instructions "
        f"is off, screening stays) and shown where its support reaches {INSIST_THRESHOLD} (and support_threshold); "
        "before quote_threshold's quote. None withholds; opt-in, as it lifts a guard (docs/citations.md). "
        "GenerationResult.insisted marks it")
    check_conflicts: bool = Field(
        True, description="ask every other kept passage about the question the question alone (a short decode each) "
        "and list those that answer otherwise in GenerationResult.conflicts (grounded_rag.conflicts); needs attribute")

    @field_validator("abstention_text", mode="before")
    @classmethod
    def _abstention_is_text(cls, value: Any) -> str:
        if not isinstance(value, str) or not value.strip():
            raise ValueError("must be a non-empty string, e.g. 'The documents do not say.'")
        return unicode_text(value, "abstention_text")


class Grounded(Section):
    """The paper's method (``grounded``)."""

    rho_max: float = Field(4.0, ge=0, allow_inf_nan=True,
                           description="the paper's method (grounded): the largest weight of its second stream; >= 0")

    @field_validator("rho_max")
    @classmethod
    def _rho_not_nan(cls, value: float) -> float:
        if value != value:
            raise ValueError("rho_max is NaN; use a number >= 0 (float('inf') follows the reference stream)")
        return value


class Contrast(Section):
    """The default (``grounded_contrast``) and its research ablations: the evidence and question terms."""

    pmi_alpha: float = Field(4.0, ge=0, description="weight of the evidence term PMI(y; D | x)")
    pmi_beta: float = Field(1.0, ge=0, description="weight of the question term PMI(y; x | D)")
    # Chosen on NQ-Swap validation, clean and injected; on a tie the stronger gate, which resists planted instructions
    pmi_gate: float = Field(2.0, description="the evidence boost applies only where PMI(y; x | D) > pmi_gate (nats)")
    # Chosen on MemoTrap validation (its instruction declared the user's) and NQ-Swap validation, passage trusted
    trusted_beta: float = Field(
        2.0, ge=0, description="the contrast strength for a request whose documents are all trusted "
        "(Document.trusted): log q = log p_full + trusted_beta PMI(y; D | x), no question guards")
    plausibility: float = Field(0.1, ge=0, lt=1,
                                description="keep tokens with p_full >= plausibility * max p_full; 0 keeps all")


class CAD(Section):
    beta: float = Field(0.5, ge=0, description="CAD contrast strength")


class COIECD(Section):
    alpha: float = Field(1.0, ge=0, description="COIECD contrast strength alpha")
    epsilon: float = Field(1.0, gt=0, description="COIECD bound on |-log p(y|x,D) - H(p(.|x))|, in nats")


class CoCoA(Section):
    lambda_max: float = Field(2.0, ge=1, description="CoCoA largest context weight (1 = standard RAG)")
    renyi_alpha: float = Field(0.5, gt=0, lt=1, description="order of CoCoA's Renyi divergence, in (0, 1)")


class DoLa(Section):
    layers: Literal["low", "high"] = Field("high", description="DoLa premature-layer bucket")
    alpha: float = Field(0.1, gt=0, le=1, description="DoLa plausibility threshold (fraction of the top prob)")


class KNNLM(Section):
    k: int = Field(16, ge=1, description="kNN-LM neighbours")
    weight: float = Field(0.25, ge=0, le=1, description="kNN-LM interpolation weight of p_kNN")
    temperature: float = Field(1.0, gt=0, description="kNN-LM softmax temperature over -distance")


class Methods(Section):
    """Each method's own settings; a method reads only its own."""

    grounded: Grounded = Field(default_factory=Grounded)
    contrast: Contrast = Field(default_factory=Contrast)
    cad: CAD = Field(default_factory=CAD)
    coiecd: COIECD = Field(default_factory=COIECD)
    cocoa: CoCoA = Field(default_factory=CoCoA)
    dola: DoLa = Field(default_factory=DoLa)
    knnlm: KNNLM = Field(default_factory=KNNLM)


# Every setting's flat name (what DecodingConfig(...), override(...), the CLI, the server's "decoding" and the
# wrappers' keywords take) and where it lives.
FLAT: dict[str, tuple[str, ...]] = {
    **{name: ("sampling", name) for name in Sampling.model_fields},
    **{name: ("prompt", name) for name in Prompt.model_fields},
    **{name: ("trust", name) for name in Trust.model_fields},
    **{name: ("passages", name) for name in Passages.model_fields},
    **{name: ("answers", name) for name in Answers.model_fields},
    "rho_max": ("methods", "grounded", "rho_max"),
    **{name: ("methods", "contrast", name) for name in Contrast.model_fields},
    "beta": ("methods", "cad", "beta"),
    "coiecd_alpha": ("methods", "coiecd", "alpha"), "coiecd_epsilon": ("methods", "coiecd", "epsilon"),
    "cocoa_lambda_max": ("methods", "cocoa", "lambda_max"), "renyi_alpha": ("methods", "cocoa", "renyi_alpha"),
    "dola_layers": ("methods", "dola", "layers"), "dola_alpha": ("methods", "dola", "alpha"),
    "knn_k": ("methods", "knnlm", "k"), "knn_lambda": ("methods", "knnlm", "weight"),
    "knn_temperature": ("methods", "knnlm", "temperature"),
}
SECTIONS = ("sampling", "prompt", "trust", "passages", "answers", "methods")
