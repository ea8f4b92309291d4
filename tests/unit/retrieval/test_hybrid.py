"""The hybrid fusion of text and chunk candidates: weighted sum of max-normalised scores (the
method) and reciprocal rank fusion (the baseline)."""

import pytest

from service.retrieval.hybrid import (
    TEXT_WEIGHT,
    ChunkCandidate,
    TextCandidate,
    depth,
    fuse,
    notes_by_best_chunk,
    rrf,
    text_weight,
)


def test_chunks_aggregate_to_their_best_chunk_per_note() -> None:
    chunks = [ChunkCandidate(1, 10, 0.2), ChunkCandidate(1, 11, 0.9), ChunkCandidate(2, 20, 0.5)]
    best = notes_by_best_chunk(chunks)
    assert [(c.note_id, c.chunk_id) for c in best] == [(1, 11), (2, 20)]


def test_score_is_the_weighted_sum_of_both_lists_divided_by_their_best() -> None:
    text = [TextCandidate(1, 10.0), TextCandidate(2, 5.0), TextCandidate(3, 2.0)]
    vector = [ChunkCandidate(2, 20, 0.8), ChunkCandidate(2, 21, 0.4), ChunkCandidate(3, 30, 0.6)]
    by_note = {f.note_id: f for f in fuse(text, vector)}
    w = TEXT_WEIGHT
    assert by_note[2].score == pytest.approx(w * 0.5 + (1 - w) * 1.0)
    assert by_note[3].score == pytest.approx(w * 0.2 + (1 - w) * 0.75)
    # note 1 has no chunk among the candidates: it gets the vector list's lowest score
    assert by_note[1].score == pytest.approx(w * 1.0 + (1 - w) * 0.75)
    assert by_note[2].best_chunk == 20 and by_note[1].best_chunk is None
    assert (by_note[2].text_rank, by_note[2].vector_rank) == (1, 0)
    assert (by_note[1].text_rank, by_note[1].vector_rank) == (0, None)


def test_the_best_note_of_both_lists_scores_one_and_every_score_is_within_0_and_1() -> None:
    text = [TextCandidate(n, 10.0 - n) for n in range(8)]
    vector = [ChunkCandidate(n, 100 + n, 0.9 - n / 20) for n in range(0, 12, 2)]
    fused = fuse(text, vector)
    assert fused[0].note_id == 0 and fused[0].score == pytest.approx(1.0)
    assert all(0.0 <= f.score <= 1.0 for f in fused)
    assert [f.score for f in fused] == sorted((f.score for f in fused), reverse=True)
    assert {f.note_id for f in fused} == set(range(8)) | set(range(0, 12, 2))


def test_the_weight_moves_the_ranking_between_the_two_lists() -> None:
    text = [TextCandidate(1, 9.0), TextCandidate(2, 3.0)]
    vector = [ChunkCandidate(2, 20, 0.9), ChunkCandidate(1, 10, 0.3)]
    assert [f.note_id for f in fuse(text, vector, text_weight=1.0)] == [1, 2]
    assert [f.note_id for f in fuse(text, vector, text_weight=0.0)] == [2, 1]


def test_score_gaps_count_where_rank_fusion_sees_only_positions() -> None:
    # Note 1 wins the text list by far and is a close second by meaning; note 2 is a weak text
    # second and a narrow vector first. Ranks alone tie them; scores do not.
    text = [TextCandidate(1, 20.0), TextCandidate(2, 2.0)] + [TextCandidate(n, 1.0) for n in range(10, 20)]
    vector = [ChunkCandidate(2, 20, 0.80), ChunkCandidate(1, 10, 0.79)] + [
        ChunkCandidate(n, n, 0.5) for n in range(30, 40)
    ]
    ranked_rrf = rrf(text, vector)
    assert ranked_rrf[0].score == ranked_rrf[1].score
    assert [f.note_id for f in fuse(text, vector)][:2] == [1, 2]


def test_ties_break_by_note_id_and_empty_inputs_give_nothing() -> None:
    assert fuse([], []) == []
    assert rrf([], []) == []
    same = [TextCandidate(5, 1.0), TextCandidate(4, 1.0)]
    assert [f.note_id for f in fuse(same, [])] == [4, 5]


def test_one_list_alone_keeps_its_order() -> None:
    vector = [ChunkCandidate(3, 30, 0.2), ChunkCandidate(1, 10, 0.7), ChunkCandidate(2, 20, 0.5)]
    fused = fuse([], vector)
    assert [f.note_id for f in fused] == [1, 2, 3]
    assert fused[0].text_rank is None


def test_scores_that_are_not_positive_still_rank_in_order() -> None:
    text = [TextCandidate(1, -1.0), TextCandidate(2, -3.0), TextCandidate(3, -2.0)]
    fused = fuse(text, [], text_weight=1.0)
    assert [f.note_id for f in fused] == [1, 3, 2]
    assert [f.score for f in fused] == [1.0, 0.5, 0.0]


def test_a_weight_outside_0_and_1_is_refused() -> None:
    with pytest.raises(ValueError, match="text_weight"):
        fuse([TextCandidate(1, 1.0)], [], text_weight=1.5)


def test_rrf_baseline_puts_notes_of_both_lists_first() -> None:
    text = [TextCandidate(3, 9.0), TextCandidate(1, 5.0)]
    vector = [ChunkCandidate(2, 20, 0.9), ChunkCandidate(1, 10, 0.8)]
    fused = rrf(text, vector)
    assert fused[0].note_id == 1 and fused[0].score == 1.0 and fused[0].best_chunk == 10
    assert {f.note_id for f in fused} == {1, 2, 3}


def test_depth_grows_with_the_page() -> None:
    assert depth(10) == 100
    assert depth(50) == 200


def test_the_text_weight_grows_with_the_specificity_of_the_query_within_its_bounds() -> None:
    assert text_weight(None) == TEXT_WEIGHT
    assert text_weight(0.35) == pytest.approx(0.30)
    weights = [text_weight(s / 10) for s in range(11)]
    assert weights == sorted(weights) and weights[0] < weights[-1]
    assert min(weights) >= 0.1 and max(weights) <= 0.8
    assert text_weight(0.0) == pytest.approx(0.1) and text_weight(1.0) == pytest.approx(0.8)
