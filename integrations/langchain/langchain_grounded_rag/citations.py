"""The decoder's citations in LangChain's own terms: standard citation annotations on the message's text block
(``message.content_blocks``, and the content itself with ``output_version="v1"``), and the documents a chain's
answer cites."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.documents import Document
from langchain_core.messages import AIMessage, AIMessageChunk

PROVIDER = "grounded_rag"  # the response_metadata["model_provider"] of every grounded message


def annotations(metadata: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The result's span citations (``GenerationResult.metadata()["citations"]``) as LangChain ``Citation``
    annotations: ``start_index``/``end_index`` in the answer text, ``cited_text`` the passage span it rests on,
    ``url`` where the passage's source is one, and the passage's number, id and span in ``extras``."""
    from langchain_core.messages.content import create_citation  # noqa: PLC0415 - langchain-core >= 1.0

    out = []
    for c in metadata.get("citations") or []:
        source = c.get("source")
        extras = {k: c[k] for k in ("document", "document_id", "start", "end", "kind", "evidence") if k in c}
        if source and "://" not in source:
            extras["source"] = source
        out.append(create_citation(url=source if source and "://" in source else None,
                                   title=c.get("title") or source or f"Doc {c.get('document')}",
                                   start_index=c["answer_start"], end_index=c["answer_end"],
                                   cited_text=c.get("quote") or None, **extras))
    return out


def _blocks(message: AIMessage | AIMessageChunk) -> list[Any]:
    if not isinstance(message.content, str):
        raise NotImplementedError  # content blocks already: LangChain's own parsing reads them
    from langchain_core.messages.content import create_text_block  # noqa: PLC0415

    found = annotations(message.response_metadata)
    return [create_text_block(message.content, annotations=found or None)] if message.content or found else []


def register() -> None:
    """Let ``AIMessage.content_blocks`` read grounded messages' citations, where the installed langchain-core has
    provider translators (1.0 and later); older ones keep the citations in ``response_metadata`` only."""
    try:
        from langchain_core.messages.block_translators import register_translator  # noqa: PLC0415
    except ImportError:
        return
    register_translator(PROVIDER, _blocks, _blocks)


def cited_documents(metadata: Mapping[str, Any], context: Sequence[Document]) -> list[Document]:
    """The retrieved documents the answer cites, in order of first citation (a citation names its passage by its
    1-based place in ``context``)."""
    numbers = dict.fromkeys(c["document"] for c in metadata.get("citations") or [])
    return [context[k - 1] for k in numbers if 1 <= k <= len(context)]
