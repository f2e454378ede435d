"""The evaluation protocol: what every method is asked, and the settings each may be tuned over.

Every method answers the same prompts with the same sampling, stopping and budget; only its own
knobs differ, each from a grid of the same size (``GRIDS``), chosen on validation rows only.
"""

from __future__ import annotations

from typing import Any

from ..config import (
    DEFAULT_SYSTEM_PROMPT,
    INSIST_BETA,
    QUOTE_THRESHOLD,
    SUPPORT_THRESHOLD,
    DecodingConfig,
    settings_fields,
)
from ..errors import InputError
from ..menu import DEPRECATED_METHODS
from ..methods import ABLATION_OF
from .ablations import register as register_ablations

# The short-answer protocol, the same for every method (as the paper's NQ EM implies): the instruction
# asks for the answer alone, every stream's assistant turn opens with ANSWER_PREFIX, and a newline ends
# the answer (base models such as Gemma-3-270M run on with "\n\nQuestion: ..." otherwise).
EVAL_SYSTEM = "Answer the question using only the documents. Reply with the answer only."
ANSWER_PREFIX = "Answer:"
# in every checkpoint key: records of another protocol are never reused (v2: records carry support and citations)
PROTOCOL = "short-v2"
RHO_GRID = [{"rho_max": 1.0}, {"rho_max": 4.0}, {"rho_max": 16.0}]
PMI_GRID = [{"pmi_alpha": 1.0}, {"pmi_alpha": 2.0}, {"pmi_alpha": 4.0}]  # pmi_beta = 1, plausibility = 0.1
GATE_GRID = [{"pmi_gate": 0.5}, {"pmi_gate": 1.0}, {"pmi_gate": 2.0}]
# At most three settings per method (the same budget); one where a method has no free knob.
GRIDS: dict[str, list[dict[str, Any]]] = {
    "grounded_contrast": GATE_GRID,
    "standard": [{}],
    "cad": [{"beta": 0.5}, {"beta": 1.0}, {"beta": 2.0}],
    "adacad": [{}],
    "coiecd": [{"coiecd_epsilon": 0.5}, {"coiecd_epsilon": 1.0}, {"coiecd_epsilon": 2.0}],
    "cocoa": [{"cocoa_lambda_max": 1.5}, {"cocoa_lambda_max": 2.0}, {"cocoa_lambda_max": 3.0}],
    "dola": [{"dola_layers": "low"}, {"dola_layers": "high"}],
    "knnlm": [{"knn_lambda": 0.1}, {"knn_lambda": 0.25}, {"knn_lambda": 0.5}],
    "static": [{"rho_max": 0.5}, {"rho_max": 2.0}, {"rho_max": 8.0}],
    "grounded": RHO_GRID,
    "conflict_only": RHO_GRID,
    "trust_only": RHO_GRID,
    "arithmetic": RHO_GRID,
    "query_only_reference": RHO_GRID,
    "grounded_pmi": PMI_GRID,
    "grounded_pmi_gated": GATE_GRID,  # pmi_alpha = 4
    "grounded_pmi_anchored": GATE_GRID,  # pmi_alpha = 4
    "pmi_words_cut": GATE_GRID,
    "pmi_words_untrusting": GATE_GRID,
    "pmi_words_memory_veto": GATE_GRID,
    "pmi_words_memory_veto_all": GATE_GRID,
    "pmi_words_echo": GATE_GRID,
    "pmi_words_memory_swap": GATE_GRID,
    "pmi_words_memory_extract": GATE_GRID,
    "pmi_words_question_lowers": GATE_GRID,
    "pmi_words_question_anchored": GATE_GRID,
    "pmi_words_trusting": [{"trusted_beta": 1.0}, {"trusted_beta": 2.0}, {"trusted_beta": 4.0}],
    "pmi_anchored_fused_ends": GATE_GRID,
    "pmi_anchored_ungated": PMI_GRID,
    "pmi_static": PMI_GRID,
    "pmi_evidence_only": PMI_GRID,
    "pmi_question_only": [{"pmi_beta": 0.5}, {"pmi_beta": 1.0}, {"pmi_beta": 2.0}],
    "pmi_no_head": PMI_GRID,
}


# Method suffixes: ``cad+extractive`` is CAD with extractive answers (answers copy a span of a document);
# ``+relevant`` leaves out the passages the question is not about (DecodingConfig.relevance_margin at its
# default). ``+screened`` withholds the passages' sentences that address the model (DecodingConfig.screen_instructions,
# grounded_rag.screening) by its rules alone; ``+learned`` adds the learned classifier
# (DecodingConfig.screen_classifier, grounded_rag.learned_screen; opt-in in the product), in either order.
# Without them every method reads every passage as written, as the published methods do.
# ``+prompted`` is the anchor users have today: the instruction asks for "[k]" citations and for a fixed sentence where
# the documents do not answer (ALCE's style, Gao et al. 2023), and the decoder's own abstention is off. ``+quoted``
# decodes with the product's abstention and its quote of a passage where the answer is withheld
# (DecodingConfig.quote_threshold): the record holds what a user reads (an abstention scores as wrong). ``+insisted``
# likewise, with the withheld answer decoded again taking the passages at their word (DecodingConfig.insist_beta).
# ``+according`` opens every stream's answer with "According to the documents, the answer is" instead of "Answer:": the
# answer is cued as what the documents say (a prompt-side ablation, read against counterfactual passages).
EXTRACTIVE = "+extractive"
RELEVANT = "+relevant"
SCREENED = "+screened"
LEARNED = "+learned"
PROMPTED = "+prompted"
QUOTED = "+quoted"
INSISTED = "+insisted"
ACCORDING = "+according"
DEFAULTS = "+defaults"
ACCORDING_PREFIX = "According to the documents, the answer is"
PROMPTED_ABSTENTION = "The documents do not say."
PROMPTED_SYSTEM = ("Answer the question using only the documents (some of which might be irrelevant) and cite the "
                   "document that supports the answer as [k], e.g. [1]. If the documents do not answer the question, "
                   f"reply: {PROMPTED_ABSTENTION} Reply with the answer only.")
