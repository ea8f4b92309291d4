"""Ollama's `POST /api/embed` ({model, input: [...]} → {embeddings: [[...]]}); no API key."""

from __future__ import annotations

from typing import Any

from service.embeddings.remote import Kind, RemoteEmbedder


class OllamaEmbedder(RemoteEmbedder):
    provider = "ollama"
    default_url = "http://127.0.0.1:11434"
    default_model = "nomic-embed-text"
    key_env = None

    def request(self, texts: list[str], kind: Kind) -> tuple[str, dict[str, Any]]:
        body: dict[str, Any] = {"model": self.model, "input": texts, "truncate": True}
        if self.settings.dimensions:
            body["dimensions"] = self.settings.dimensions
        return "/api/embed", body

    def vectors(self, body: Any) -> list[list[float]]:
        return list(body["embeddings"])
