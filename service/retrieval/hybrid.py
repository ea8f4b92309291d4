"""Hybrid retrieval: one note ranking from BM25 text hits and vector (chunk) hits.

The semantic search tools fetch `depth(limit)` candidates from each engine, already filtered by
read permission, and call `fuse`. Text candidates are notes (BM25 score, higher is better);
vector candidates are chunks (cosine similarity, higher is better), several per note. `fuse`
aggregates chunks to notes and merges both lists.

Baseline method: reciprocal rank fusion (k = 60) of the text ranking and the note ranking by
each note's best chunk; fused scores normalised to 0..1 (the best note is 1). Each result keeps
the best chunk of its note so that callers can show it and link to its heading.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

RRF_K = 60


@dataclass(frozen=True, slots=True)
class TextCandidate:
    note_id: int
    score: float


@dataclass(frozen=True, slots=True)
class ChunkCandidate:
    note_id: int
    chunk_id: int
    similarity: float


@dataclass(frozen=True, slots=True)
class Fused:
    note_id: int
    score: float
    best_chunk: int | None
    text_rank: int | None
    vector_rank: int | None


def depth(limit: int) -> int:
    """How many candidates each engine contributes for a page of `limit` results."""
    return max(100, 4 * limit)


def notes_by_best_chunk(chunks: Sequence[ChunkCandidate]) -> list[ChunkCandidate]:
    """One candidate per note (its most similar chunk), best first."""
    best: dict[int, ChunkCandidate] = {}
    for c in chunks:
        seen = best.get(c.note_id)
        if seen is None or c.similarity > seen.similarity:
            best[c.note_id] = c
    return sorted(best.values(), key=lambda c: (-c.similarity, c.note_id))


def fuse(text: Sequence[TextCandidate], vector: Sequence[ChunkCandidate]) -> list[Fused]:
    """Every note of either list, best first (see the module doc for the method)."""
    ranked_text = sorted(text, key=lambda t: (-t.score, t.note_id))
    ranked_vec = notes_by_best_chunk(vector)
    scores: dict[int, float] = {}
    text_rank: dict[int, int] = {}
    vec_rank: dict[int, int] = {}
    chunk_of: dict[int, int] = {}
    for position, t in enumerate(ranked_text):
        text_rank[t.note_id] = position
        scores[t.note_id] = scores.get(t.note_id, 0.0) + 1.0 / (RRF_K + position + 1)
    for position, c in enumerate(ranked_vec):
        vec_rank[c.note_id] = position
        chunk_of[c.note_id] = c.chunk_id
        scores[c.note_id] = scores.get(c.note_id, 0.0) + 1.0 / (RRF_K + position + 1)
    top = max(scores.values(), default=1.0)
    fused = [Fused(n, s / top, chunk_of.get(n), text_rank.get(n), vec_rank.get(n)) for n, s in scores.items()]
    fused.sort(key=lambda f: (-f.score, f.note_id))
    return fused
