"""The embedder that the `[embeddings]` settings name (None for provider "none")."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from service.embeddings.protocol import Embedder
    from service.embeddings.remote import RemoteEmbedder
    from service.settings import EmbeddingSettings


def remote_providers() -> dict[str, type[RemoteEmbedder]]:
    from service.embeddings.cohere import CohereEmbedder
    from service.embeddings.ollama import OllamaEmbedder
    from service.embeddings.openai import OpenAIEmbedder
    from service.embeddings.voyage import VoyageEmbedder

    return {"ollama": OllamaEmbedder, "openai": OpenAIEmbedder, "voyage": VoyageEmbedder, "cohere": CohereEmbedder}


def build_embedder(settings: EmbeddingSettings) -> Embedder | None:
    """Imports only the configured provider's module (the builtin model's brings numpy and
    onnxruntime), when the engine first needs the embedder."""
    if settings.provider == "none":
        return None
    if settings.provider == "builtin":
        from service.embeddings.builtin import BuiltinEmbedder

        return BuiltinEmbedder(
            threads=settings.threads, batch_size=settings.batch_size, unload_after_s=settings.unload_after_s
        )
    return remote_providers()[settings.provider](settings)
