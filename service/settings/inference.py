"""[inference]: the optional inference gateway of the consolidation plane (an OpenAI-compatible
chat-completions endpoint: Ollama, a llama.cpp server, vLLM, OpenAI). Off by default; the plane's
jobs that need it are skipped with the reason while it is off."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from service.settings.base import Section


class InferenceSettings(Section):
    provider: Literal["none", "openai"] = Field(
        default="none", description="'openai': any server speaking POST /v1/chat/completions; 'none': off."
    )
    base_url: str = Field(default="http://127.0.0.1:11434", description="The server (Ollama's default shown).")
    model: str = Field(default="", description="The model to ask.")
    api_key_env: str = Field(
        default="VAULTGATE_INFERENCE_KEY", description="Environment variable holding the bearer key (unset: none sent)."
    )
    timeout_s: float = Field(default=60.0, gt=0, le=600, description="One request.")
    max_tokens_per_run: int = Field(default=20_000, ge=100, le=10_000_000, description="Tokens one run may spend.")
    max_tokens_per_answer: int = Field(default=400, ge=16, le=8192, description="max_tokens of one request.")
