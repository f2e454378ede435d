"""A prompt that keeps the question and the retrieved documents (with scores) apart.

The LangChain RAG tutorial's chain stuffs the documents into prompt text, which leaves a grounded
decoder nothing to ground on. With :class:`GroundedPromptTemplate` the same chain shape stays
grounded::

    chain = {"context": retriever, "question": RunnablePassthrough()} | GroundedPromptTemplate() | llm | StrOutputParser()

Its prompt value renders as an ordinary RAG prompt for any other model, and carries the question
and the documents (on the trust scale) to ``GroundedRAGLLM`` and ``ChatGroundedRAG``.
"""

from __future__ import annotations

import warnings
from typing import Any

from langchain_core.documents import Document as LCDocument
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from langchain_core.prompt_values import ChatPromptValue
from langchain_core.prompts import BasePromptTemplate

from grounded_rag import Document, GroundedRAGWarning, InputError
from grounded_rag.prompts import format_documents
from grounded_rag.trust import DistanceSpace

from ._common import to_documents

KEY = "grounded_rag"  # in the human message's additional_kwargs


class GroundedPromptValue(ChatPromptValue):
    """Messages for any chat model, plus the question and documents for a grounded one."""

    question: str
    documents: list[dict[str, Any]]  # grounded_rag Document fields; score on the trust scale

    def grounded(self) -> tuple[str, list[Document]]:
        return self.question, [Document(**d) for d in self.documents]


def grounded_payload(messages: list[BaseMessage]) -> dict[str, Any] | None:
    """The question and documents a GroundedPromptValue put in its messages, if any."""
    for m in reversed(messages):
        payload = m.additional_kwargs.get(KEY) if isinstance(m, HumanMessage) else None
        if payload:
            return payload
    return None


class GroundedPromptTemplate(BasePromptTemplate):
    """``{"question": str, "context": documents}`` -> a :class:`GroundedPromptValue`.

    ``context`` is what a retriever returns (LangChain Documents, with
    ``metadata["relevance_score"]`` from :class:`ScoredRetriever`), ``(Document, score)`` pairs
    from ``similarity_search_with_score`` (declare ``score_space``), or strings. A single string
    (documents already joined, e.g. by ``format_docs``) still works, split on ``separator``, but
    without scores, and with a warning.
    """

    input_variables: list[str] = ["context", "question"]
    question_key: str = "question"
    context_key: str = "context"
    score_space: DistanceSpace | None = None
    separator: str = "\n\n"
    system_prompt: str | None = None  # None: the grounded model's own (DecodingConfig.system_prompt)

    @property
    def _prompt_type(self) -> str:
        return "grounded-rag"

    def _check(self, kwargs: Any) -> None:
        missing = [k for k in (self.question_key, self.context_key) if not isinstance(kwargs, dict) or k not in kwargs]
        if missing:
            raise InputError(
                f"GroundedPromptTemplate needs {missing}; build the input as "
                f'{{"{self.context_key}": retriever, "{self.question_key}": RunnablePassthrough()}}'
            )

    def _validate_input(self, inner_input: Any) -> dict[str, Any]:
        self._check({**self.partial_variables, **inner_input} if isinstance(inner_input, dict) else inner_input)
        return super()._validate_input(inner_input)

    def format_prompt(self, **kwargs: Any) -> GroundedPromptValue:
        kwargs = self._merge_partial_and_user_variables(**kwargs)
        self._check(kwargs)
        question = kwargs[self.question_key]
        if not isinstance(question, str):
            raise InputError(f"the question is a {type(question).__name__}; pass the user's question as a string")
        context = kwargs[self.context_key]
        if isinstance(context, str):
            warnings.warn(
                "the context reached GroundedPromptTemplate as one string, so the documents' scores are lost "
                "(trust fixed to 1); pass the retriever's Documents as 'context' (drop format_docs)",
                GroundedRAGWarning, stacklevel=2)
            context = [p for p in context.split(self.separator) if p.strip()]
        elif isinstance(context, LCDocument):
            context = [context]
        docs, scores = to_documents(list(context or []), None, self.score_space)
        if scores is not None:
            docs = [d.model_copy(update={"score": s}) for d, s in zip(docs, scores)]
        payload = {"question": question, "documents": [d.model_dump() for d in docs]}
        user = f"Documents:\n{format_documents(docs)}\n\nQuestion: {question}" if docs else f"Question: {question}"
        messages: list[BaseMessage] = [SystemMessage(content=self.system_prompt)] if self.system_prompt else []
        messages.append(HumanMessage(content=user, additional_kwargs={KEY: payload}))
        return GroundedPromptValue(messages=messages, **payload)

    def format(self, **kwargs: Any) -> str:
        return self.format_prompt(**kwargs).to_string()
