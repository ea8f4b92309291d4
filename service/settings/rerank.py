"""`[rerank]`: an optional cross-encoder that reorders the top candidates of the answer tools.

Off by default (`provider = "none"`): no reranker ships in a PyPI package without a model hub
download (docs/semantic.md). `cohere` (`/v2/rerank`), `voyage` (`/v1/rerank`), `jina` (the same
request at `/v1/rerank`, as Jina and compatible local servers such as llama.cpp serve it) and
`tei` (Hugging Face text-embeddings-inference `/rerank`) call a server. API keys are read from
the environment variable named by `api_key_env`, never from the config file.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from service.settings.base import Section

RerankProvider = Literal["none", "cohere", "voyage", "jina", "tei"]


class RerankSettings(Section):
    provider: RerankProvider = Field(default="none", description="Who reranks; 'none' keeps the fused order.")
    model: str | None = Field(
        default=None,
        description="The provider's model. Defaults: cohere rerank-v3.5, voyage rerank-2.5-lite, "
        "jina jina-reranker-v2-base-multilingual (tei serves one model and ignores it).",
    )
    base_url: str | None = Field(default=None, description="Server URL; default: the provider's public endpoint.")
    api_key_env: str | None = Field(
        default=None,
        description="Environment variable holding the API key. Defaults: CO_API_KEY, VOYAGE_API_KEY, "
        "JINA_API_KEY (tei needs none).",
    )
    top_n: int = Field(default=30, ge=2, le=200, description="Leading candidates sent to the reranker.")
    timeout_seconds: float = Field(
        default=3.0, gt=0, le=60, description="One rerank call; past it the unreranked order is kept (degraded)."
    )
