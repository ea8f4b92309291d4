"""The hybrid fusion of text and chunk candidates (the baseline method)."""

from service.retrieval.hybrid import ChunkCandidate, TextCandidate, depth, fuse, notes_by_best_chunk


def test_chunks_aggregate_to_their_best_chunk_per_note() -> None:
    chunks = [ChunkCandidate(1, 10, 0.2), ChunkCandidate(1, 11, 0.9), ChunkCandidate(2, 20, 0.5)]
    best = notes_by_best_chunk(chunks)
    assert [(c.note_id, c.chunk_id) for c in best] == [(1, 11), (2, 20)]


def test_notes_found_by_both_engines_rank_first() -> None:
    text = [TextCandidate(3, 9.0), TextCandidate(1, 5.0)]
    vector = [ChunkCandidate(2, 20, 0.9), ChunkCandidate(1, 10, 0.8)]
    fused = fuse(text, vector)
    assert fused[0].note_id == 1
    assert fused[0].score == 1.0
    assert fused[0].best_chunk == 10
    assert (fused[0].text_rank, fused[0].vector_rank) == (1, 1)
    assert {f.note_id for f in fused} == {1, 2, 3}
    only_text = next(f for f in fused if f.note_id == 3)
    assert only_text.best_chunk is None and only_text.vector_rank is None


def test_empty_inputs_and_depth() -> None:
    assert fuse([], []) == []
    assert depth(10) == 100
    assert depth(50) == 200
