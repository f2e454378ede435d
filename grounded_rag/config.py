"""Decoding configuration: one validated object shared by every method, so comparisons stay matched."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic.fields import FieldInfo

from .config_sections import (  # noqa: F401 (the thresholds are the config's public constants)
    DEFAULT_SYSTEM_PROMPT,
    FLAT,
    INSIST_BETA,
    INSIST_THRESHOLD,
    QUOTE_THRESHOLD,
    SECTIONS,
    SUPPORT_THRESHOLD,
    Answers,
    Methods,
    Passages,
    Prompt,
    Sampling,
    Trust,
    unicode_text,
)
from .errors import ConfigError, InputError
from .menu import DEFAULT_METHOD, canonical_name

READ_TIMEOUT_S = 300.0  # how long a client (and `ask` through a server) waits for an answer by default
DEFAULT_MODEL = "smollm2-135m-instruct"  # the embedded default (grounded_rag.models packages it)
MODEL_ALIASES = {"default": DEFAULT_MODEL, "smollm2": DEFAULT_MODEL, "gemma3": "gemma3-270m",
                 "gemma-3-270m": "gemma3-270m"}

_PATHS = {path: name for name, path in FLAT.items()}  # where a setting lives -> its flat name


class DecodingConfig(BaseModel):
    """How to decode, in sections (:mod:`grounded_rag.config_sections`): ``sampling``, ``prompt``, ``trust``,
    ``passages``, ``answers`` and each method's own settings under ``methods``. Every setting is also read, written
    and passed by its flat name (``DecodingConfig(rho_max=8, support_threshold=None)``, ``config.temperature``), as
    the CLI, the server's ``decoding`` object and the framework wrappers do. Validated on construction and on
    assignment. Sampling transforms act on the fused distribution, after fusion, for every method alike."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True, allow_inf_nan=False)

    # The default goes beyond the paper's "grounded" (docs/methods.md); a menu name, a deprecated one, or (once
    # grounded_rag.evaluation.ablations.register() has run, as eval does) a research ablation's.
    method: str = Field(DEFAULT_METHOD, description="the decoding method: one of grounded_rag.METHODS")
    max_new_tokens: int = Field(64, ge=1, description="the longest answer, in tokens")
    stop: list[str] = Field(default_factory=list, description="stop strings; generation ends before them (a model "
                            "without a chat template also ends its reply at its first blank line, where the plain "
                            "layout's turns end: it has no end-of-turn token)")
    extractive: bool = Field(
        False, description="the answer is a verbatim span of one document (short factual answers; grounded_rag.spans)")
    sampling: Sampling = Field(default_factory=Sampling)
    prompt: Prompt = Field(default_factory=Prompt)
    trust: Trust = Field(default_factory=Trust)
    passages: Passages = Field(default_factory=Passages)
    answers: Answers = Field(default_factory=Answers)
    methods: Methods = Field(default_factory=Methods)

    if not TYPE_CHECKING:  # keep pydantic's typed __init__ for type checkers

        def __init__(self, **data: Any) -> None:
            try:
                super().__init__(**data)
            except ValidationError as exc:
                raise ConfigError(explain(exc), exc) from None

        def __getattr__(self, name: str) -> Any:
            path = FLAT.get(name)
            if path is None:
                return super().__getattr__(name)
            node: Any = self
            for part in path:
                node = getattr(node, part)
            return node

        def __setattr__(self, name: str, value: Any) -> None:
            path = FLAT.get(name)
            try:
                if path is None:
                    super().__setattr__(name, value)
                    return
                node: Any = self
                for part in path[:-1]:
                    node = getattr(node, part)
                setattr(node, path[-1], value)
            except ValidationError as exc:
                raise ConfigError(explain(exc), exc) from None

        @classmethod
        def model_validate(cls, obj: Any, **kwargs: Any) -> DecodingConfig:
            try:
                return super().model_validate(obj, **kwargs)
            except ValidationError as exc:
                raise ConfigError(explain(exc), exc) from None

        def model_copy(self, *, update: dict[str, Any] | None = None, deep: bool = False) -> DecodingConfig:
            """A copy; with ``update`` (flat names or sections, as framework wrappers pass them) validated like
            :meth:`override`."""
            return self.override(**update) if update else super().model_copy(deep=deep)

    @model_validator(mode="before")
    @classmethod
    def _flat_into_sections(cls, data: Any) -> Any:
        """Settings given by their flat names go to their sections (a flat name wins over its section's value)."""
        if not isinstance(data, dict) or not any(k in FLAT for k in data):
            return data
        out = {k: v for k, v in data.items() if k not in FLAT}
        for name in (k for k in data if k in FLAT):
            node = out
            for part in FLAT[name][:-1]:
                child = node.get(part, {})
                child = child.model_dump() if isinstance(child, BaseModel) else child
                if not isinstance(child, dict):  # a section given as something else: pydantic says what is wrong
                    break
                node[part] = node = dict(child)
            else:
                node[FLAT[name][-1]] = data[name]
        return out

    @field_validator("method")
    @classmethod
    def _known_method(cls, value: str) -> str:
        return canonical_name(value)

    @field_validator("max_new_tokens", mode="before")
    @classmethod
    def _tokens_not_bool(cls, value: Any) -> Any:
        if isinstance(value, bool):
            raise ValueError(f"is {value!r}, a bool; pass a number")
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
        """A validated copy with ``fields`` (flat names or sections) changed: the one way every caller (decoder,
        wrappers, server, client) applies per-call settings."""
        return DecodingConfig(**{**self.model_dump(), **fields})

    def flat(self, mode: str = "python") -> dict[str, Any]:
        """Every setting by its flat name, as the server's ``decoding`` object and the CLI take them."""
        dump = self.model_dump(mode=mode)
        out = {k: v for k, v in dump.items() if k not in SECTIONS}
        for name, path in FLAT.items():
            node = dump
            for part in path:
                node = node[part]
            out[name] = node
        return out

    @property
    def greedy(self) -> bool:
        return self.sampling.temperature == 0


def settings_fields() -> dict[str, FieldInfo]:
    """Every setting by its flat name (and the top level's own), with its field: defaults, bounds, descriptions."""
    out = {name: info for name, info in DecodingConfig.model_fields.items() if name not in SECTIONS}
    for name, path in FLAT.items():
        section: Any = DecodingConfig
        for part in path[:-1]:
            section = section.model_fields[part].annotation
        out[name] = section.model_fields[path[-1]]
    return out


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
    fields = settings_fields()
    unknown = sorted(set(kwargs) - set(reserved) - set(fields))
    if unknown:
        raise InputError(f"unknown keyword(s) {unknown}; pass {', '.join(f'{k}=' for k in sorted(reserved))} or "
                         f"DecodingConfig fields ({', '.join(fields)})")
    overrides = {k: v for k, v in kwargs.items() if k in fields and k not in reserved}
    stops = list(dict.fromkeys([*base.stop, *(stop or []), *(overrides.pop("stop", None) or [])]))
    if stops != base.stop:
        overrides["stop"] = stops
    return base.override(**overrides) if overrides else base


def explain_fields(exc: ValidationError, prefix: str = "") -> str:
    """One line per bad field: what was given, what is allowed, and the field's meaning.
    ``prefix`` names where the settings came from (``decoding`` in a server request)."""
    fields = settings_fields()
    lines = []
    for err in exc.errors(include_url=False):
        loc = tuple(str(p) for p in err["loc"])
        name = _PATHS.get(loc) or ".".join(loc) or "config"  # a setting is named as callers pass it: flat
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
