"""Any OpenAI-compatible `POST /v1/embeddings` (OpenAI, LM Studio, llama.cpp server, vLLM):
{model, input: [...], encoding_format: "float"} → {data: [{index, embedding}]}, Bearer key."""

from __future__ import annotations

from typing import Any

from service.embeddings.remote import Kind, RemoteEmbedder


class OpenAIEmbedder(RemoteEmbedder):
    provider = "openai"
    default_url = "https://api.openai.com"
    default_model = "text-embedding-3-small"
    key_env = "OPENAI_API_KEY"

    def headers(self) -> dict[str, str]:
        # Local OpenAI-compatible servers (LM Studio, llama.cpp, vLLM) usually need no key.
        if self.settings.api_key_env is None and self.settings.base_url is not None:
            return {}
        return super().headers()

    def request(self, texts: list[str], kind: Kind) -> tuple[str, dict[str, Any]]:
        body: dict[str, Any] = {"model": self.model, "input": texts, "encoding_format": "float"}
        if self.settings.dimensions:
            body["dimensions"] = self.settings.dimensions
        return "/v1/embeddings", body

    def vectors(self, body: Any) -> list[list[float]]:
        return [item["embedding"] for item in sorted(body["data"], key=lambda d: int(d["index"]))]
