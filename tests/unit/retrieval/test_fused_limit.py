"""`search.fused` with a limit builds only the leading hits: the same hits, in the same order, as
the whole fused list cut there (search_hybrid keeps ~22 of ~500 candidates)."""

from __future__ import annotations

import random

from service.retrieval.text import TextHit
from service.semantic import search as sem
from service.semantic.engine import ChunkRow


def _halves(seed: int) -> tuple[sem.TextSide, list[sem.ChunkHit]]:
    rng = random.Random(seed)
    texts = [TextHit(n, f"t{n}.md", f"T{n}", 0.0, rng.random() * 10) for n in rng.sample(range(400), 100)]
    chunks = [
        sem.ChunkHit(ChunkRow(1000 + n, n, f"t{n}.md", f"T{n}", 0.0, "", [], None, ""), rng.random())
        for n in rng.sample(range(400), 300)
    ]
    chunks.sort(key=lambda h: -h.similarity)
    texts.sort(key=lambda h: -h.score)
    return sem.TextSide(texts, rng.random()), chunks


def test_a_limit_keeps_the_leading_hits_of_the_whole_list() -> None:
    for seed in range(5):
        texts, chunks = _halves(seed)
        whole = sem.fused(texts, chunks)
        first_text_only = next(i for i, h in enumerate(whole) if h.chunk is None)
        for limit in (1, 22, first_text_only + 1, first_text_only + 2, len(whole) + 5):
            assert sem.fused(texts, chunks, limit) == whole[:limit]
