"""The pipelines users write from the LangChain docs, with the grounded models: real Chroma,
packaged embeddings and model. Each must decode grounded, over the retrieved documents and scores."""

import asyncio

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import HumanMessage
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import ConfigurableField, RunnablePassthrough
from langchain_grounded_rag import ChatGroundedRAG, GroundedPromptTemplate, GroundedRAGLLM, create_grounded_rag_chain

from grounded_rag import GroundedRAGWarning, InputError, pipeline

from ..conftest import CORPUS, QUESTION

QUESTIONS = [QUESTION, "What is the Colosseum?"]


@pytest.fixture(scope="module")
def chat() -> ChatGroundedRAG:
    return ChatGroundedRAG(max_tokens=8)


@pytest.fixture(scope="module")
def short_llm() -> GroundedRAGLLM:
    return GroundedRAGLLM(decoding={"max_new_tokens": 8})


class Infos(BaseCallbackHandler):
    def __init__(self):
        self.infos = []

    def on_llm_end(self, response, **kwargs):
        for gens in response.generations:
            self.infos.append(gens[0].generation_info or getattr(gens[0], "message", None).response_metadata)


class Batches:
    """The number of questions in each batched decode (the pipeline's answer stage, spied on): a batched chain call
    of n questions is one decode of n, not n decodes of one."""

    def __init__(self, monkeypatch):
        self.sizes: list[int] = []
        real = pipeline.answer

        def answer(lm, relevance, requests, *args, **kwargs):
            self.sizes.append(len(requests))
            return real(lm, relevance, requests, *args, **kwargs)

        monkeypatch.setattr(pipeline, "answer", answer)

    def taken(self) -> list[int]:
        sizes, self.sizes = self.sizes, []
        return sizes


@pytest.mark.parametrize("kind", ["llm", "chat"])
def test_tutorial_chain_with_grounded_prompt(kind, short_llm, chat, retriever):
    model = short_llm if kind == "llm" else chat
    infos = Infos()
    chain = {"context": retriever, "question": RunnablePassthrough()} | GroundedPromptTemplate() | model | StrOutputParser()
    answer = chain.invoke(QUESTION, config={"callbacks": [infos]})
    assert answer == short_llm.invoke(QUESTION, documents=retriever.invoke(QUESTION))
    assert infos.infos[0]["trust_source"] == "scores" and 0 < infos.infos[0]["trust"] < 1
    pieces = list(chain.stream(QUESTION))
    assert "".join(pieces) == answer
    streaming = chain.with_config(configurable={"support_threshold": None})  # without abstention: token by token
    assert len(list(streaming.stream(QUESTION))) > 2


def test_stuffed_text_is_never_silently_ungrounded(short_llm, chat, retriever):
    def format_docs(docs):
        return "\n\n".join(doc.page_content for doc in docs)

    prompt = ChatPromptTemplate.from_template("Answer the question using this context:\n{context}\n\nQuestion: {question}")
    stuffed = {"context": retriever | format_docs, "question": RunnablePassthrough()} | prompt
    with pytest.raises(InputError, match="GroundedPromptTemplate"):
        (stuffed | short_llm | StrOutputParser()).invoke(QUESTION)
    with pytest.warns(GroundedRAGWarning, match="standard decoding"):
        answer = (stuffed | chat | StrOutputParser()).invoke(QUESTION)
    assert answer
    with pytest.warns(GroundedRAGWarning, match="drop format_docs"):
        joined = ({"context": retriever | format_docs, "question": RunnablePassthrough()} | GroundedPromptTemplate()
                  | short_llm).invoke(QUESTION)
    assert joined == short_llm.invoke(QUESTION, documents=[d.page_content for d in retriever.invoke(QUESTION)])


def test_a_retrieval_that_found_nothing_gets_the_notice_not_a_guess(chat):
    """``documents=[]`` (a retriever that found nothing) was answered by standard decoding, an invented answer with
    only a warning; it gets the notice the chain and the LlamaIndex wrapper give, in both call styles."""
    import warnings

    from grounded_rag.types import NO_DOCUMENTS_ANSWER

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        message = chat.invoke(QUESTION, documents=[])
        streamed = "".join(chunk.text for chunk in chat.stream(QUESTION, documents=[]))
    assert message.content == streamed == NO_DOCUMENTS_ANSWER
    assert message.response_metadata["grounded"] and message.response_metadata["fallback"]


