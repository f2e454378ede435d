"""The packaged all-MiniLM-L6-v2 as a LlamaIndex embedding model (offline, unit-normalized)."""

from llama_index.embeddings.huggingface import HuggingFaceEmbedding

from grounded_rag.encoders import packaged_embedding_path


def packaged_embedding() -> HuggingFaceEmbedding:
    return HuggingFaceEmbedding(model_name=packaged_embedding_path(), normalize=True, device="cpu")
