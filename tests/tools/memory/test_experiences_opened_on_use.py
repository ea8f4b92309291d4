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
