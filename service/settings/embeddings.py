"""`[embeddings]`: the model that turns chunks and queries into vectors, and the job's bounds.

`provider = "builtin"` (the default) runs the embedded all-MiniLM-L6-v2 model in-process on the
CPU; `ollama`, `openai` (any OpenAI-compatible `/v1/embeddings`: OpenAI, LM Studio, llama.cpp,
vLLM), `voyage` and `cohere` call a server; `none` turns semantic search off. API keys are read
from the environment variable named by `api_key_env` (never from the config file).
"""

from __future__ import annotations

import os
from typing import Literal

from pydantic import Field

from service.settings.base import Section

Provider = Literal["builtin", "ollama", "openai", "voyage", "cohere", "none"]


class EmbeddingSettings(Section):
    provider: Provider = Field(default="builtin", description="Where vectors come from; 'none' disables them.")
    model: str | None = Field(
        default=None,
        description="The provider's model name (builtin: fixed). Defaults: ollama nomic-embed-text, "
        "openai text-embedding-3-small, voyage voyage-3.5-lite, cohere embed-v4.0.",
    )
    base_url: str | None = Field(default=None, description="Server URL; default: the provider's public endpoint.")
    api_key_env: str | None = Field(
        default=None,
        description="Environment variable holding the API key. Defaults: OPENAI_API_KEY, VOYAGE_API_KEY, "
        "CO_API_KEY (ollama needs none).",
    )
    dimensions: int | None = Field(default=None, ge=8, le=8192, description="Requested vector size, where supported.")
    query_prefix: str | None = Field(
        default=None, max_length=200, description="Text put before a query (e.g. 'search_query: '); default per model."
    )
    document_prefix: str | None = Field(
        default=None, max_length=200, description="Text put before a chunk (e.g. 'search_document: ')."
    )
    max_tokens: int = Field(default=256, ge=32, le=8192, description="Chunk size limit in model tokens.")
    overlap_tokens: int = Field(default=32, ge=0, le=1024, description="Overlap of the sliding window.")
    batch_size: int = Field(default=16, ge=1, le=256, description="Chunks embedded per model call.")
    threads: int = Field(
        default_factory=lambda: min(2, os.cpu_count() or 1),
        ge=1,
        le=16,
        description="Texts the builtin model embeds at once, one single-threaded call and core each (default 2, "
        "1 on a one-core machine). They run "
        "at lowered priority, so text search and the event loop keep theirs.",
    )
    preload_vectors: bool | None = Field(
        default=None,
        description="Read the vault's vectors into memory when the embedding job's first pass ends, so the first "
        "semantic search does not (~15 MB at 10,000 notes with the vectors in their file, ~125 MB without). "
        "Default: yes for "
        "`serve` (one long-lived server for many agents), no for `stdio` (a process per client, which may never "
        "search by meaning).",
    )
    unload_after_s: float = Field(
        default=300.0,
        ge=0,
        le=86_400,
        description="The builtin model is dropped from memory after this many seconds without a model call "
        "(~56 MB at 10,000 notes; the next call loads it again in ~0.25 s). 0 keeps it loaded.",
    )
    timeout_seconds: float = Field(default=30.0, gt=0, le=600, description="One provider request.")
    retries: int = Field(default=3, ge=0, le=10, description="Retries of a failed provider request (with backoff).")
    debounce_ms: int = Field(default=300, ge=0, le=60_000, description="Wait after an index change before embedding.")
    scan_first_pass_rows: int = Field(
        default=20_000,
        ge=0,
        description="From this many chunks, the in-memory vector scan rescores the candidates of a first pass over "
        "compact codes instead of every vector (docs/semantic.md).",
    )
    scan_candidate_share: int = Field(
        default=8,
        ge=1,
        le=1024,
        description="The first pass answers while its candidates are at most 1/N of the rows; deeper asks compute "
        "every similarity (1: always the first pass, for measuring it).",
    )
    vectors_on_disk: bool = Field(
        default=True,
        description="From `scan_first_pass_rows` chunks, keep the vectors in a file beside the index and only "
        "their int8 codes in memory (docs/semantic.md); false: every vector in memory.",
    )
