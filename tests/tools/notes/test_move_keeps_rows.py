"""A moved note whose text the move leaves alone keeps its index rows (`service.indexer.relocate`),
and the index after the move is the one a fresh index of the vault builds.

A move deleted each moved note's rows and parsed and inserted them again (~5 ms a note: its
words and trigrams, tags, tasks, chunks). Now a note keeping its name and text keeps its row
(its id: the chunks and vectors keyed on it stay, nothing is embedded again), takes its new path
and has its links resolved again from there. The oracle: after each move (a folder into another
folder with a confirmation, a folder's rename, a note's move making a name resolve elsewhere, and
a move another program makes, seen by the watcher as deletions and creations), every row of every
table of the index, by path, the word index's terms and positions, the chunks and what they were
made from, equal those of a fresh index of a copy of the vault; both full-text indexes pass
FTS5's integrity check."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from service.indexer import apply, runner
from service.storage.db import connect
from service.vault.events import FileChange
from tests.conftest import Harness, started, write_files
from tests.semantic.helpers import model_ready, settled
from tests.unit.indexer.test_cold_load_rows import DUMPS

EMBEDDINGS = {"provider": "builtin", "debounce_ms": 0}
VAULT = {
    "Home.md": "# Home\n\nSee [[Projects/Alpha/Plan]], [[Plan]] and [[Spec]].\n",
    "Other/Spec.md": "# Other spec\n\nA spec of another project.\n",
    "Projects/Alpha/Plan.md": "---\ntags: [plan, alpha]\naliases: [Alpha plan]\nstatus: active\nup: '[[Home]]'\n---\n"
    "# Plan\n\nThe plan links [[Spec]], [the spec](Spec.md), [home](../../Home.md), [[Nowhere]] and "
    "[[Deep#Part]].\n\n## Steps\n\n- [ ] write the draft 📅 2026-12-24 #todo\n- [x] read it\n"
    "owner:: Ann\n\nA paragraph. ^para\n\n![[diagram.png]]\n",
    "Projects/Alpha/Spec.md": "# Spec\n\nWhat the plan needs: [[Plan#Steps]]. #spec\n",
    "Projects/Alpha/Notes/Deep.md": "# Deep\n\n## Part\n\nDeep in the folder, linking [[Other/Spec]].\n",
    "Projects/Alpha/Changed.md": "# Changed\n\nIts link by path changes: [[Notes/Deep]].\n",
    "Projects/Alpha/Board.canvas": '{"nodes":[{"id":"a","type":"file","file":"Home.md",'
    '"x":0,"y":0,"width":10,"height":10},{"id":"b","type":"text","text":"see [[Plan]]",'
    '"x":20,"y":0,"width":10,"height":10}],"edges":[]}',
    "Projects/Alpha/diagram.png": "not really a png",
}
MOVED = ["Plan.md", "Spec.md", "Notes/Deep.md", "Board.canvas", "diagram.png"]
CHUNKS = {
    "chunks": "SELECT n.path, c.vault_id, c.position, c.heading, c.heading_path, c.text, c.embed_text, c.hash, c.tokens"
    " FROM chunks c JOIN notes n ON n.id = c.note_id",
    "chunk_sources": "SELECT n.path, s.etag, s.title, s.chunker FROM chunk_sources s JOIN notes n ON n.id = s.note_id",
}
LEFT_OUT = {"schema", "deferred", "trigram_deferred"}  # a way of writing, compared by test_cold_load_rows


def _dump(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    conn = connect(path)
    try:
        for fts in ("fts_words", "fts_trigram"):
            conn.execute(f"INSERT INTO {fts}({fts}) VALUES ('integrity-check')")  # the index = note_text
        conn.execute("CREATE VIRTUAL TABLE temp.words USING fts5vocab(main, fts_words, 'instance')")
        queries = {name: sql for name, sql in {**DUMPS, **CHUNKS}.items() if name not in LEFT_OUT}
        # a fresh index reads a copy of the vault: the copy's ctime is its own
        queries["notes"] = queries["notes"].replace(" ctime,", "")
        return {name: sorted(conn.execute(sql).fetchall(), key=repr) for name, sql in queries.items()}
    finally:
        conn.close()


async def _now(vg: Harness) -> dict[str, list[tuple[Any, ...]]]:
    await settled(vg)
    await vg.indexer().trigram.settled()
    return _dump(Path(vg.app.services.db.path))


async def _fresh(vault: Path, tmp: Path, name: str) -> dict[str, list[tuple[Any, ...]]]:
    copy = tmp / f"fresh-{name}"
    shutil.copytree(vault, copy, ignore=shutil.ignore_patterns(".vaultgate"))
    async with started(copy, index={"watch": False}, embeddings=EMBEDDINGS, storage={"cache_dir": tmp / name}) as vg:
        return await _now(vg)


async def _ids(vg: Harness) -> dict[str, int]:
    return {str(r[0]): int(r[1]) for r in await vg.app.services.db.fetchall("SELECT path, id FROM notes")}


async def _chunk_ids(vg: Harness) -> dict[tuple[int, int], int]:
    rows = await vg.app.services.db.fetchall("SELECT note_id, position, id FROM chunks")
    return {(int(r[0]), int(r[1])): int(r[2]) for r in rows}


def _same(now: dict[str, list[tuple[Any, ...]]], fresh: dict[str, list[tuple[Any, ...]]]) -> None:
    for table in fresh:
        assert now[table] == fresh[table], table


async def test_moved_notes_keep_their_rows_and_the_index_is_a_fresh_one(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    write_files(vault, VAULT)
    await model_ready()
    async with started(vault, index={"watch": False}, embeddings=EMBEDDINGS) as vg:
        before = await _now(vg)
        _same(before, await _fresh(vault, tmp_path, "start"))
        ids, chunks = await _ids(vg), await _chunk_ids(vg)
        assert chunks  # the premise: the notes were chunked

        moves = [  # (tool, from, to, the notes whose text the move leaves alone)
            ("move_note", "Projects/Alpha", "Archive/Alpha", MOVED[:4]),
            ("rename_note", "Archive/Alpha", "Alpha 2", MOVED[:4]),
            ("move_note", "Other/Spec.md", "Spec.md", ["Spec.md"]),
        ]
        for step, (tool, src, dst, kept) in enumerate(moves):
            args = {"path": src, "new_path": dst}
            out = await (vg.confirmed(tool, **args) if tool == "move_note" else vg.ok(tool, **args))
            new, old = out["path"], out["old_path"]
            after = await _now(vg)
            _same(after, await _fresh(vault, tmp_path, f"step{step}"))
            now, chunks_now = await _ids(vg), await _chunk_ids(vg)
            for name in kept:  # the same row, so the same chunks: none made, none embedded again
                was, is_ = (old, new) if src.endswith(".md") else (f"{old}/{name}", f"{new}/{name}")
                assert now[is_] == ids[was], (tool, is_)
                ids[is_] = ids.pop(was)
                mine = {key: chunk for key, chunk in chunks.items() if key[0] == now[is_]}
                assert mine == {key: chunk for key, chunk in chunks_now.items() if key[0] == now[is_]}
                assert mine or name.endswith(".canvas")
        assert vg.read("Home.md") == "# Home\n\nSee [[Archive/Alpha 2/Plan]], [[Plan]] and [[Spec]].\n"


async def test_a_move_another_program_makes_keeps_the_rows_too(tmp_path: Path) -> None:
    """The watcher sees a folder moved by another program as its files deleted and created: the
    notes found again under the new folder with the same text keep their rows as well. The same
    move announced afterwards as ours (the watcher saw our move first) stores nothing again."""
    vault = tmp_path / "vault"
    write_files(vault, VAULT)
    await model_ready()
    async with started(vault, index={"watch": False}, embeddings=EMBEDDINGS) as vg:
        await _now(vg)
        ids = await _ids(vg)
        (vault / "Archive").mkdir()
        (vault / "Projects/Alpha").rename(vault / "Archive/Alpha")
        names = sorted(p[len("Projects/Alpha/") :] for p in VAULT if p.startswith("Projects/Alpha/"))
        seen = [FileChange("deleted", f"Projects/Alpha/{name}", origin="external") for name in names]
        seen += [FileChange("modified", f"Archive/Alpha/{name}", origin="external") for name in names]
        await vg.indexer()._apply_external(seen)  # the watcher's batch for that move
        # a move of our own is announced once every file moved: the watcher may have been first
        own = [FileChange("moved", f"Archive/Alpha/{name}", old_path=f"Projects/Alpha/{name}") for name in names]
        # the index holds the old paths no more: the watcher's batch removed them (and told the bus)
        assert await vg.indexer().apply(own) == []
        after = await _now(vg)
        _same(after, await _fresh(vault, tmp_path, "external"))
        now = await _ids(vg)
        assert all(now[f"Archive/Alpha/{n}"] == ids[f"Projects/Alpha/{n}"] for n in names if n != "diagram.png")


async def test_a_move_of_more_notes_than_the_bulk_threshold_rebuilds_no_full_text_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A batch of at least `BULK_THRESHOLD` changes asked for the trigram index to be rebuilt
    whole after its last part (its parts defer it); a folder's move whose notes keep their rows
    stores no note, defers nothing, and asked for that rebuild all the same (at 10k notes seconds
    of a core, and searches without it meanwhile). Here 6 files, parts of 3, a threshold of 4."""
    monkeypatch.setattr(apply, "CHUNK", 3)
    monkeypatch.setattr(runner, "BULK_THRESHOLD", 4)
    vault = tmp_path / "vault"
    files = {f"Folder/n{i}.md": f"# N{i}\n\nSee [[n{(i + 1) % 6}]] #topic\n\n- [ ] task {i}\n" for i in range(6)}
    write_files(vault, {**files, "Home.md": "[[n0]] and [[n3#N3]]\n"})
    async with started(vault, index={"watch": False}, embeddings={"provider": "none"}) as vg:
        await vg.indexed()
        ix = vg.indexer()
        await ix.trigram.settled()
        asked: list[int] = []
        real = ix._rebuild_trigram_later

        def rebuild() -> None:
            asked.append(1)
            real()

        monkeypatch.setattr(ix, "_rebuild_trigram_later", rebuild)
        out = await vg.ok("rename_note", path="Folder", new_path="Folder 2")
        assert (out["files_moved"], out["notes_rewritten"]) == (6, 0)
        await vg.settled()
        assert asked == []
        await ix.trigram.settled()
        path = Path(vg.app.services.db.path)
    moved = _dump(path)
    copy = tmp_path / "copy"
    shutil.copytree(vault, copy, ignore=shutil.ignore_patterns(".vaultgate"))
    async with started(
        copy, index={"watch": False}, embeddings={"provider": "none"}, storage={"cache_dir": tmp_path / "c"}
    ) as vg:
        await vg.indexed()
        for later in (vg.indexer().query_indexes, vg.indexer().trigram, vg.indexer().word_merge):
            await later.settled()  # a load in bulk here (the threshold of 4): its deferred work done
        fresh = _dump(Path(vg.app.services.db.path))
    _same(moved, fresh)