def test_chat_prompt_reaches_the_llm_as_the_question(short_llm):
    prompt = ChatPromptTemplate.from_messages([("system", "Be brief."), ("human", "{question}")])
    out = (prompt | short_llm.bind(documents=CORPUS)).invoke({"question": QUESTION})
    assert out == short_llm.invoke(QUESTION, documents=CORPUS), "a ChatPromptValue must not arrive as 'Human: ...'"


@pytest.mark.parametrize("kind", ["llm", "chat"])
def test_chain_batch_is_one_batched_decode(kind, short_llm, chat, retriever, monkeypatch):
    model = short_llm if kind == "llm" else chat
    chain = {"context": retriever, "question": RunnablePassthrough()} | GroundedPromptTemplate() | model | StrOutputParser()
    batches = Batches(monkeypatch)
    one_by_one = [chain.invoke(q) for q in QUESTIONS]
    assert batches.taken() == [1] * len(QUESTIONS)
    assert chain.batch(QUESTIONS) == one_by_one
    assert batches.taken() == [len(QUESTIONS)], "both questions decoded in one batch"
    assert asyncio.run(chain.abatch(QUESTIONS)) == one_by_one
    assert batches.taken() == [len(QUESTIONS)]


def test_create_grounded_rag_chain_takes_question_or_input_and_batches(chat, short_llm, retriever, monkeypatch):
    chain = create_grounded_rag_chain(retriever, chat)
    by_question = chain.invoke({"question": QUESTION})
    by_input = chain.invoke({"input": QUESTION})
    assert by_question["answer"] == by_input["answer"] == short_llm.invoke(QUESTION, documents=by_input["context"])
    assert chain.invoke(QUESTION) == {**by_input, "input": QUESTION}  # a plain question, as LCEL chains take
    assert 0 < by_question["trust"] < 1
    batches = Batches(monkeypatch)
    out = chain.batch([{"input": q} for q in QUESTIONS])
    assert batches.taken() == [len(QUESTIONS)], "the questions decoded in one batch"
    assert out[0]["answer"] == by_input["answer"]
    with pytest.raises(InputError, match='"question"'):
        chain.invoke({"query": QUESTION})
    with pytest.raises(InputError, match="as a string"):
        chain.invoke(["not", "a question"])


def test_create_retrieval_chain_pattern_from_the_docs(chat, retriever):
    """LangChain's docs pattern, verbatim but for one import: our create_stuff_documents_chain."""
    from langchain_classic.chains import create_retrieval_chain
    from langchain_classic.chains.combine_documents import create_stuff_documents_chain as classic_stuff
    from langchain_core.messages import SystemMessage

    from langchain_grounded_rag import create_stuff_documents_chain

    system_prompt = (
        "You are an assistant for question-answering tasks. "
        "Use the following pieces of retrieved context to answer "
        "the question. If you don't know the answer, say that you "
        "don't know. Use three sentences maximum and keep the "
        "answer concise."
        "\n\n"
        "{context}"
    )
    prompt = ChatPromptTemplate.from_messages([("system", system_prompt), ("human", "{input}")])
    question_answer_chain = create_stuff_documents_chain(chat, prompt)
    rag_chain = create_retrieval_chain(retriever, question_answer_chain)
    response = rag_chain.invoke({"input": QUESTION})
    system = system_prompt.replace("{context}", "").strip()
    want = chat.invoke([SystemMessage(system), HumanMessage(QUESTION)], documents=response["context"])
    assert response["answer"] == want.content and want.response_metadata["trust_source"] == "scores"
    assert [r["answer"] for r in rag_chain.batch([{"input": q} for q in QUESTIONS])][0] == response["answer"]
    # the classic builder stuffs the documents into the system message: answered, but never silently grounded
    with pytest.warns(GroundedRAGWarning, match="langchain_grounded_rag.create_stuff_documents_chain"):
        assert create_retrieval_chain(retriever, classic_stuff(chat, prompt)).invoke({"input": QUESTION})["answer"]
    with pytest.raises(InputError, match="no {context} variable"):
        create_stuff_documents_chain(chat, ChatPromptTemplate.from_messages([("human", "{input}")]))


