"""``GroundedDecoder``: the public entry point. Validates input, builds matched prompts, applies
the context-window policy, runs the engine, and turns steps into text, traces and results."""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

import torch
from transformers import PreTrainedModel, PreTrainedTokenizerBase

from .attribution import Answer, cite, find_citations, model_citations, passage_evidence, token_offsets
from .config import INSIST_THRESHOLD, SUPPORT_THRESHOLD, DecodingConfig
from .conflicts import ALONE_TOKENS, candidates, disagrees, with_conflicts
from .engine import RowInputs, Step, decode
from .errors import InputError
from .graphs import GraphPool, static_ok
from .inputs import DocumentLike, Request, check_scores, checked_request, fit_context, question_fits, with_scores
from .learned_screen import flagged, forget_verdicts
from .methods import Method, get_method
from .models import load_model
from .prefill import common_prefix_length
from .prompts import turn_ends
from .relevance import question_likelihoods, relevant
from .screening import screen_documents, sentence_texts
from .spans import CopyState, DocumentSpans, document_tokens, end_tokens
from .speedups import small_row_linears
from .support import says_more_than, support, support_of
from .taps import Datastore, build_datastore
from .trust import retrieval_trust
from .types import Citation, Document, GenerationResult, Prompts, TraceStep, WithheldText

_Key = tuple[str, tuple[tuple[str | None, str], ...] | None]


def _relevance_key(question: str, docs: Sequence[Document]) -> _Key:
    """What a relevance scoring depends on: the question and each passage's title and text (``None`` for the
    question's baseline, read after no passage)."""
    return question, tuple((d.title, d.text) for d in docs)


def _passage_texts(request: Request) -> list[str]:
    """The kept passages' texts and titles: what an answer may copy or the documents may raise."""
    return [t for d in request.documents for t in (d.text, d.title) if t]


@dataclass
class _Normalised:
    """A request after the cheap checks and before any model work (:meth:`GroundedDecoder.plan`)."""

    question: str
    documents: list[Document]
    scores: list[float] | None
    trust: float
    withheld: list[WithheldText] = field(default_factory=list)  # what screening took out of the documents


def _screened(normal: list[_Normalised | InputError], learned: bool) -> list[_Normalised | InputError]:
    """Every request's passages screened (grounded_rag.screening); with ``learned``, the classifier judges the
    sentences of the whole batch in one call, as the relevance filter scores its passages."""
    live = [n for n in normal if isinstance(n, _Normalised)]
    flags = flagged(sentence_texts(d for n in live for d in n.documents if not d.trusted)) if learned else None
    classifier = None if flags is None else lambda _sentences: flags
    out: list[_Normalised | InputError] = []
    for n in normal:
        if isinstance(n, _Normalised):
            documents, withheld = screen_documents(n.documents, classifier)
            n = replace(n, documents=documents, withheld=withheld)
        out.append(n)
    return out


@dataclass
class _Running:
    """Per-question bookkeeping while decoding."""

    request: Request
    tokens: list[int] = field(default_factory=list)
    trace: list[TraceStep] = field(default_factory=list)
    text: str = ""
    finish: str | None = None


