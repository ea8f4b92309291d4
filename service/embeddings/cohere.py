"""Cohere `POST /v2/embed`: {model, texts: [...], input_type: search_query|search_document,
embedding_types: ["float"]} → {embeddings: {float: [[...]]}}, Bearer key from CO_API_KEY."""

from __future__ import annotations

from typing import Any

from service.embeddings.remote import Kind, RemoteEmbedder


class CohereEmbedder(RemoteEmbedder):
    provider = "cohere"
    default_url = "https://api.cohere.com"
    default_model = "embed-v4.0"
    key_env = "CO_API_KEY"

    def _prefix(self, kind: Kind) -> str:
        return ""  # input_type does the job

    def request(self, texts: list[str], kind: Kind) -> tuple[str, dict[str, Any]]:
        body: dict[str, Any] = {
            "model": self.model,
            "texts": texts,
            "input_type": "search_query" if kind == "query" else "search_document",
            "embedding_types": ["float"],
        }
        if self.settings.dimensions:
            body["output_dimension"] = self.settings.dimensions
        return "/v2/embed", body

    def vectors(self, body: Any) -> list[list[float]]:
        return list(body["embeddings"]["float"])