def test_scored_pairs_need_an_explicit_space(short_llm, store, retriever):
    pairs = store.similarity_search_with_score(QUESTION, k=3)
    via_pairs = short_llm.invoke(QUESTION, documents=pairs, score_space="l2")
    assert via_pairs == short_llm.invoke(QUESTION, documents=retriever.invoke(QUESTION))
    with pytest.raises(InputError, match="score_space"):
        short_llm.invoke(QUESTION, documents=pairs)
    with pytest.raises(InputError, match="outside the cosine range"):
        short_llm.invoke(QUESTION, documents=[(CORPUS[0], 3.5)], score_space="relevance")


def test_conventions(short_llm, chat):
    tokenizer = short_llm.decoder.tokenizer
    assert short_llm.get_num_tokens(QUESTION) == len(tokenizer.encode(QUESTION, add_special_tokens=False)) > 0
    assert chat.get_num_tokens(QUESTION) > 0
    rendered = tokenizer.apply_chat_template([{"role": "user", "content": QUESTION}], add_generation_prompt=True,
                                             tokenize=False)
    assert chat.get_num_tokens_from_messages([HumanMessage(QUESTION)]) == len(
        tokenizer(rendered, add_special_tokens=False)["input_ids"]), "the model's own chat template"
    for model, kind in ((short_llm, "llm"), (chat, "chat")):
        params = model._get_ls_params()
        assert params["ls_provider"] == "grounded_rag" and params["ls_model_type"] == kind
        assert params["ls_model_name"] and params["ls_temperature"] == 0.0 and params["ls_max_tokens"] == 8
    with pytest.raises(InputError, match="unknown keyword"):
        short_llm.invoke(QUESTION, documents=CORPUS, rho_mx=16)
    with pytest.raises(InputError, match="rho_mx"):
        GroundedRAGLLM(decoding={"rho_mx": 16})
    with pytest.raises(InputError, match="unknown keyword"):
        chat.invoke(QUESTION, documents=CORPUS, rho_mx=16)
    with pytest.raises(InputError, match="empty page_content"):
        short_llm.invoke(QUESTION, documents=[CORPUS[0].model_copy(update={"page_content": " "})])
    with pytest.raises(NotImplementedError, match="output parser"):
        chat.with_structured_output(dict)


def test_configurable_decoding_fields(short_llm):
    configurable = short_llm.configurable_fields(decoding=ConfigurableField(id="decoding"))
    # without abstention: an answer cut after two tokens says nothing a passage could support
    free = short_llm.generate([QUESTION], documents=CORPUS, support_threshold=None).generations[0][0]
    cut = configurable.with_config(configurable={"decoding": {"max_new_tokens": 2, "support_threshold": None}}).invoke(
        QUESTION, documents=CORPUS)
    assert free.text.startswith(cut) and len(cut) < len(free.text)


@pytest.mark.parametrize("kind", ["llm", "chat"])
def test_with_config_configurable_decoding_settings_reach_the_decoder(kind, short_llm, chat, retriever):
    """with_config(configurable={"method": ...}) on the model, or on a chain around it, is a per-call setting."""
    model = short_llm if kind == "llm" else chat
    infos = Infos()
    settings = {"method": "cad", "beta": 2.0, "thread_id": "other runnables' key, ignored"}
    configured = model.with_config(configurable=settings, callbacks=[infos])
    want = model.invoke(QUESTION, documents=CORPUS, method="cad", beta=2.0)
    got = configured.invoke(QUESTION, documents=CORPUS)
    assert (got if kind == "llm" else got.content) == (want if kind == "llm" else want.content)
    assert infos.infos[-1]["method"] == "cad"
    chain = {"context": retriever, "question": RunnablePassthrough()} | GroundedPromptTemplate() | model | StrOutputParser()
    chain.with_config(configurable=settings, callbacks=[infos]).invoke(QUESTION)
    assert infos.infos[-1]["method"] == "cad"
    assert [chunk for chunk in configured.stream(QUESTION, documents=CORPUS)]
    assert infos.infos[-1]["method"] == "cad"
    chain.with_config(configurable=settings, callbacks=[infos]).batch(QUESTIONS)
    assert [i["method"] for i in infos.infos[-2:]] == ["cad", "cad"]
