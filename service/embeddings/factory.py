"""The embedder that the `[embeddings]` settings name (None for provider "none")."""

from __future__ import annotations

from service.embeddings.builtin import BuiltinEmbedder
from service.embeddings.cohere import CohereEmbedder
from service.embeddings.ollama import OllamaEmbedder
from service.embeddings.openai import OpenAIEmbedder
from service.embeddings.protocol import Embedder
from service.embeddings.remote import RemoteEmbedder
from service.embeddings.voyage import VoyageEmbedder
from service.settings import EmbeddingSettings

REMOTE: dict[str, type[RemoteEmbedder]] = {
    "ollama": OllamaEmbedder,
    "openai": OpenAIEmbedder,
    "voyage": VoyageEmbedder,
    "cohere": CohereEmbedder,
}


def build_embedder(settings: EmbeddingSettings) -> Embedder | None:
    if settings.provider == "none":
        return None
    if settings.provider == "builtin":
        return BuiltinEmbedder(threads=settings.threads, batch_size=settings.batch_size)
    return REMOTE[settings.provider](settings)
