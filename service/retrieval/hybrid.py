"""Hybrid retrieval: one note ranking from BM25 text hits and vector (chunk) hits.

The semantic search tools fetch `depth(limit)` candidates from each engine, already filtered by
read permission, and call `fuse`. Text candidates are notes (BM25 score, higher is better);
vector candidates are chunks (cosine similarity, higher is better), several per note.

Method (chosen on the SciFact training queries, see docs/semantic.md#hybrid-fusion):
1. Chunks to notes: a note's vector score is its best chunk's similarity.
2. Each list is normalised by its best score: text `score / max`, vector `similarity / max`
   (both lists are "higher is better" with 0 as the natural floor, so dividing by the maximum
   keeps how far apart the candidates are, unlike rank-based fusion).
3. A note missing from one list gets that list's lowest normalised score (it was not among the
   candidates, so it is at best as good as the last one), except a note missing from a text list
   that holds every note with one of the query's words (`text_complete`): it has none, so its text
   score is 0. With the lowest score, a word only one note holds made that note's own score the
   floor: every vector-only note got the full text share and the one note holding the word won
   only ties.
4. Fused score = `w * text + (1 - w) * vector`, in 0..1 (1: the best note of both lists). Ties
   break by a note the text list holds first, then by note id. `w` is `TEXT_WEIGHT` unless the
   caller passes one; `search_hybrid` (and graphrag_query, the hybrid modes of search_notes and
   search_vault) passes `text_weight(specificity)`: the text list counts for
   more when the query's words are rare in the vault (BM25 can tell notes apart) and for less when
   they are common ones, as in a question worded unlike the page ("how do I see which notes link to
   this note" in a vault where every page says note and link).
5. A note with no vector yet (`unembedded`: written since the embedding job last ran) is ranked
   by its words alone, `text` for both parts: its missing vector says nothing about its meaning,
   and the floor would rank a note that holds the query's rare word below every vector-only hit
   while the job catches up (search_text found it; search_hybrid did not).

`rrf` keeps the baseline (reciprocal rank fusion, k = 60) for comparison. Each result keeps the
best chunk of its note so that callers can show it and link to its heading.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

RRF_K = 60
TEXT_WEIGHT = 0.45
# text_weight(s) = clamp(WEIGHT_AT_PIVOT + (s - SPECIFICITY_PIVOT)): chosen on the SciFact training
# queries and the Obsidian Help questions together, checked on the SciFact test queries
# (docs/benchmarks.md); the optimum is flat around these values.
SPECIFICITY_PIVOT = 0.35
WEIGHT_AT_PIVOT = 0.30
WEIGHT_MIN, WEIGHT_MAX = 0.1, 0.8


# Not frozen: hundreds of each a search (a frozen dataclass's __init__ costs several times a
# plain one's); treated as immutable all the same.
@dataclass(slots=True)
class TextCandidate:
    note_id: int
    score: float


@dataclass(slots=True)
class ChunkCandidate:
    note_id: int
    chunk_id: int
    similarity: float


@dataclass(slots=True)
class Fused:
    note_id: int
    score: float
    best_chunk: int | None
    text_rank: int | None
    vector_rank: int | None


def depth(limit: int) -> int:
    """How many candidates each engine contributes for a page of `limit` results."""
    return max(100, 4 * limit)


def text_weight(specificity: float | None) -> float:
    """The text list's weight for a query whose words have mean `specificity` (0..1: the BM25
    inverse document frequency of each word over its largest possible value, see
    `semantic.search.specificity`); `TEXT_WEIGHT` when unknown."""
    if specificity is None:
        return TEXT_WEIGHT
    return min(WEIGHT_MAX, max(WEIGHT_MIN, WEIGHT_AT_PIVOT + specificity - SPECIFICITY_PIVOT))


def notes_by_best_chunk(chunks: Sequence[ChunkCandidate]) -> list[ChunkCandidate]:
    """One candidate per note (its most similar chunk), best first."""
    best: dict[int, ChunkCandidate] = {}
    for c in chunks:
        seen = best.get(c.note_id)
        if seen is None or c.similarity > seen.similarity:
            best[c.note_id] = c
    return sorted(best.values(), key=lambda c: (-c.similarity, c.note_id))


def _by_max(scores: dict[int, float]) -> dict[int, float]:
    """Scores divided by the largest (a list whose best is not positive maps to 0..1 by rank order
    kept: every score minus the minimum, over the spread)."""
    if not scores:
        return {}
    top = max(scores.values())
    if top > 0:
        return {n: max(s, 0.0) / top for n, s in scores.items()}
    low = min(scores.values())
    spread = top - low
    return {n: (s - low) / spread if spread else 1.0 for n, s in scores.items()}


def _ranks(
    text: Sequence[TextCandidate], vector: Sequence[ChunkCandidate]
) -> tuple[list[TextCandidate], list[ChunkCandidate]]:
    return sorted(text, key=lambda t: (-t.score, t.note_id)), notes_by_best_chunk(vector)


def fuse(
    text: Sequence[TextCandidate],
    vector: Sequence[ChunkCandidate],
    *,
    text_weight: float = TEXT_WEIGHT,
    unembedded: Collection[int] = (),
    text_complete: bool = False,
) -> list[Fused]:
    """Every note of either list, best first (see the module doc for the method)."""
    if not 0.0 <= text_weight <= 1.0:
        raise ValueError("text_weight must be within 0..1")
    ranked_text, ranked_vec = _ranks(text, vector)
    text_score = _by_max({t.note_id: t.score for t in ranked_text})
    vec_score = _by_max({c.note_id: c.similarity for c in ranked_vec})
    text_floor = 0.0 if text_complete else min(text_score.values(), default=0.0)
    vec_floor = min(vec_score.values(), default=0.0)
    text_rank = {t.note_id: i for i, t in enumerate(ranked_text)}
    vec_rank = {c.note_id: i for i, c in enumerate(ranked_vec)}
    chunk_of = {c.note_id: c.chunk_id for c in ranked_vec}
    fused = [
        Fused(
            n,
            text_score[n]
            if n in unembedded and n in text_score and n not in vec_score
            else text_weight * text_score.get(n, text_floor) + (1.0 - text_weight) * vec_score.get(n, vec_floor),
            chunk_of.get(n),
            text_rank.get(n),
            vec_rank.get(n),
        )
        for n in text_score.keys() | vec_score.keys()
    ]
    # Equal scores: a note the words found first (a one-note text list's floor is its own score).
    fused.sort(key=lambda f: (-f.score, f.text_rank is None, f.note_id))
    return fused


def rrf(text: Sequence[TextCandidate], vector: Sequence[ChunkCandidate], *, k: int = RRF_K) -> list[Fused]:
    """The baseline: reciprocal rank fusion of the text ranking and the notes by best chunk,
    scores divided by the best (the best note is 1)."""
    ranked_text, ranked_vec = _ranks(text, vector)
    scores: dict[int, float] = {}
    text_rank: dict[int, int] = {}
    vec_rank: dict[int, int] = {}
    chunk_of: dict[int, int] = {}
    for position, t in enumerate(ranked_text):
        text_rank[t.note_id] = position
        scores[t.note_id] = scores.get(t.note_id, 0.0) + 1.0 / (k + position + 1)
    for position, c in enumerate(ranked_vec):
        vec_rank[c.note_id] = position
        chunk_of[c.note_id] = c.chunk_id
        scores[c.note_id] = scores.get(c.note_id, 0.0) + 1.0 / (k + position + 1)
    top = max(scores.values(), default=1.0)
    fused = [Fused(n, s / top, chunk_of.get(n), text_rank.get(n), vec_rank.get(n)) for n, s in scores.items()]
    fused.sort(key=lambda f: (-f.score, f.note_id))
    return fused