class GroundedDecoder:
    """Grounded Decoding over one causal LM (paper Sec. 3): two matched streams, fused per token."""

    def __init__(self, model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase, name: str = "model") -> None:
        self.model = model
        self.tokenizer = tokenizer
        self.linear_layouts = small_row_linears(model)  # on a CPU, the matmul layout each row count runs fastest
        self.name = name
        self.eos_ids = self._eos_ids()
        self._ends: dict[tuple[str, ...], frozenset[int]] = {}  # extractive answers' end tokens, per stop list
        self.turn_ends = turn_ends(tokenizer)  # where a base model's reply ends: it has no end-of-turn token
        # a question asked again over the same passages (a tuning grid, a retried request) is not scored again
        self._relevance: OrderedDict[_Key, list[float]] = OrderedDict()
        self._relevance_lock = threading.Lock()
        self.pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else min(self.eos_ids, default=0)
        self.context_window = int(getattr(model.config, "max_position_embeddings", 0) or tokenizer.model_max_length)
        # CUDA graphs over static caches where they apply (a GPU, full-attention layers); the eager engine elsewhere
        self.graphs = GraphPool() if model.device.type == "cuda" and static_ok(model) else None

    @classmethod
    def from_pretrained(
        cls, model: str | None = None, device: str | torch.device | None = None, dtype: torch.dtype | None = None,
        backend: str = "auto",
    ) -> GroundedDecoder:
        """Load the embedded default (SmolLM2-135M-Instruct), a packaged alias, a .gguf file, an HF id or folder;
        ``backend`` torch, llama_cpp or auto (llama.cpp for a GGUF on a CPU: grounded_rag.backends)."""
        m, tok, name = load_model(model, device=device, dtype=dtype, backend=backend)
        return cls(m, tok, name)

    def _eos_ids(self) -> set[int]:
        ids: set[int] = set()
        for source in (self.model.generation_config.eos_token_id, self.model.config.eos_token_id, self.tokenizer.eos_token_id):
            if source is None:
                continue
            ids.update([source] if isinstance(source, int) else source)
        return ids

    # ----------------------------------------------------------------- a request's way down to the engine
    def plan(self, requests: Sequence[Mapping[str, Any]], config: DecodingConfig, method: Method,
             raise_errors: bool = True) -> list[Request | InputError]:
        """Every request made ready for the engine, each stage once for the whole batch: normalised (the cheap
        checks, no model work), screened (the learned screen judging the batch's sentences in one call),
        relevance-filtered (every request's passages scored together in one packed pass),
        fit to the context window and rendered as matched prompts. With ``raise_errors`` the first refusal is
        raised before any model work where it can be; without, a refused request has its InputError in its place
        and the others go on (the server's batch of many clients' requests)."""
        normal: list[_Normalised | InputError] = []
        for i, r in enumerate(requests):
            try:
                normal.append(self._normalise(r, i, config))
            except InputError as exc:
                if raise_errors:
                    raise
                normal.append(exc)
        if config.screen_instructions:
            normal = _screened(normal, config.screen_classifier)
        if config.relevance_margin is not None:  # remembered here, read by _fit
            many = [n for n in normal if isinstance(n, _Normalised) and len(n.documents) > 1]
            self._score_relevance([_relevance_key(n.question, n.documents) for n in many]
                                  + [(n.question, None) for n in many])
        out: list[Request | InputError] = []
        for n in normal:
            try:
                out.append(n if isinstance(n, InputError) else self._fit(n, config, method))
            except InputError as exc:
                if raise_errors:
                    raise
                out.append(exc)
        return out

    def prepare(self, question: str, documents: Sequence[DocumentLike], scores: Sequence[float] | None,
                config: DecodingConfig, method: Method) -> Request:
        """One request through :meth:`plan`."""
        return self.plan([{"question": question, "documents": documents, "scores": scores}], config, method)[0]  # type: ignore[return-value]

    def _normalise(self, request: Any, index: int, config: DecodingConfig) -> _Normalised:
        """A request's question and documents checked, its question known to fit the window (before any passage is
        scored: no choice of passages can make it fit), its scores on the trust scale."""
        if not isinstance(request, Mapping) or "question" not in request or "documents" not in request:
            raise InputError(f"request {index + 1} is not a mapping with 'question' and 'documents' (and optional "
                             "'scores'); pass dicts like {'question': q, 'documents': [...]}")
        question = request["question"]
        docs = checked_request(question, request["documents"])
        question_fits(self.tokenizer, self.context_window, question, config)
        scores = check_scores(docs, request.get("scores"), config.score_space)
        return _Normalised(question, with_scores(docs, scores), scores,
                           retrieval_trust(scores, config.tau_r, config.gamma, config.b))

    def _fit(self, n: _Normalised, config: DecodingConfig, method: Method) -> Request:
        """The relevant passages (their scores remembered by :meth:`plan`) that fit the window, as prompts."""
        keep, likelihoods = self._relevant(n.question, n.documents, config)
        irrelevant = [d for i, d in enumerate(n.documents) if i not in keep]
        docs, numbers = [n.documents[i] for i in keep], [i + 1 for i in keep]
        scores = None if n.scores is None else [n.scores[i] for i in keep]
        docs, scores, numbers, dropped, (full, *refs), token_ids = fit_context(
            self.tokenizer, self.context_window, n.question, docs, scores, numbers, config, method)
        shared = common_prefix_length(token_ids) if len(token_ids) > 1 else 0
        prompts = Prompts(full=full, reference=refs[0] if refs else None, reference_kind=method.reference,
                          references=refs, reference_kinds=list(method.references), shared_prefix_tokens=shared)
        relevance = None if likelihoods is None else [likelihoods[k - 1] for k in numbers]
        return Request(n.question, docs, scores, prompts, token_ids, n.trust, numbers, dropped, irrelevant, relevance,
                       n.withheld)

    def _relevant(self, question: str, docs: list[Document], config: DecodingConfig
                  ) -> tuple[list[int], list[float] | None]:
        """Indices of the passages the question is about (``relevance_margin``; grounded_rag.relevance), and of the
        trusted ones (the caller put them there), in order, with every passage's question likelihood (None where
        the filter did not run). The kept ones keep their numbers in the prompt ("Doc 3" stays the caller's third
        document)."""
        if config.relevance_margin is None or len(docs) < 2:
            return list(range(len(docs))), None
        scores, (baseline,) = self._score_relevance([_relevance_key(question, docs), (question, None)])
        kept = set(relevant(scores, config.relevance_margin, baseline))
        return [i for i, d in enumerate(docs) if i in kept or d.trusted], scores  # the caller's own always stay

    def question_gains(self, requests: Sequence[Request]) -> list[list[float]]:
        """Per request, each kept passage's question gain: how much reading it makes the question likelier than no
        passage, in nats per question token (grounded_rag.attribution). The filter's scores are reused; the rest,
        and each question's baseline, are scored in one packed pass."""
        keys = [_relevance_key(r.question, r.documents) for r in requests if r.relevance is None]
        keys += [(r.question, None) for r in requests]
        scored = dict(zip(keys, self._score_relevance(keys)))
        out = []
        for r in requests:
            passages = r.relevance if r.relevance is not None else scored[_relevance_key(r.question, r.documents)]
            baseline = scored[(r.question, None)][0]
            out.append([p - baseline for p in passages])
        return out

    RELEVANCE_CACHE = 1024  # (question, passages) scorings kept

    def _score_relevance(self, keys: Sequence[_Key]) -> list[list[float]]:
        """Each (question, passages)'s scores: the ones not remembered are scored together in one packed
        call, and all are remembered (most recent last; the decoder may be shared by threads)."""
        with self._relevance_lock:
            known = {k: self._relevance[k] for k in keys if k in self._relevance}
        todo = list(dict.fromkeys(k for k in keys if k not in known))
        if todo:
            requests = [(q, None if passages is None else [Document(title=title, text=text) for title, text in passages])
                        for q, passages in todo]
            known.update(zip(todo, question_likelihoods(self.model, self.tokenizer, requests, self.pad_id)))
        with self._relevance_lock:
            for key in keys:
                self._relevance[key] = known[key]
                self._relevance.move_to_end(key)
            while len(self._relevance) > self.RELEVANCE_CACHE:
                self._relevance.popitem(last=False)
        return [known[k] for k in keys]

    def clear_cache(self) -> None:
        """Forget remembered relevance scores and the screen's verdicts, so a benchmark phase pays for its own."""
        with self._relevance_lock:
            self._relevance.clear()
        forget_verdicts()

    # ----------------------------------------------------------------- decoding
    def _graph_pool(self, on: bool | None) -> GraphPool | None:
        """The decoder's graph pool when ``on`` (None: where it applies), else None: the eager engine."""
        if on and self.graphs is None:
            raise InputError("graphs=True needs a CUDA device and a model of full-attention layers")
        return self.graphs if on is not False else None

    def _run(self, requests: list[Request], config: DecodingConfig, method: Method, **engine: Any) -> Iterator[list[_Running]]:
        running = [_Running(r) for r in requests]
        if "graphs" not in engine:
            engine["graphs"] = self.graphs
        if method.signal != "none":  # DoLa's and kNN-LM's hooks read hidden states a replayed graph would not give
            engine["graphs"] = None
        prompts = [ids for r in requests for ids in r.token_ids]
        steps = decode(self.model, method, prompts, self.row_inputs(requests, method, config), config, self.pad_id,
                       end_ids=self.eos_ids, finished=lambda: [r.finish is not None for r in running], **engine)
        for step in steps:
            self._record(step, running, config)
            yield running
            if all(r.finish is not None for r in running):
                break
        for r in running:
            r.finish = r.finish or "length"

    def row_inputs(self, requests: Sequence[Request], method: Method, config: DecodingConfig) -> RowInputs:
        """What the engine needs of a batch besides its prompts, in one place for every caller (answers, MemoTrap's
        continuations and its log-likelihood scoring), built only where the method needs it; copy states fresh."""
        copies = self.copies(requests, method)
        return RowInputs(trust=[r.trust for r in requests], datastores=self.datastores(requests, method),
                         spans=self.spans(requests, config, method), copies=copies,
                         document_tokens=self.document_tokens(requests, method, copies),
                         question_tokens=[document_tokens(self.tokenizer, [r.question]) for r in requests]
                         if "question_tokens" in method.needs else None,
                         trusted=[r.trusted for r in requests])

    def datastores(self, requests: Sequence[Request], method: Method) -> list[Datastore] | None:
        """kNN-LM's per-question datastore, built from that question's retrieved passages only."""
        if method.signal != "datastore":
            return None
        return [build_datastore(self.model, self.tokenizer, [d.text for d in r.documents]) for r in requests]

    def document_tokens(self, requests: Sequence[Request], method: Method,
                        copies: Sequence[CopyState] | None = None) -> list[frozenset[int]] | None:
        """An anchored method's per-question tokens its documents may raise: the kept passages' text and titles
        (taken from ``copies``, the same requests' copy states, where a copying method has built them)."""
        if "document_tokens" not in method.needs:
            return None
        if copies is not None:
            return [c.tokens for c in copies]
        return [document_tokens(self.tokenizer, _passage_texts(r)) for r in requests]

    def copies(self, requests: Sequence[Request], method: Method) -> list[CopyState] | None:
        """A copying method's per-question copy state (fresh: decoding advances it) over the kept passages."""
        if "copies" not in method.needs:
            return None
        return [CopyState.build(self.tokenizer, _passage_texts(r)) for r in requests]

    def spans(self, requests: Sequence[Request], config: DecodingConfig, method: Method) -> list[DocumentSpans] | None:
        """With ``extractive`` (or for a method that reads them): each question's documents (text and title), whose
        spans its answer may copy."""
        if not config.extractive and "spans" not in method.needs:
            return None
        key = tuple(config.stop)
        if key not in self._ends:
            self._ends[key] = end_tokens(self.tokenizer, self.eos_ids, config.stop)
        return [DocumentSpans.build(self.tokenizer, _passage_texts(r), self._ends[key]) for r in requests]

    def _record(self, step: Step, running: list[_Running], config: DecodingConfig) -> None:
        stops = [*config.stop, "\n"] if config.extractive else config.stop  # an extractive answer ends at a newline
        values = {
            "tokens": step.tokens.tolist(),
            "rho": step.fusion.rho.tolist(),
            "eta": step.fusion.eta.tolist(),
            "conflict": None if step.fusion.conflict is None else step.fusion.conflict.tolist(),
            "p_full": step.p_full.tolist(),
            "p_ref": None if step.p_ref is None else step.p_ref.tolist(),
            "q": step.q.tolist(),
        }
        for i, question in enumerate(step.questions):
            r = running[question]
            if r.finish is not None:
                continue
            token = values["tokens"][i]
            r.trace.append(
                TraceStep(
                    token_id=token,
                    token=self.tokenizer.decode([token]),
                    conflict=None if values["conflict"] is None else values["conflict"][i],
                    rho=values["rho"][i],
                    eta=values["eta"][i],
                    p_full=values["p_full"][i],
                    p_ref=None if values["p_ref"] is None else values["p_ref"][i],
                    q=values["q"][i],
                )
            )
            if token in self.eos_ids:
                r.finish = "eos"
                continue
            r.tokens.append(token)
            r.text = self.tokenizer.decode(r.tokens, skip_special_tokens=True)
            cut = _reply_end(r.text, stops, self.turn_ends)
            if cut >= 0:
                r.text = r.text[:cut]
                r.finish = "stop"

    def _results(self, running: Sequence[_Running], method: Method, config: DecodingConfig,
                 gains: Sequence[Sequence[float]] | None, judge: bool = True) -> list[GenerationResult]:
        """The results of a batch: its answers, their citations and support (one scoring pass for the batch), and
        abstention where no passage supports an answer (``gains``: :meth:`question_gains`; None: attribution off).
        Without ``judge`` every decoded answer is shown, for :meth:`_judged` to withhold once its support is final."""
        answers = [Answer(r.request.question, r.request.documents, r.request.numbers, r.tokens, r.text.strip(),
                          [math.log(max(s.p_full, 1e-30)) for s in r.trace[:len(r.tokens)]], r.finish == "length")
                   for r in running]
        if gains is not None:
            decoded = [a for a, r in zip(answers, running) if r.finish != "abstain"]
            evidence = iter(passage_evidence(self.model, self.tokenizer, self.pad_id, decoded, config))
        out = []
        for r, answer, g in zip(running, answers, gains if gains is not None else [None] * len(running)):
            cited = [k for k in find_citations(answer.text, max(answer.numbers)) if k in answer.numbers]
            citations, support_ = model_citations(answer, cited), None
            if g is not None and r.finish != "abstain":
                offsets = token_offsets(self.tokenizer, answer.token_ids, answer.text)
                rows = next(evidence)
                found = cite(answer, rows, offsets, g)
                citations = sorted(found + citations, key=lambda c: (c.answer_start, c.kind == "model"))
                support_ = support(answer, rows, offsets, g)
            elif g is not None:
                support_ = round(support_of(max(g)), 4)
            out.append(self._result(r, method, answer.text, citations, support_, config, judge))
        return out

    def _result(self, r: _Running, method: Method, text: str, citations: list[Citation], support_: float | None,
                config: DecodingConfig, judge: bool = True) -> GenerationResult:
        req = r.request
        withheld = r.finish == "abstain" or (judge and _abstains(config, support_, req))
        return GenerationResult(
            text=config.abstention_text if withheld else text,
            token_ids=r.tokens,
            trace=r.trace,
            trust=req.trust,
            trust_source="scores" if req.scores is not None else "no scores: trust fixed to 1",
            method=method.name,
            finish_reason="abstain" if withheld else r.finish or "length",
            prompts=req.prompts,
            prompt_tokens=len(req.token_ids[0]) if req.token_ids else 0,
            documents=req.documents,
            dropped_documents=req.dropped,
            irrelevant_documents=req.irrelevant,
            withheld=req.withheld,
            document_numbers=req.numbers,
            citations=[] if withheld else citations,
            support=support_,
            abstained=withheld,
            unsupported_answer=text if withheld and r.finish != "abstain" else None,
        )

    @staticmethod
    def _config(config: DecodingConfig | None, overrides: dict[str, Any]) -> DecodingConfig:
        """The call's settings, validated again: a config edited with ``model_copy(update=...)`` (as
        framework wrappers do) skips pydantic's checks, so it is rebuilt through them here."""
        base = DecodingConfig() if config is None else config
        if isinstance(base, (list, tuple)):
            raise InputError(f"config is a {type(base).__name__}, not a DecodingConfig: generate_batch takes one list "
                             "of requests, each {'question': q, 'documents': [...]}; generate takes the question, then "
                             "its documents")
        if not isinstance(base, DecodingConfig):
            raise InputError(f"config is a {type(base).__name__}; pass a DecodingConfig (or settings as keywords)")
        return base.override(**overrides)

    # ----------------------------------------------------------------- public API
    def generate(
        self,
        question: str,
        documents: Sequence[DocumentLike],
        scores: Sequence[float] | None = None,
        config: DecodingConfig | None = None,
        **overrides: Any,
    ) -> GenerationResult:
        """Answer one question from its documents; ``overrides`` are DecodingConfig fields."""
        return self.generate_batch([{"question": question, "documents": documents, "scores": scores}], config, **overrides)[0]

    def generate_batch(
        self,
        requests: Sequence[Mapping[str, Any]],
        config: DecodingConfig | None = None,
        **overrides: Any,
    ) -> list[GenerationResult]:
        """Answer many questions in one batched decode (2 rows per question for grounded methods).

        Each request is a mapping with ``question``, ``documents`` and optional ``scores``. Three engine
        switches exist for checks and benchmarks: ``use_cache=False`` recomputes every step without a
        KV cache; ``share_prefix=False`` prefills the two prompts separately; ``ragged`` forces the
        unpadded per-prompt prefill on (the CPU default) or off (the padded batch, the GPU default); ``graphs``
        turns the static-cache decode (:mod:`grounded_rag.graphs`; the GPU default) on or off; ``tree`` the one-pass
        prefill of each question's streams (:func:`~grounded_rag.prefill.prefill`; the GPU default).
        """
        engine = {k: overrides.pop(k) for k in ("use_cache", "share_prefix", "ragged", "tree") if k in overrides}
        if "graphs" in overrides:
            engine["graphs"] = self._graph_pool(overrides.pop("graphs"))
        cfg = self._config(config, overrides)
        method = get_method(cfg.method)
        if not requests:
            return []
        return self.answer(self.plan(requests, cfg, method), cfg, method, **engine)  # type: ignore[arg-type]

    def answer(self, requests: Sequence[Request], config: DecodingConfig, method: Method,
               gone: Callable[[], Sequence[bool]] | None = None, **engine: Any) -> list[GenerationResult]:
        """Planned requests (:meth:`plan`) answered in one batched decode: abstention where no passage is about a
        question (nothing to decode), then the engine, then each answer's citations and support. ``gone`` (a server's:
        which requests' clients have left) is read at every token, and such a request's row leaves the batch."""
        gains = self.question_gains(requests) if config.attribute else None
        running = [_Running(r) for r in requests]
        todo = [i for i, r in enumerate(requests)
                if gains is None or not _abstains(config, support_of(max(gains[i])), r)]
        for i in set(range(len(requests))) - set(todo):
            running[i].finish = "abstain"
        if todo:
            for decoded in self._run([requests[i] for i in todo], config, method, **engine):
                left = gone() if gone is not None else ()
                for j in (j for j, i in enumerate(todo) if i < len(left) and left[i]):
                    decoded[j].finish = decoded[j].finish or "length"  # nobody reads it: cut, as at the limit
            for i, r in zip(todo, decoded):
                running[i] = r
        results = self._conflicts(requests, self._results(running, method, config, gains, judge=False), config, gains)
        return self._second_looks(requests, _judged(results, requests, config), config, method, gains, **engine)

    def _conflicts(self, requests: Sequence[Request], results: list[GenerationResult], config: DecodingConfig,
                   gains: Sequence[Sequence[float]] | None) -> list[GenerationResult]:
        """Each shown answer with the kept passages that, asked the question alone, answer otherwise
        (grounded_rag.conflicts): every such passage of the batch read in one short standard decode."""
        if gains is None or not config.check_conflicts:
            return results
        asks = [(i, j) for i, (request, result) in enumerate(zip(requests, results))
                for j in candidates(request.question, result, gains[i])]
        if not asks:
            return results
        alone = config.override(method="standard", max_new_tokens=min(ALONE_TOKENS, config.max_new_tokens),
                                screen_instructions=False, relevance_margin=None, support_threshold=None,
                                quote_threshold=None, insist_beta=None, extractive=False, check_conflicts=False)
        answers = self.generate_batch([{"question": requests[i].question, "documents": [results[i].documents[j]]}
                                       for i, j in asks], alone)
        threshold = SUPPORT_THRESHOLD if config.support_threshold is None else config.support_threshold
        found: dict[int, list[tuple[int, GenerationResult]]] = {}
        for (i, j), other in zip(asks, answers):
            if disagrees(requests[i].question, results[i].text, other, threshold):
                found.setdefault(i, []).append((j, other))
        return [with_conflicts(r, q.question, found.get(i, [])) for i, (q, r) in enumerate(zip(requests, results))]

    def _second_looks(self, requests: Sequence[Request], results: list[GenerationResult], config: DecodingConfig,
                      method: Method, gains: Sequence[Sequence[float]] | None,
                      **engine: Any) -> list[GenerationResult]:
        """An answer decoded and then withheld for its support gets up to two second looks, each one batch of the
        withheld answers only: with ``insist_beta``, decoded again taking its passages at their word; then, with
        ``quote_threshold``, decoded as a verbatim span of a passage. A second answer is shown where its own support
        reaches the threshold and it says more than the question."""
        if gains is None or config.extractive:
            return results
        if config.insist_beta is not None and "trusted" in method.reads:
            # the screened prompts stay; only the rule changes: the trusted documents' contrast, the question gate off
            insisting = config.override(trusted_beta=config.insist_beta)
            threshold = max(INSIST_THRESHOLD, config.support_threshold or 0.0)
            results = self._second_look(requests, results, insisting, method, gains, threshold, "insisted",
                                        trusted=True, **engine)
        if config.quote_threshold is not None:
            quoting = config.override(extractive=True,
                                      support_threshold=max(config.quote_threshold, config.support_threshold or 0.0))
            results = self._second_look(requests, results, quoting, method, gains, quoting.support_threshold or 0.0,
                                        "quoted", **engine)
        return results

    def _second_look(self, requests: Sequence[Request], results: list[GenerationResult], retry: DecodingConfig,
                     method: Method, gains: Sequence[Sequence[float]], threshold: float, mark: str,
                     trusted: bool = False, **engine: Any) -> list[GenerationResult]:
        """The withheld answers decoded again under ``retry`` (``trusted``: as if the caller had written their
        passages), each shown where it reaches ``threshold`` and tells more than the question (a quote that
        restates the question, "The Red Planet" for "Which planet is known as the Red Planet?", tells nothing);
        ``mark`` names the result's field that says so, and ``unsupported_answer`` keeps the first answer."""
        redo = [i for i, res in enumerate(results) if res.abstained and res.unsupported_answer is not None]
        if not redo:
            return results
        again = [_taken_at_word(requests[i]) if trusted else requests[i] for i in redo]
        for decoded in self._run(again, retry, method, **engine):
            pass
        seconds = self._results(decoded, method, retry, [gains[i] for i in redo])
        out = list(results)
        for i, second in zip(redo, seconds):
            cut = second.finish_reason == "length"
            if (not second.abstained and second.support is not None and second.support >= threshold
                    and says_more_than(requests[i].question, second.text, cut)):
                out[i] = second.model_copy(update={mark: True, "unsupported_answer": results[i].unsupported_answer})
        return out

    def stream(
        self,
        question: str,
        documents: Sequence[DocumentLike],
        scores: Sequence[float] | None = None,
        config: DecodingConfig | None = None,
        **overrides: Any,
    ) -> Iterator[str]:
        """Yield the answer's text in pieces as tokens are decoded; the pieces join to ``generate``'s text."""
        for piece, _ in self.stream_with_result(question, documents, scores, config, **overrides):
            if piece:
                yield piece

    def stream_with_result(
        self,
        question: str,
        documents: Sequence[DocumentLike],
        scores: Sequence[float] | None = None,
        config: DecodingConfig | None = None,
        **overrides: Any,
    ) -> Iterator[tuple[str, GenerationResult | None]]:
        """Like :meth:`stream`, and the last item carries the full result (for integrations)."""
        cfg = self._config(config, overrides)
        method = get_method(cfg.method)
        yield from self.stream_answer(self.prepare(question, documents, scores, cfg, method), cfg, method)

    def stream_answer(self, request: Request, config: DecodingConfig, method: Method
                      ) -> Iterator[tuple[str, GenerationResult | None]]:
        """A planned request's (:meth:`plan`) answer in pieces as it is decoded; the last item carries the result.
        Every decoded token yields, with ``""`` while there is nothing new to show (an answer held until it is known to
        stand), so a consumer whose client has gone can stop between any two tokens."""
        cfg = config
        gains = self.question_gains([request]) if cfg.attribute else None
        if gains is not None and _abstains(cfg, support_of(max(gains[0])), request):
            final = self._results([_Running(request, finish="abstain")], method, cfg, gains)[0]
            yield final.text, final
            return
        # with abstention on, an answer may yet be withheld until its last word is known: it is shown whole, at the
        # end; without (support_threshold=None, or passages the caller wrote), it streams as it is decoded
        held = gains is not None and _abstains(cfg, 0.0, request)
        sent = ""
        stops = [*cfg.stop, *self.turn_ends]
        running: list[_Running] = []
        for running in self._run([request], cfg, method):
            r = running[0]
            text = r.text.lstrip() if r.finish is None else r.text.strip()
            safe = _stable_prefix(text, stops) if r.finish is None else text
            if not held and len(safe) > len(sent) and safe.startswith(sent):
                yield safe[len(sent) :], None
                sent = safe
            else:
                yield "", None
        results = self._conflicts([request], self._results(running, method, cfg, gains, judge=False), cfg, gains)
        final = self._second_looks([request], _judged(results, [request], cfg), cfg, method, gains)[0]
        tail = final.text[len(sent) :] if final.text.startswith(sent) else ""
        yield tail, final


