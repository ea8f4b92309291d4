"""search_hybrid's vector half reads its candidates' chunk and note ids only, when no filter needs
their rows (`search.nearest(rows=False)`), and the hits the fusion keeps read their rows
afterwards (`search.hybrid_rows`): the answer is the one the whole rows give on one connection
(`search.hybrid_rank`, then `hybrid_text`), row for row and score for score."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.semantic import search as sem
from tests.semantic.helpers import VAULT, ranking_inputs, semantic

SUBJECTS = ["garden", "kitten", "bread", "taxes", "train", "river", "violin", "winter"]
QUESTIONS = ["kitten vet", "bread oven", "winter river walk", "taxes receipts", "violin lessons garden"]


def _notes() -> dict[str, str]:
    """The small vault and 40 notes of two sections each on pairs of subjects: more chunks than
    notes, and candidates found by words, by meaning and by both."""
    notes = dict(VAULT)
    for n in range(40):
        a, b = SUBJECTS[n % 8], SUBJECTS[(n * 3 + 1) % 8]
        notes[f"Mixed/{a}-{b}-{n}.md"] = (
            f"# {a.title()} and {b} {n}\n\n## About {a}\nNotes on the {a}, day {n}: what to do with it.\n\n"
            f"## About {b}\nThe {b} comes up again, and once more the {a}.\n"
        )
    return notes


def _reference(
    engine: Any, vid: str, question: str, vector: Any, keep: sem.NoteFilter, model: str, limit: int
) -> Callable[[Any], list[sem.HybridHit]]:
    """What search_hybrid showed before: whole rows on one connection, the page's texts read after."""

    def rank(conn: Any) -> list[sem.HybridHit]:
        return sem.hybrid_text(conn, sem.hybrid_rank(engine, conn, vid, question, vector, limit + 1, keep, model))

    return rank


async def test_search_hybrid_shows_the_rows_and_scores_of_the_whole_row_ranking(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    thin: list[int] = []
    real = sem.note_ids

    def counted(conn: Any, ids: list[int]) -> Any:
        thin.append(len(ids))
        return real(conn, ids)

    monkeypatch.setattr(sem, "note_ids", counted)
    async with semantic(make_vault(_notes())) as h:
        for question in QUESTIONS:
            engine, vid, use, vector, keep = await ranking_inputs(h, question)
            for limit in (3, 10):
                ranked = await h.app.services.db.run_read(
                    _reference(engine, vid, question, vector, keep, use.model, limit)
                )
                out = await h.ok("search_hybrid", query=question, limit=limit)
                shown = [
                    (i["path"], i["title"], i["mtime"], i["score"], i["heading"], i["chunk"]) for i in out["items"]
                ]
                expected = [
                    (
                        e.path,
                        e.title,
                        e.mtime,
                        round(e.score, 4),
                        e.chunk.heading if e.chunk else None,
                        e.chunk.text if e.chunk else None,
                    )
                    for e in ranked[:limit]
                ]
                assert shown == expected
                assert all(i["path"] and i["title"] for i in out["items"])
                assert (out["next_cursor"] is not None) == (len(ranked) > limit)
    assert thin, "the vector half read whole rows: the ids-only path was not taken"


async def test_the_vector_half_reads_ids_only_where_no_filter_needs_the_rows(make_vault: Callable[..., Path]) -> None:
    class Everything:
        everything = True

        def __call__(self, path: str) -> bool:
            return True

    async with semantic(make_vault(_notes())) as h:
        engine, vid, use, vector, _keep = await ranking_inputs(h, "kitten vet")

        def both(keep: sem.NoteFilter) -> Callable[[Any], tuple[list[sem.ChunkHit], list[sem.ChunkHit]]]:
            def run(conn: Any) -> tuple[list[sem.ChunkHit], list[sem.ChunkHit]]:
                whole = sem.nearest(engine, conn, vid, vector, 100, keep, use.model, text=False)
                ids_only = sem.nearest(engine, conn, vid, vector, 100, keep, use.model, text=False, rows=False)
                return whole, ids_only

            return run

        for keep, thin in (
            (sem.NoteFilter(can_read=Everything()), True),
            (sem.NoteFilter(can_read=lambda _path: True), False),  # no `everything`: each path is asked
            (sem.NoteFilter(can_read=Everything(), folders=["Mixed"]), False),
            (sem.NoteFilter(can_read=Everything(), tags=["animals"]), False),
        ):
            whole, ids_only = await h.app.services.db.run_read(both(keep))
            assert whole and all(w.row.path for w in whole)
            assert [(w.row.chunk_id, w.row.note_id, w.similarity) for w in whole] == [
                (t.row.chunk_id, t.row.note_id, t.similarity) for t in ids_only
            ]
            assert all(t.row.path == "" for t in ids_only) if thin else ids_only == whole


async def test_a_chunk_gone_since_the_ranking_leaves_its_note_without_a_chunk(make_vault: Callable[..., Path]) -> None:
    """Between the ranking and the rows' read a chunk may go (its note edited) or its note too
    (deleted): the note is kept with its fields and no chunk, as `hybrid_text` kept it; a note
    gone is left out."""
    async with semantic(make_vault(_notes())) as h:
        engine, vid, use, vector, keep = await ranking_inputs(h, "kitten vet")
        keep.can_read = type("Everything", (), {"everything": True, "__call__": lambda self, _p: True})()
        db = h.app.services.db

        def rank(conn: Any) -> list[sem.HybridHit]:
            texts = sem.text_side(conn, vid, "kitten vet", keep, 100, {})
            return sem.fused(texts, sem.nearest(engine, conn, vid, vector, 100, keep, use.model, rows=False), 6)

        ranked = await db.run_read(rank)
        with_chunk = [r for r in ranked if r.chunk is not None]
        assert len(with_chunk) >= 3 and all(r.path == "" for r in with_chunk)
        full = await db.run_read(lambda conn: sem.hybrid_rows(conn, ranked))
        assert [f.note_id for f in full] == [r.note_id for r in ranked] and all(f.path for f in full)
        edited, deleted = with_chunk[0], with_chunk[1]

        def drop(conn: Any) -> None:
            conn.execute("DELETE FROM chunks WHERE id = ?", (edited.chunk.chunk_id if edited.chunk else 0,))
            conn.execute("DELETE FROM notes WHERE id = ?", (deleted.note_id,))

        await db.run_write(drop)
        after = await db.run_read(lambda conn: sem.hybrid_rows(conn, ranked))
        by_note = {a.note_id: a for a in after}
        assert deleted.note_id not in by_note
        kept = by_note[edited.note_id]
        before = next(f for f in full if f.note_id == edited.note_id)
        assert (kept.path, kept.title, kept.mtime, kept.chunk) == (before.path, before.title, before.mtime, None)
        assert [a.note_id for a in after] == [f.note_id for f in full if f.note_id != deleted.note_id]
