"""`experiential.db` is opened by the first call that needs it, not at start (issue 39: its two
connections and their threads were ~2 MB of a settled 10k-note server's ~100 MB, for a store most
sessions never use). The tools behave as before; an open connection is seen as the process's
file handles on the database."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import pytest

from tests.conftest import Harness

pytestmark = pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="the process's handles (/proc)")


def open_handles(path: Path) -> int:
    """How many of this process's file descriptors are `path` (or its -wal / -shm)."""
    count = 0
    for fd in Path("/proc/self/fd").iterdir():
        with contextlib.suppress(OSError):
            count += os.readlink(fd).startswith(str(path))
    return count


async def test_the_experiences_database_is_opened_by_the_first_memory_call(vg: Harness) -> None:
    store = vg.app.services.experiences
    assert store is not None
    await vg.ok("read_note", path="Welcome")
    assert open_handles(store.path) == 0  # started and answering: the store's database not opened
    listed = await vg.ok("list_experiences")
    assert listed["items"] == [] and listed["total"] == 0
    assert open_handles(store.path) > 0
    made = await vg.ok("record_experience", kind="worked", text="the index answers at once")
    again = await vg.ok("list_experiences")
    assert [i["id"] for i in again["items"]] == [made["experience"]["id"]]
    await vg.app.stop()
    assert open_handles(store.path) == 0  # closed with the app


@pytest.mark.parametrize("kind", ["garbage", "sqlite header, garbage after", "link outside", "link to a folder"])
async def test_an_experiences_file_replaced_before_its_first_use_is_a_storage_error_and_is_left_alone(
    vg: Harness, tmp_path: Path, kind: str
) -> None:
    """Opened at start, a bad file failed the start; opened at the first memory call, it was that
    call's `internal_error` (garbage), or a link took the store's writes out of the data folder."""
    store = vg.app.services.experiences
    assert store is not None
    outside = tmp_path / "outside"
    outside.mkdir()
    store.path.unlink(missing_ok=True)
    if kind == "garbage":
        store.path.write_bytes(b"not a database at all\n" * 200)
    elif kind == "sqlite header, garbage after":
        store.path.write_bytes(b"SQLite format 3\x00" + bytes(range(256)) * 16)
    elif kind == "link outside":
        store.path.symlink_to(outside / "elsewhere.db")
    else:
        store.path.symlink_to(outside)
    before = store.path.read_bytes() if not store.path.is_symlink() else None
    for tool, args in (("list_experiences", {}), ("record_experience", {"kind": "worked", "text": "t"})):
        error = await vg.err(tool, "io_error", **args)
        assert error["details"]["where"] == "server storage" and str(store.path.parent) not in error["message"]
    assert sorted(outside.iterdir()) == []  # nothing written outside the data folder
    if before is not None:
        assert store.path.read_bytes() == before
    assert sorted(p.name for p in store.path.parent.glob("experiential.db*")) == ["experiential.db"]
    assert open_handles(store.path) == 0
    store.path.unlink()
    made = await vg.ok("record_experience", kind="worked", text="made again")  # the file moved aside: made anew
    assert (await vg.ok("list_experiences"))["items"][0]["id"] == made["experience"]["id"]


async def test_a_first_memory_call_the_stop_overtook_is_server_stopping(vg: Harness) -> None:
    store = vg.app.services.experiences
    assert store is not None
    await store.stop()
    error = await vg.err("list_experiences", "server_stopping")
    assert error["retryable"] is True
    assert open_handles(store.path) == 0
