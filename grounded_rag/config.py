"""Decoding configuration: one validated object shared by every method, so comparisons stay matched."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Literal, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator

from .errors import ConfigError, InputError
from .menu import DEFAULT_METHOD, canonical_name

DEFAULT_MODEL = "smollm2-135m-instruct"  # the embedded default (grounded_rag.models packages it)
MODEL_ALIASES = {"default": DEFAULT_MODEL, "smollm2": DEFAULT_MODEL, "gemma3": "gemma3-270m",
                 "gemma-3-270m": "gemma3-270m"}

TemplateName = Literal["paper", "documents_first"]

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


def _types(annotation: Any) -> set[Any]:
    """The types an annotation admits (``int | None`` -> {int, None}; ``Literal[...]`` -> {Literal})."""
    args = get_args(annotation)
    return {annotation} if not args or get_origin(annotation) is Literal else set().union(*map(_types, args))


class DecodingConfig(BaseModel):
    """How to decode. Fields are validated on construction and on assignment.

    ``rho_max`` is the paper's rho_max for the adaptive schedules and the constant rho for
    ``static``. Sampling transforms (temperature, top-k, top-p, min-p) act on the fused
    distribution, after fusion, for every method alike. ``temperature == 0`` means greedy.
    """

    # No field takes inf or NaN unless it says so (temperature=inf would sample gibberish).
    model_config = ConfigDict(extra="forbid", validate_assignment=True, allow_inf_nan=False)

    # The default goes beyond the paper's "grounded" (docs/methods.md); a menu name, a deprecated one, or (once
    # grounded_rag.evaluation.ablations.register() has run, as eval does) a research ablation's.
    method: str = Field(DEFAULT_METHOD, description="the decoding method: one of grounded_rag.METHODS")
    rho_max: float = Field(4.0, ge=0, allow_inf_nan=True,
                           description="the paper's method (grounded): the largest weight of its second stream; >= 0")
    tau_r: float = Field(1.0, gt=0, description="softmax temperature over retriever scores; > 0")
    gamma: float = Field(10.0, ge=0, description="slope of the trust sigmoid; >= 0")
    b: float = Field(0.5, description="trust bias: median top-document score on validation data")
    beta: float = Field(0.5, ge=0, description="CAD contrast strength")
    coiecd_alpha: float = Field(1.0, ge=0, description="COIECD contrast strength alpha")
    coiecd_epsilon: float = Field(1.0, gt=0, description="COIECD bound on |-log p(y|x,D) - H(p(.|x))|, in nats")
    cocoa_lambda_max: float = Field(2.0, ge=1, description="CoCoA largest context weight (1 = standard RAG)")
    renyi_alpha: float = Field(0.5, gt=0, lt=1, description="order of CoCoA's Renyi divergence, in (0, 1)")
    dola_layers: Literal["low", "high"] = Field("high", description="DoLa premature-layer bucket")
    dola_alpha: float = Field(0.1, gt=0, le=1, description="DoLa plausibility threshold (fraction of the top prob)")
    knn_k: int = Field(16, ge=1, description="kNN-LM neighbours")
    knn_lambda: float = Field(0.25, ge=0, le=1, description="kNN-LM interpolation weight of p_kNN")
    knn_temperature: float = Field(1.0, gt=0, description="kNN-LM softmax temperature over -distance")
    pmi_alpha: float = Field(4.0, ge=0, description="grounded_pmi: weight of the evidence term PMI(y; D | x)")
    pmi_beta: float = Field(1.0, ge=0, description="grounded_pmi: weight of the question term PMI(y; x | D)")
    # Chosen on NQ-Swap validation, clean and injected; on a tie the stronger gate, which exists to resist planted
    # instructions (docs/method-note.md, "The question gate and planted instructions").
    pmi_gate: float = Field(
        2.0,
        description="grounded_pmi_gated / _anchored: the evidence boost applies only where PMI(y; x | D) > pmi_gate (nats)",
    )
    # Chosen on MemoTrap validation (its instruction declared the user's) and NQ-Swap validation with the passage
    # trusted (docs/method-note.md, "Trusted documents and MemoTrap").
    trusted_beta: float = Field(
        2.0,
        ge=0,
        description="grounded_pmi_gated and its refinements: the contrast strength for a request whose documents are "
        "all trusted (Document.trusted): log q = log p_full + trusted_beta PMI(y; D | x), no question guards",
    )
    plausibility: float = Field(
        0.1, ge=0, lt=1, description="grounded_pmi: keep tokens with p_full >= plausibility * max p_full; 0 keeps all"
    )
    temperature: float = Field(0.0, ge=0, description="0 = greedy; else at least 0.001")
    top_k: int = Field(0, ge=0, le=TOP_K_LIMIT, description="0 disables top-k; at most a vocabulary's size")
    top_p: float = Field(1.0, gt=0, le=1, description="nucleus mass in (0, 1]")
    min_p: float = Field(0.0, ge=0, lt=1, description="min-p ratio in [0, 1); 0 disables")
    seed: int | None = Field(None, ge=0, le=2**63 - 1, description="sampling seed, a 63-bit whole number")
    max_new_tokens: int = Field(64, ge=1)
    stop: list[str] = Field(default_factory=list, description="stop strings; generation ends before them (a model "
                            "without a chat template also ends its reply at its first blank line, where the plain "
                            "layout's turns end: it has no end-of-turn token)")
    template: TemplateName = "documents_first"
    system_prompt: str = DEFAULT_SYSTEM_PROMPT
    answer_prefix: str = Field(
        "", description="text every stream's assistant turn starts with (e.g. 'Answer:'); not part of the result"
    )
    extractive: bool = Field(
        False,
        description="the answer is a verbatim span of one document (short factual answers; see grounded_rag.spans)",
    )
    # Chosen on NQ-Swap validation rows with two distractors: the relevant passage kept, most distractors dropped
    # (docs/method-note.md, "The relevance filter", has the table).
    relevance_margin: float | None = Field(
        0.5,
        ge=0,
        description="leave out documents whose question likelihood is more than this many nats per question token "
        "below the best document's (see grounded_rag.relevance); None keeps every document",
    )
    screen_instructions: bool = Field(
        True,
        description="withhold the sentences of retrieved passages (and titles) that address the model: instructions, "
        "chat turns, control markup, orders in disguise (grounded_rag.screening), with the rest of each one's "
        "paragraph; GenerationResult.withheld lists them. The caller's own passages (Document.trusted) are read as "
        "written",
    )
    screen_classifier: bool = Field(
        True,
        description="with screen_instructions, also withhold the sentences a learned classifier takes for words to "
        "the model, which the rules miss (the packaged MiniLM's sentence embeddings under a small trained head: "
        "grounded_rag.learned_screen); False screens by the rules alone and never loads MiniLM for it; "
        "screen_instructions=False reads passages as written, this classifier's part too",
    )
    attribute: bool = Field(
        True,
        description="cite, for every span of the answer, the passage and the span of it that supports it, and score "
        "the answer's support (grounded_rag.attribution: one scoring pass after decoding); False skips both, and "
        "abstention with them",
    )
    support_threshold: float | None = Field(
        SUPPORT_THRESHOLD,
        ge=0,
        le=1,
        description="withhold an answer whose support (0-1, GenerationResult.support) is below this and answer "
        "abstention_text instead; a request none of whose passages can reach it is not decoded; None never abstains",
    )
    quote_threshold: float | None = Field(
        None,
        ge=0,
        le=1,
        description="an answer withheld for its support is decoded again as a verbatim span of a passage (extractive) "
        "and that quote is shown where its support reaches this (and support_threshold): a passage that does say "
        "something about the question is quoted rather than 'the documents do not say'. None withholds; "
        f"{QUOTE_THRESHOLD} was chosen on validation rows (docs/citations.md). GenerationResult.quoted marks it",
    )
    insist_beta: float | None = Field(
        None,
        gt=0,
        description="an answer withheld for its support is decoded again taking its passages at their word (the "
        "trusted documents' rule at this weight: the question gate that guards against planted instructions is off, "
        f"screening stays) and shown where its support reaches {INSIST_THRESHOLD} (and support_threshold); before "
        "quote_threshold's quote. None withholds; opt-in, as it lifts a guard (docs/citations.md). "
        "GenerationResult.insisted marks it",
    )
    check_conflicts: bool = Field(
        True,
        description="ask every other kept passage about the question the question alone (a short decode each) and "
        "list those that answer otherwise in GenerationResult.conflicts: the documents disagree "
        "(grounded_rag.conflicts); needs attribute",
    )
    abstention_text: str = Field(
        "The documents do not say.",
        description="what an abstaining answer says (GenerationResult.abstained); a non-empty string",
    )
    overflow: Literal["truncate", "error"] = Field(
        "truncate",
        description="prompt longer than the context window: drop lowest-score documents with a warning, or refuse",
    )

    score_space: Literal["cosine", "raw"] = Field(
        "cosine",
        description="scale of the retriever scores: 'cosine' similarity in [-1, 1] (see normalize_scores), "
        "or 'raw' retriever scores (e.g. inner products) with b calibrated on validation data",
    )

    if not TYPE_CHECKING:  # keep pydantic's typed __init__ for type checkers

        def __init__(self, **data: Any) -> None:
            try:
                super().__init__(**data)
            except ValidationError as exc:
                raise ConfigError(explain(exc), exc) from None

        def __setattr__(self, name: str, value: Any) -> None:
            try:
                super().__setattr__(name, value)
            except ValidationError as exc:
                raise ConfigError(explain(exc), exc) from None

        @classmethod
        def model_validate(cls, obj: Any, **kwargs: Any) -> DecodingConfig:
            try:
                return super().model_validate(obj, **kwargs)
            except ValidationError as exc:
                raise ConfigError(explain(exc), exc) from None

    @field_validator("method")
    @classmethod
    def _known_method(cls, value: str) -> str:
        return canonical_name(value)

    @field_validator("system_prompt", "answer_prefix")
    @classmethod
    def _system_is_text(cls, value: str, info: ValidationInfo) -> str:
        return unicode_text(value, info.field_name or "text")

    @field_validator("abstention_text", mode="before")
    @classmethod
    def _abstention_is_text(cls, value: Any) -> str:
        if not isinstance(value, str) or not value.strip():
            raise ValueError("must be a non-empty string, e.g. 'The documents do not say.'")
        return unicode_text(value, "abstention_text")

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

    @field_validator("temperature")
    @classmethod
    def _temperature(cls, value: float) -> float:
        if 0 < value < 1e-3:  # logits divided by it overflow: greedy is what such a temperature means
            raise ValueError("a positive temperature must be at least 0.001; use 0 for greedy decoding")
        return value

    @field_validator("rho_max")
    @classmethod
    def _rho_not_nan(cls, value: float) -> float:
        if value != value:
            raise ValueError("rho_max is NaN; use a number >= 0 (float('inf') follows the reference stream)")
        return value

    @field_validator("stop")
    @classmethod
    def _stops_not_empty(cls, value: list[str]) -> list[str]:
        if any(not s for s in value):
            raise ValueError("stop strings must be non-empty")
        for i, s in enumerate(value):
            unicode_text(s, f"stop string {i + 1}")
        return value

    def override(self, **fields: Any) -> DecodingConfig:
        """A validated copy with ``fields`` changed: the one way every caller (decoder, wrappers, server, client)
        applies per-call settings. Always rebuilt through validation: a config edited with ``model_copy(update=...)``
        (as framework wrappers do) skipped it."""
        return DecodingConfig(**{**self.model_dump(), **fields})

    @property
    def greedy(self) -> bool:
        return self.temperature == 0


def with_llm_settings(base: DecodingConfig, temperature: float | None = None, max_tokens: int | None = None,
                      stop: list[str] | None = None) -> DecodingConfig:
    """``base`` with the settings every framework's LLM takes (``temperature``, ``max_tokens``, ``stop``), where
    given: the one place the LangChain and LlamaIndex wrappers apply their constructor arguments."""
    given = {k: v for k, v in (("temperature", temperature), ("max_new_tokens", max_tokens)) if v is not None}
    return call_config(base, given, stop=stop)


def call_config(base: DecodingConfig, kwargs: dict[str, Any], reserved: frozenset[str] = frozenset(),
                stop: list[str] | None = None) -> DecodingConfig:
    """A framework call's settings: ``base`` with the DecodingConfig fields among ``kwargs`` and the call's ``stop``
    strings added to the base's. ``reserved`` are the wrapper's own keywords (``documents``, ...), skipped here;
    any other keyword is refused, naming what is accepted."""
    fields = DecodingConfig.model_fields
    unknown = sorted(set(kwargs) - set(reserved) - set(fields))
    if unknown:
        raise InputError(f"unknown keyword(s) {unknown}; pass {', '.join(f'{k}=' for k in sorted(reserved))} or "
                         f"DecodingConfig fields ({', '.join(fields)})")
    overrides = {k: v for k, v in kwargs.items() if k in fields and k not in reserved}
    stops = list(dict.fromkeys([*base.stop, *(stop or []), *(overrides.pop("stop", None) or [])]))
    if stops != base.stop:
        overrides["stop"] = stops
    return base.override(**overrides) if overrides else base


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


def explain_fields(exc: ValidationError, prefix: str = "") -> str:
    """One line per bad field: what was given, what is allowed, and the field's meaning.
    ``prefix`` names where the settings came from (``decoding`` in a server request)."""
    fields = DecodingConfig.model_fields
    lines = []
    for err in exc.errors(include_url=False):
        name = ".".join(str(p) for p in err["loc"]) or "config"
        shown = f"{prefix}.{name}" if prefix else name
        if err["type"] == "extra_forbidden":
            lines.append(f"unknown setting {shown!r}; valid settings: {', '.join(fields)}")
            continue
        message = err["msg"].removeprefix("Value error, ")
        hint = fields[name].description if name in fields and fields[name].description else ""
        lines.append(f"{shown}={err['input']!r}: {message}" + (f" ({name}: {hint})" if hint else ""))
    return "; ".join(lines)


def explain(exc: ValidationError, prefix: str = "") -> str:
    """:func:`explain_fields` under a heading: the config's own error, or a request's ``decoding``."""
    return ("bad decoding settings: " if prefix else "invalid DecodingConfig: ") + explain_fields(exc, prefix)


def describe(exc: ValidationError) -> str:
    """A wrapper's settings errors as one line (``field: message; ...``); a nested DecodingConfig's
    errors are named by their path (``decoding.rho_max=-1: ...``), not wrapped in pydantic's text."""
    parts = []
    for err in exc.errors(include_url=False):
        loc = ".".join(str(p) for p in err["loc"])
        inner = (err.get("ctx") or {}).get("error")
        if isinstance(inner, ConfigError) and isinstance(inner.validation, ValidationError):
            parts.append(explain_fields(inner.validation, prefix=loc))
        else:
            parts.append(f"{loc}: {err['msg']}" if loc else err["msg"])
    return "; ".join(parts)
