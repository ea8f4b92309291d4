"""Voyage AI `POST /v1/embeddings`: {model, input: [...], input_type: query|document} →
{data: [{index, embedding}]}, Bearer key from VOYAGE_API_KEY."""

from __future__ import annotations

from typing import Any

from service.embeddings.remote import Kind, RemoteEmbedder


class VoyageEmbedder(RemoteEmbedder):
    provider = "voyage"
    default_url = "https://api.voyageai.com"
    default_model = "voyage-3.5-lite"
    key_env = "VOYAGE_API_KEY"

    def _prefix(self, kind: Kind) -> str:
        return ""  # input_type does the job

    def request(self, texts: list[str], kind: Kind) -> tuple[str, dict[str, Any]]:
        body: dict[str, Any] = {"model": self.model, "input": texts, "input_type": kind}
        if self.settings.dimensions:
            body["output_dimension"] = self.settings.dimensions
        return "/v1/embeddings", body

    def vectors(self, body: Any) -> list[list[float]]:
        return [item["embedding"] for item in sorted(body["data"], key=lambda d: int(d["index"]))]
