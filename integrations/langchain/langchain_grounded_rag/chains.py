"""One-call LCEL builder: ``{"input" | "question"} -> {..., "context", "answer", "citations", "cited_documents",
"support", "abstained", "quoted", "insisted", "trust"}``."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.documents import Document
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import SystemMessage
from langchain_core.output_parsers import BaseOutputParser, StrOutputParser
from langchain_core.prompts import BasePromptTemplate
from langchain_core.retrievers import BaseRetriever
from langchain_core.outputs import LLMResult
from langchain_core.runnables import Runnable, RunnableConfig, RunnableLambda, RunnablePassthrough, RunnableSerializable
from langchain_core.runnables.config import ensure_config, patch_config
from langchain_core.runnables.utils import AddableDict

from pydantic import ConfigDict

from grounded_rag import InputError
from grounded_rag.trust import retrieval_trust
from grounded_rag.types import NO_DOCUMENTS_ANSWER

from ._common import to_documents
from .citations import cited_documents
from .chat_models import ChatGroundedRAG
from .llms import GroundedRAGLLM
from .prompts import GroundedPromptTemplate, GroundedPromptValue

def question_of(inputs: Any) -> str:
    """The question of a chain input: ``{"input": q}`` (LangChain's retrieval chains) or ``{"question": q}``."""
    if isinstance(inputs, dict):
        for key in ("input", "question"):
            if isinstance(inputs.get(key), str):
                return inputs[key]
    raise InputError(f'the chain takes the question as a string, {{"input": question}} or {{"question": question}}, '
                     f"got {inputs!r}")


def _inputs(value: Any) -> dict[str, Any]:
    """A chain input as a dict: a plain question becomes ``{"input": question}``, as LCEL chains take strings."""
    if isinstance(value, str):
        return {"input": value}
    question_of(value)  # anything else must carry its question
    return value


class _Grounding(BaseCallbackHandler):
    """Keeps the grounding facts (the decoder's result metadata: citations, support, abstention) of the one model
    run it is attached to, for the chain's output; LLMs return plain text, so their run's end is where they are."""

    def __init__(self) -> None:
        self.metadata: dict[str, Any] = {}

    def on_llm_end(self, response: LLMResult, **kwargs: Any) -> None:
        if response.generations and response.generations[0]:
            generation = response.generations[0][0]
            message = getattr(generation, "message", None)
            self.metadata = dict(message.response_metadata if message is not None else generation.generation_info or {})


def _recording(config: RunnableConfig | None, recorder: _Grounding) -> RunnableConfig:
    """``config`` with ``recorder`` added to its callbacks (a list, a manager or none)."""
    config = ensure_config(config)
    callbacks = config.get("callbacks")
    if callbacks is None:
        callbacks = [recorder]
    elif isinstance(callbacks, list):
        callbacks = [*callbacks, recorder]
    else:
        callbacks = callbacks.copy()
        callbacks.add_handler(recorder, inherit=True)  # the model runs inside the prompt | model sequence
    return patch_config(config, callbacks=callbacks)


class _Answer(RunnableSerializable[dict, dict]):
    """Adds ``answer``, ``citations``, ``cited_documents``, ``support``, ``abstained``, ``quoted`` and ``insisted``:
    grounded prompt -> model, batched across inputs (one batched decode); a fixed notice when nothing was retrieved. A
    top-level step, so ``chain.batch`` reaches its batch."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    inner: Runnable

    def _prompt_input(self, inputs: dict) -> dict:
        return {"question": question_of(inputs), "context": inputs["context"]}

    def invoke(self, input: dict, config: RunnableConfig | None = None, **kwargs: Any) -> dict:
        return self.batch([input], config)[0]

    @staticmethod
    def _grounded(metadata: dict[str, Any], context: list[Document]) -> dict[str, Any]:
        """What the answer rests on, from the model run's grounding facts."""
        return {"citations": list(metadata.get("citations") or []),
                "cited_documents": cited_documents(metadata, context),
                "support": metadata.get("support"), "abstained": bool(metadata.get("abstained")),
                "quoted": bool(metadata.get("quoted")), "insisted": bool(metadata.get("insisted"))}

    def _merge(self, inputs: list[dict], answers: list[Any], todo: list[int], recorders: list[_Grounding]
               ) -> list[dict]:
        out = [AddableDict({**x, "answer": NO_DOCUMENTS_ANSWER, **self._grounded({}, [])}) for x in inputs]
        for i, a, recorder in zip(todo, answers, recorders):
            out[i].update(answer=a, **self._grounded(recorder.metadata, inputs[i]["context"]))
        return out

    def _configs(self, inputs: list[dict], config: Any) -> tuple[list[int], list[_Grounding], list[RunnableConfig]]:
        todo = [i for i, x in enumerate(inputs) if x["context"]]
        configs = config if isinstance(config, list) else [config] * len(inputs)
        recorders = [_Grounding() for _ in todo]
        return todo, recorders, [_recording(configs[i], r) for i, r in zip(todo, recorders)]

    def batch(self, inputs: list[dict], config: Any = None, *, return_exceptions: bool = False, **kwargs: Any) -> list[dict]:
        todo, recorders, configs = self._configs(inputs, config)
        answers = self.inner.batch([self._prompt_input(inputs[i]) for i in todo], configs,
                                   return_exceptions=return_exceptions) if todo else []
        return self._merge(inputs, answers, todo, recorders)

    async def ainvoke(self, input: dict, config: RunnableConfig | None = None, **kwargs: Any) -> dict:
        return (await self.abatch([input], config))[0]

    async def abatch(self, inputs: list[dict], config: Any = None, *, return_exceptions: bool = False, **kwargs: Any) -> list[dict]:
        todo, recorders, configs = self._configs(inputs, config)
        answers = await self.inner.abatch([self._prompt_input(inputs[i]) for i in todo], configs,
                                          return_exceptions=return_exceptions) if todo else []
        return self._merge(inputs, answers, todo, recorders)

    def stream(self, input: dict, config: RunnableConfig | None = None, **kwargs: Any) -> Iterator[dict]:
        yield AddableDict(input)
        if not input["context"]:
            yield AddableDict(answer=NO_DOCUMENTS_ANSWER, **self._grounded({}, []))
            return
        recorder = _Grounding()
        for piece in self.inner.stream(self._prompt_input(input), _recording(config, recorder)):
            yield AddableDict(answer=piece)
        yield AddableDict(self._grounded(recorder.metadata, input["context"]))

    async def astream(self, input: dict, config: RunnableConfig | None = None, **kwargs: Any) -> AsyncIterator[dict]:
        yield AddableDict(input)
        if not input["context"]:
            yield AddableDict(answer=NO_DOCUMENTS_ANSWER, **self._grounded({}, []))
            return
        recorder = _Grounding()
        async for piece in self.inner.astream(self._prompt_input(input), _recording(config, recorder)):
            yield AddableDict(answer=piece)
        yield AddableDict(self._grounded(recorder.metadata, input["context"]))


def create_stuff_documents_chain(llm: GroundedRAGLLM | ChatGroundedRAG, prompt: BasePromptTemplate, *,
                                 output_parser: BaseOutputParser | None = None,
                                 document_variable_name: str = "context") -> Runnable:
    """Drop-in for ``langchain_classic.chains.combine_documents.create_stuff_documents_chain`` with a
    grounded model: the documents reach the model as documents (with their scores), not stuffed
    into the prompt text, so the docs' pattern stays grounded with one changed import::

        question_answer_chain = create_stuff_documents_chain(llm, prompt)   # from langchain_grounded_rag
        rag_chain = create_retrieval_chain(retriever, question_answer_chain)
        rag_chain.invoke({"input": question})["answer"]

    ``prompt``'s system message (rendered with an empty ``{context}``) becomes the system prompt;
    the question is ``input`` (or ``question``). ``batch`` is one batched decode.
    """
    if document_variable_name not in prompt.input_variables:
        raise InputError(f"the prompt has no {{{document_variable_name}}} variable (it has {prompt.input_variables}); "
                         "name the documents' variable with document_variable_name=")

    def grounded_prompt(inputs: dict[str, Any]) -> GroundedPromptValue:
        rendered = prompt.invoke({**inputs, document_variable_name: ""})
        systems = [m.text.strip() for m in rendered.to_messages() if isinstance(m, SystemMessage) and m.text.strip()]
        template = GroundedPromptTemplate(system_prompt="\n".join(systems) or None)
        return template.format_prompt(question=question_of(inputs), context=inputs[document_variable_name])

    return (RunnableLambda(grounded_prompt) | llm | (output_parser or StrOutputParser())).with_config(
        run_name="stuff_documents_chain")


def create_grounded_rag_chain(retriever: BaseRetriever, llm: GroundedRAGLLM | ChatGroundedRAG) -> Runnable:
    """Retrieve (scores kept), decode with the documents and their scores, report what the answer rests on.

    Takes the question (a string), ``{"input": q}`` or ``{"question": q}`` and returns, besides ``input`` and ``context``: ``answer``;
    ``citations`` (each answer span with the passage span it rests on, as ``GenerationResult.citations``: the
    passage's 1-based place in ``context`` is ``document``); ``cited_documents`` (the ``context`` documents the answer
    cites); ``support`` (0-1), ``abstained`` (no passage supports an answer: ``answer`` says so), ``quoted``
    (``answer`` is a span of a passage in place of a withheld answer: ``quote_threshold``) and ``insisted`` (it was
    decoded again taking the passages at their word: ``insist_beta``); ``trust``.
    Streams: ``chain.stream(...)`` yields the context, then answer pieces, then the rest. ``chain.batch`` decodes all
    questions in one batched decode. With no documents retrieved the answer is a fixed notice, ``trust`` is 0.0 and
    nothing is cited.
    """
    model = GroundedPromptTemplate() | llm
    if isinstance(llm, BaseChatModel):
        model = model | StrOutputParser()
    decoding = llm._base_config() if isinstance(llm, ChatGroundedRAG) else llm.decoding

    def trust(inputs: dict[str, Any]) -> float:
        docs: list[Document] = inputs["context"]
        if not docs:
            return 0.0
        _, scores = to_documents(docs, None)
        return retrieval_trust(scores, decoding.tau_r, decoding.gamma, decoding.b)

    return (
        RunnableLambda(_inputs)
        | RunnablePassthrough.assign(context=RunnableLambda(question_of) | retriever)
        | _Answer(inner=model)
        | RunnablePassthrough.assign(trust=RunnableLambda(trust))
    ).with_config(run_name="grounded_rag_chain")
