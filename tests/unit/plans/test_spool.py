"""The journal's spool files: the record format, a torn tail, and their way into `plan_journal`.

A running run appends each change to its spool file (`service.plans.spool`) before the change;
closing the run moves the records into `plan_journal` rows and removes the file; a file a dead
process left is moved in at the next start (`Journal.recover`), exactly once.
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from service.plans import journal as journal_module
from service.plans import spool
from service.plans.journal import Journal
from service.storage.db import Database
from service.storage.migrate import migrate
from service.vault.journal import PriorState

CHANGES = [
    PriorState("file", "A.md", b"# A\n\nold text\n", "e1"),
    PriorState("file", "New/B.md", None, "e2"),  # absent before
    PriorState("file", "C.md", b"", None),  # an empty file, deleted
    PriorState("file", "bin.md", bytes(range(256)) * 3, "e3"),  # any bytes, not only UTF-8
    PriorState("folder", "New"),
    PriorState("move", "Old", dst="Gone/Old"),
    PriorState("file", "Ünï cödé/ноте.md", "ü".encode(), "e4"),
]


def _spool(path: Path, changes: list[PriorState]) -> bytes:
    data = spool.MAGIC + b"".join(spool.encode(i + 1, f"s{i}", c, 100.0 + i) for i, c in enumerate(changes))
    path.write_bytes(data)
    return data


def _expected(changes: list[PriorState]) -> list[spool.Row]:
    return [(i + 1, f"s{i}", c.kind, c.rel, c.dst, c.prior, c.new_etag, 100.0 + i) for i, c in enumerate(changes)]


def test_records_read_back_as_written_prior_bytes_and_absence_exact(tmp_path: Path) -> None:
    data = _spool(tmp_path / "r.jnl", CHANGES)
    rows = list(spool.read_records(data))
    assert rows == _expected(CHANGES)
    assert rows[1][5] is None and rows[2][5] == b""  # absent and empty stay apart


def test_a_torn_last_record_is_dropped_at_every_cut_and_a_bad_checksum_ends_the_file(tmp_path: Path) -> None:
    data = _spool(tmp_path / "r.jnl", CHANGES)
    last = len(spool.MAGIC) + sum(len(spool.encode(i + 1, f"s{i}", c, 100.0 + i)) for i, c in enumerate(CHANGES[:-1]))
    for cut in range(last, len(data)):
        assert list(spool.read_records(data[:cut])) == _expected(CHANGES[:-1])
    flipped = bytearray(data)
    flipped[last + 12] ^= 0xFF  # inside the last record's body
    assert list(spool.read_records(bytes(flipped))) == _expected(CHANGES[:-1])
    assert list(spool.read_records(b"not a spool")) == []


@pytest.fixture
async def journal(tmp_path: Path) -> AsyncIterator[Journal]:
    db = Database(tmp_path / "state.db", readers=1)
    await db.open()
    await migrate(db)
    j = Journal(db)
    try:
        yield j
    finally:
        j.close()
        await db.close()


async def _rows(j: Journal, run_id: str) -> list[tuple[object, ...]]:
    return [(e.seq, e.step_id, e.kind, e.path, e.dst, e.prior, e.new_etag) for e in await j.entries(run_id)]


def _as_entries(changes: list[PriorState], step: str) -> list[tuple[object, ...]]:
    return [(i + 1, step, c.kind, c.rel, c.dst, c.prior, c.new_etag) for i, c in enumerate(changes)]


async def test_a_run_spools_its_changes_and_closing_it_moves_them_into_the_table(journal: Journal) -> None:
    run = await journal.open_run("v", "c", kind="plan", goal="g", plan_hash="h", total=1)
    recorder = journal.recorder(run).for_step("s")
    assert not journal.spool_path(run).exists()  # nothing changed yet: no file
    for change in CHANGES:
        recorder.record(change)
    path = journal.spool_path(run)
    assert [r[:7] for r in spool.read_records(path.read_bytes())] == _as_entries(CHANGES, "s")
    assert await journal.entries(run) == []  # in the spool while running
    await journal.close_run(run, "done", [], 1)
    assert not path.exists()
    assert await _rows(journal, run) == _as_entries(CHANGES, "s")
    with pytest.raises(RuntimeError):
        recorder.record(CHANGES[0])  # a closed run takes no more changes


async def test_a_run_without_changes_leaves_no_spool_and_no_rows(journal: Journal) -> None:
    run = await journal.open_run("v", "c", kind="plan", goal="g", plan_hash="h", total=1)
    journal.recorder(run)
    await journal.close_run(run, "done", [], 1)
    assert not journal.spool.exists() or not any(journal.spool.iterdir())
    assert await journal.entries(run) == []
    assert await journal.last_undoable("v", "c") is None


async def test_changes_recorded_from_many_threads_get_distinct_sequence_numbers(journal: Journal) -> None:
    run = await journal.open_run("v", "c", kind="plan", goal="g", plan_hash="h", total=1)
    recorder = journal.recorder(run)

    def worker(n: int) -> None:
        view = recorder.for_step(f"t{n}")
        for i in range(50):
            view.record(PriorState("file", f"T{n}/{i}.md", f"{n}-{i}".encode(), f"e{n}-{i}"))

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    await journal.close_run(run, "done", [], 1)
    entries = await journal.entries(run)
    assert [e.seq for e in entries] == list(range(1, 201))
    assert {(e.path, e.prior) for e in entries} == {
        (f"T{n}/{i}.md", f"{n}-{i}".encode()) for n in range(4) for i in range(50)
    }


async def test_a_dead_processs_spool_is_imported_once_at_the_next_start(journal: Journal, tmp_path: Path) -> None:
    run = await journal.open_run("v", "c", kind="plan", goal="g", plan_hash="h", total=2)
    recorder = journal.recorder(run).for_step("s")
    for change in CHANGES:
        recorder.record(change)
    journal.close()  # the process dies: the run stays `running`, its spool stays
    orphan = journal.spool_path("f" * 32)
    _spool(orphan, CHANGES[:1])  # the spool of a run whose row is gone (pruned)
    after = Journal(journal.db)  # the next process
    await after.recover()
    row = await after.run(run)
    assert row is not None and row.status == "interrupted"
    assert await _rows(after, run) == _as_entries(CHANGES, "s")
    assert not journal.spool_path(run).exists() and not orphan.exists()
    undoable = await after.last_undoable("v", "c")
    assert undoable is not None and undoable.id == run
    # A spool whose import was committed but whose removal did not happen is imported again
    # without duplicates.
    _spool(journal.spool_path(run), CHANGES)
    again = Journal(journal.db)
    await again.recover()
    assert len(await again.entries(run)) == len(CHANGES)
    assert not journal.spool_path(run).exists()


async def test_a_run_too_large_to_keep_in_memory_is_imported_from_its_spool(
    journal: Journal, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(journal_module, "KEEP_IN_MEMORY", 100)
    run = await journal.open_run("v", "c", kind="plan", goal="g", plan_hash="h", total=1)
    recorder = journal.recorder(run)
    for change in CHANGES:
        recorder.write("s", change)
    assert recorder.rows is None  # past the limit: closing reads the spool back
    await journal.close_run(run, "done", [], 1)
    assert await _rows(journal, run) == _as_entries(CHANGES, "s")


def test_a_stamp_record_becomes_the_etag_of_the_newest_move_to_its_path_and_is_dropped() -> None:
    rows: list[spool.Row] = [
        (1, "s", "move", "A.md", "B.md", None, "stat:9:1:2", 0.0),
        (2, "s", "move", "B.md", "C.md", None, "stat:9:1:2", 0.0),
        (3, "s", "stamp", "C.md", None, None, "stat:9:1:2:7", 0.0),
        (4, "s", "file", "D.md", None, None, "e" * 32, 0.0),
    ]
    assert spool.settled(rows) == [rows[0], (*rows[1][:6], "stat:9:1:2:7", 0.0), rows[3]]
