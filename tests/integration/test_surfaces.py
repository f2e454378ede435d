"""Every surface gives the same answer for the same documents: the decoder, its stream, LlamaIndex (query engine,
streaming, async, the context chat engine), LangChain's chat model, the OpenAI-compatible server through the OpenAI
client, and ``grounded-rag ask``. The request is a user's: a fact stated plainly in one passage, retrieved beside two
about other things, with the retriever's scores (read once, from the LlamaIndex index, and handed to every other
surface as they are)."""

from __future__ import annotations

import asyncio
import subprocess
import sys

import openai
import pytest
from langchain_core.documents import Document as LCDocument
from langchain_grounded_rag import ChatGroundedRAG
from llama_index.core import Document as LIDocument
from llama_index.core import VectorStoreIndex
from llama_index.llms.grounded_rag import GroundedRAG, packaged_embedding

from .test_serving import local_server

QUESTION = "What is the codename of the new lunar rover?"
PASSAGES = ["The new lunar rover has the codename Bluefinch. It was designed by the Mars Systems team in 2024.",
            "The cafeteria opens at 8 am and serves lunch until 2 pm.",
            "Staff connect to the office network with the Tunnelstone VPN client."]
TOKENS = 32


@pytest.fixture(scope="module")
def index() -> VectorStoreIndex:
    return VectorStoreIndex.from_documents([LIDocument(text=t) for t in PASSAGES], embed_model=packaged_embedding())


@pytest.fixture(scope="module")
def llm() -> GroundedRAG:
    return GroundedRAG(max_tokens=TOKENS)


@pytest.fixture(scope="module")
def retrieved(index, llm) -> tuple[str, list[str], list[float]]:
    """The LlamaIndex query engine's answer, and the passages and cosine scores it read (every surface's input)."""
    response = index.as_query_engine(llm=llm, similarity_top_k=3).query(QUESTION)
    nodes = response.source_nodes
    return response.response, [n.node.get_content() for n in nodes], [n.score for n in nodes]


@pytest.fixture(scope="module")
def expected(decoder, retrieved) -> str:
    _, texts, scores = retrieved
    result = decoder.generate(QUESTION, texts, scores, max_new_tokens=TOKENS)
    assert "Bluefinch" in result.text and not result.abstained and not result.withheld, result
    return result.text


def test_the_decoder_and_its_stream(decoder, retrieved, expected):
    _, texts, scores = retrieved
    assert "".join(decoder.stream(QUESTION, texts, scores, max_new_tokens=TOKENS)) == expected


def test_llama_index_query_engine_streaming_async_and_chat(index, llm, retrieved, expected):
    answered, _, _ = retrieved
    assert answered == expected
    streamed = index.as_query_engine(llm=llm, similarity_top_k=3, streaming=True).query(QUESTION)
    assert "".join(streamed.response_gen) == expected
    engine = index.as_query_engine(llm=llm, similarity_top_k=3)
    assert asyncio.run(engine.aquery(QUESTION)).response == expected
    chat = index.as_chat_engine(chat_mode="context", llm=llm, similarity_top_k=3)
    assert chat.chat(QUESTION).response == expected
    assert "".join(chat.stream_chat(QUESTION).response_gen) == expected


def test_langchain_chat_model(retrieved, expected):
    _, texts, scores = retrieved
    docs = [LCDocument(page_content=t, metadata={"relevance_score": s}) for t, s in zip(texts, scores)]
    message = ChatGroundedRAG(max_tokens=TOKENS).invoke(QUESTION, documents=docs)
    assert message.content == expected and message.response_metadata["support"] is not None


def test_the_server_through_the_openai_client(decoder, retrieved, expected):
    _, texts, scores = retrieved
    with local_server(decoder) as (url, _):
        client = openai.OpenAI(base_url=f"{url}/v1", api_key="unused", max_retries=0)
        reply = client.chat.completions.create(
            model=decoder.name, max_tokens=TOKENS, messages=[{"role": "user", "content": QUESTION}],
            extra_body={"documents": [{"text": t, "score": s} for t, s in zip(texts, scores)]})
    assert reply.choices[0].message.content == expected


def test_ask(retrieved, expected):
    _, texts, scores = retrieved
    argv = [sys.executable, "-m", "grounded_rag.cli", "ask", QUESTION, "--max-new-tokens", str(TOKENS), "--local"]
    for text, score in zip(texts, scores):
        argv += ["--doc", text, "--score", f"{score!r}"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n\n")[0].strip() == expected
