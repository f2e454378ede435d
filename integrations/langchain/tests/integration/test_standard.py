"""LangChain's own standard suites for the chat model and the embeddings, on the packaged models.

ChatGroundedRAG answers plain messages (no documents) by standard decoding with a warning; the
suites' plain-chat checks exercise that path. Tool calling and structured output are off: the
model has neither (both raise NotImplementedError saying what to use)."""

import pytest
from langchain_grounded_rag import ChatGroundedRAG, PackagedMiniLMEmbeddings
from langchain_tests.integration_tests import ChatModelIntegrationTests, EmbeddingsIntegrationTests
from langchain_tests.unit_tests import ChatModelUnitTests, EmbeddingsUnitTests

pytestmark = pytest.mark.filterwarnings("ignore::grounded_rag.GroundedRAGWarning")


class _ChatParams:
    @property
    def chat_model_class(self) -> type[ChatGroundedRAG]:
        return ChatGroundedRAG

    @property
    def chat_model_params(self) -> dict:
        return {}

    @property
    def standard_chat_model_params(self) -> dict:
        params = super().standard_chat_model_params  # type: ignore[misc]
        params.pop("api_key", None)  # the unit suite assumes a hosted model; a local model has no API key
        return {**params, "max_tokens": 8}  # short answers keep the suites fast on a CPU

    @property
    def has_tool_calling(self) -> bool:
        return False

    @property
    def has_structured_output(self) -> bool:
        return False

    @property
    def returns_usage_metadata(self) -> bool:
        return False


class TestChatGroundedRAGUnit(_ChatParams, ChatModelUnitTests):
    pass


class TestChatGroundedRAGIntegration(_ChatParams, ChatModelIntegrationTests):
    pass


class _EmbeddingParams:
    @property
    def embeddings_class(self) -> type[PackagedMiniLMEmbeddings]:
        return PackagedMiniLMEmbeddings

    @property
    def embedding_model_params(self) -> dict:
        return {}


class TestPackagedMiniLMEmbeddingsUnit(_EmbeddingParams, EmbeddingsUnitTests):
    pass


class TestPackagedMiniLMEmbeddingsIntegration(_EmbeddingParams, EmbeddingsIntegrationTests):
    pass
