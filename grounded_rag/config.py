"""Decoding configuration: one validated object shared by every method, so comparisons stay matched."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

MethodName = Literal[
    "grounded",
    "static",
    "conflict_only",
    "trust_only",
    "arithmetic",
    "query_only_reference",
    "standard",
    "cad",
    "adacad",
    "coiecd",
    "cocoa",
    "dola",
    "knnlm",
    "grounded_pmi",
    "pmi_static",
    "pmi_evidence_only",
    "pmi_question_only",
    "pmi_no_head",
]
TemplateName = Literal["paper", "documents_first"]

DEFAULT_SYSTEM_PROMPT = "Use only provided documents.\nCite documents when needed."


class DecodingConfig(BaseModel):
    """How to decode. Fields are validated on construction and on assignment.

    ``rho_max`` is the paper's rho_max for the adaptive schedules and the constant rho for
    ``static``. Sampling transforms (temperature, top-k, top-p, min-p) act on the fused
    distribution, after fusion, for every method alike. ``temperature == 0`` means greedy.
    """

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    method: MethodName = "grounded"
    rho_max: float = Field(4.0, ge=0, allow_inf_nan=True, description="rho_max (adaptive) or rho (static); >= 0")
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
    pmi_alpha: float = Field(2.0, ge=0, description="grounded_pmi: weight of the evidence term PMI(y; D | x)")
    pmi_beta: float = Field(1.0, ge=0, description="grounded_pmi: weight of the question term PMI(y; x | D)")
    plausibility: float = Field(
        0.1, ge=0, lt=1, description="grounded_pmi: keep tokens with p_full >= plausibility * max p_full; 0 keeps all"
    )
    temperature: float = Field(0.0, ge=0, description="0 = greedy")
    top_k: int = Field(0, ge=0, description="0 disables top-k")
    top_p: float = Field(1.0, gt=0, le=1, description="nucleus mass in (0, 1]")
    min_p: float = Field(0.0, ge=0, lt=1, description="min-p ratio in [0, 1); 0 disables")
    seed: int | None = None
    max_new_tokens: int = Field(64, ge=1)
    stop: list[str] = Field(default_factory=list, description="stop strings; generation ends before them")
    template: TemplateName = "documents_first"
    system_prompt: str = DEFAULT_SYSTEM_PROMPT
    answer_prefix: str = Field(
        "", description="text every stream's assistant turn starts with (e.g. 'Answer:'); not part of the result"
    )
    overflow: Literal["truncate", "error"] = Field(
        "truncate",
        description="prompt longer than the context window: drop lowest-score documents with a warning, or refuse",
    )

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
        return value

    @property
    def greedy(self) -> bool:
        return self.temperature == 0
