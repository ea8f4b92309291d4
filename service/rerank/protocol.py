"""The reranker interface and `reorder`, the step the answer tools call.

A `Reranker` scores documents against a query (higher is more relevant). `reorder` sends the
first `top_n` candidate texts, sorts them by score (ties keep the incoming order) and keeps the
rest behind them in their incoming order. A reranker that fails or takes longer than its
timeout changes nothing: the incoming order comes back with `degraded` set, so a search never
fails or hangs because of the reranker.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Protocol

log = logging.getLogger(__name__)


class RerankFailed(Exception):
    """The reranker did not answer usably (HTTP error, bad shape, missing key)."""


class Reranker(Protocol):
    @property
    def name(self) -> str:
        """`provider:model`, reported with results."""
        ...

    @property
    def timeout_s(self) -> float:
        """How long one rerank call may take before the incoming order is kept."""
        ...

    @property
    def top_n(self) -> int:
        """How many leading candidates are sent."""
        ...

    async def scores(self, query: str, documents: list[str]) -> list[float]:
        """One relevance score per document, in input order (raises RerankFailed)."""
        ...


@dataclass(frozen=True, slots=True)
class Reordered:
    order: list[int]  # indexes into the candidates, best first
    reranked: bool  # the reranker's scores decided the head of `order`
    degraded: bool  # a reranker is configured but failed: `order` is the incoming one


async def reorder(reranker: Reranker | None, query: str, texts: list[str]) -> Reordered:
    """The candidates `texts` (best first) reordered by `reranker` (see the module doc)."""
    incoming = list(range(len(texts)))
    if reranker is None or len(texts) < 2:
        return Reordered(incoming, False, False)
    head = min(len(texts), reranker.top_n)
    try:
        got = await asyncio.wait_for(reranker.scores(query, texts[:head]), reranker.timeout_s)
    except (RerankFailed, TimeoutError) as exc:
        log.warning("rerank: %s failed, keeping the unreranked order: %s", reranker.name, exc)
        return Reordered(incoming, False, True)
    if len(got) != head:
        log.warning("rerank: %s returned %d scores for %d documents", reranker.name, len(got), head)
        return Reordered(incoming, False, True)
    ranked = sorted(range(head), key=lambda i: (-got[i], i))
    return Reordered(ranked + incoming[head:], True, False)