def _judged(results: Sequence[GenerationResult], requests: Sequence[Request], config: DecodingConfig
            ) -> list[GenerationResult]:
    """Each decoded answer withheld where its final support (shared with any passage that answers otherwise) is below
    the threshold: the abstention, with the answer kept aside and the conflicts still listed."""
    return [r.model_copy(update={"text": config.abstention_text, "abstained": True, "finish_reason": "abstain",
                                 "unsupported_answer": r.text, "citations": []})
            if not r.abstained and _abstains(config, r.support, q) else r for r, q in zip(results, requests)]


def _taken_at_word(request: Request) -> Request:
    """The request as planned (its passages screened, its prompts rendered), with every passage marked the caller's
    own: the default then decodes it with the trusted documents' rule."""
    return replace(request, documents=[d.model_copy(update={"trusted": True}) for d in request.documents])


def _abstains(config: DecodingConfig, support_: float | None, request: Request) -> bool:
    """An answer with this support is withheld: abstention is on, the support is below its threshold, and the
    request reads retrieved text (passages the caller wrote all of may be instructions, about anything)."""
    threshold = config.support_threshold
    return threshold is not None and support_ is not None and support_ < threshold and not request.trusted


@lru_cache(maxsize=4)
def load_shared(model: str | None = None, backend: str = "auto") -> GroundedDecoder:
    """One loaded decoder per process, model name and backend, shared by every framework wrapper."""
    return GroundedDecoder.from_pretrained(model, backend=backend)


def _reply_end(text: str, stops: Sequence[str], turn_ends: Sequence[str]) -> int:
    """Where the reply ends in ``text``: at its first stop string, or at a turn end once the reply has begun (a
    blank line before any word is where a reply opens, not where it ends); -1 where it goes on."""
    begun = len(text) - len(text.lstrip())
    found = [i for i in (text.find(s) for s in stops) if i >= 0]
    found += [i for i in (text.find(s, begun) for s in turn_ends) if i >= 0]
    return min(found, default=-1)


def _stable_prefix(text: str, stops: Sequence[str]) -> str:
    """Text that can no longer change: hold back an incomplete character, trailing whitespace
    (it may be stripped at the end) and any tail that could still grow into a stop string."""
    keep = len(text.rstrip())
    if text[:keep].endswith("\ufffd"):
        keep -= 1
    for stop in stops:
        for n in range(min(len(stop) - 1, keep), 0, -1):
            if text[:keep].endswith(stop[:n]):
                keep = min(keep, len(text[:keep]) - n)
                break
    return text[:max(keep, 0)]