AS_READ = (QUOTED, INSISTED)  # options whose record is what a user reads: the product's abstention and second looks


def as_read(spec: str) -> bool:
    """The ``--methods`` entry decodes with the product's abstention and a second look at withheld answers."""
    return any(option in spec for option in AS_READ)


OPTIONS: dict[str, dict[str, Any]] = {
    EXTRACTIVE: {"extractive": True},
    RELEVANT: {"relevance_margin": settings_fields()["relevance_margin"].default},
    SCREENED: {"screen_instructions": True},
    LEARNED: {"screen_instructions": True, "screen_classifier": True},
    PROMPTED: {"system_prompt": PROMPTED_SYSTEM},
    QUOTED: {"support_threshold": SUPPORT_THRESHOLD, "quote_threshold": QUOTE_THRESHOLD},
    INSISTED: {"support_threshold": SUPPORT_THRESHOLD, "insist_beta": INSIST_BETA},
    ACCORDING: {"answer_prefix": ACCORDING_PREFIX},
    # every setting as the package ships it (the answers ``ask`` and ``generate`` give): its system prompt, no answer
    # prefix, no newline stop, its token budget, the relevance filter and the screen; the threshold stays the harness's
    DEFAULTS: {"system_prompt": DEFAULT_SYSTEM_PROMPT, "answer_prefix": "", "stop": [],
               "max_new_tokens": settings_fields()["max_new_tokens"].default,
               "relevance_margin": settings_fields()["relevance_margin"].default,
               "screen_instructions": True, "screen_classifier": False, "check_conflicts": True},
}


def without_last_option(spec: str) -> str | None:
    """The ``--methods`` entry an option is read against: ``cad+relevant+extractive`` → ``cad+relevant``; None for a
    method without options."""
    return spec.rsplit("+", 1)[0] if "+" in spec else None


def counterparts(spec: str) -> list[str]:
    """The ``--methods`` entries a method is read against besides ``REFERENCES``: the same method without its last
    option (``cad+extractive`` → ``cad``) and, for a research ablation, the menu method it varies with the same
    options (``pmi_words_echo+screened`` → ``grounded_contrast+screened``, ``static`` → ``grounded``)."""
    register_ablations()
    name, plus, options = spec.partition("+")
    of = [ABLATION_OF[name] + plus + options] if name in ABLATION_OF else []
    return [base for base in (without_last_option(spec), *of) if base is not None]


def method_grid(spec: str) -> tuple[str, list[dict[str, Any]]]:
    """A ``--methods`` entry's method name and grid: ``cad+relevant+extractive`` is CAD's grid with both options. The
    research ablations are registered here, where eval reads its methods, so that their names decode."""
    register_ablations()
    name, *options = spec.split("+")
    name = DEPRECATED_METHODS.get(name, name)  # results published under the default's former name rerun as it
    unknown = [o for o in options if "+" + o not in OPTIONS]
    if name not in GRIDS or unknown or len(set(options)) < len(options):
        raise InputError(f"unknown method {spec!r} for eval; choose from {', '.join(GRIDS)}, each optionally "
                         f"followed by {EXTRACTIVE!r} (extractive answers), {RELEVANT!r} (relevant passages only), "
                         f"{SCREENED!r} (sentences addressed to the model withheld; {LEARNED!r}: also those the "
                         f"learned classifier flags), {PROMPTED!r} (citations and abstention asked for in the "
                         f"instruction), {QUOTED!r} (a passage quoted where the answer "
                         f"is withheld), {INSISTED!r} (a withheld answer decoded again taking the passages at their "
                         f"word), {ACCORDING!r} (the answer opened with {ACCORDING_PREFIX!r}) and {DEFAULTS!r} (every setting "
                         "as the package ships it: answers as ask and generate give them)")
    extra = {k: v for o in options for k, v in OPTIONS["+" + o].items()}
    grid = [{}] if DEFAULTS[1:] in options else GRIDS[name]  # as shipped: the method's own settings, not a grid
    return name, [{**params, **extra} for params in grid]


def base_config(method: str, params: dict[str, Any], max_new_tokens: int, short_answer: bool = True) -> DecodingConfig:
    """The protocol's config; ``short_answer=False`` for MemoTrap, whose prompts continue the question text. The
    decoder never abstains here: every answer is kept with its support, and the harness applies the threshold when it
    scores (the same rule: an answer is withheld where its support is below it)."""
    settings = {"answer_prefix": ANSWER_PREFIX if short_answer else "", "relevance_margin": None,
                "screen_instructions": False, "screen_classifier": False, "check_conflicts": False,
                "system_prompt": EVAL_SYSTEM,
                "support_threshold": None, **params}
    return DecodingConfig(**{"method": method, "max_new_tokens": max_new_tokens, "stop": ["\n"], "score_space": "raw",
                             "b": 0.5, "gamma": 10.0, **settings})
