"""Temp files left by an interrupted atomic write are removed at start-up, never one another
live process may still be writing."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from service.vault.temps import GRACE_SECONDS, HOST, TEMP_NAME, is_stale, sweep, temp_name
from tests.conftest import started


def dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def leftover(folder: Path, target: str, pid: int | None, age: float, host: str = "") -> Path:
    tag = f".p{pid}{host}" if pid is not None else ""
    path = folder / f".{target}.0123456789ab{tag}.vgtmp"
    path.write_text("half a note", encoding="utf-8")
    moment = time.time() - age
    os.utime(path, (moment, moment))
    return path


def test_temp_names_carry_the_writer_and_name_the_target() -> None:
    found = TEMP_NAME.match(temp_name("Idea.md"))
    assert found is not None
    assert found["name"] == "Idea.md" and found["pid"] == str(os.getpid()) and found["host"] == HOST


def test_a_temp_file_of_a_dead_writer_on_this_host_is_stale_at_once(tmp_path: Path) -> None:
    """A restart right after a kill finds the killed writer's temp files a second old: they go
    (the pid is known dead here); another host's, or an untagged one, waits out the grace."""
    now = time.time()
    gone = dead_pid()
    assert is_stale(leftover(tmp_path, "a.md", gone, age=0.5, host=f"h{HOST}"), now=now, started=now)
    assert not is_stale(leftover(tmp_path, "b.md", gone, age=0.5, host="h00000000"), now=now, started=now)
    assert not is_stale(leftover(tmp_path, "c.md", gone, age=0.5), now=now, started=now)


def test_a_temp_file_with_this_processs_pid_from_before_its_start_is_stale_at_once(tmp_path: Path) -> None:
    """A container's PID 1 restarted after a kill (K2 s95): the killed server had this pid on this
    host, so it is gone; one written since this process started may be its own write in flight,
    and another host's pid means nothing here."""
    now, me = time.time(), os.getpid()
    assert is_stale(leftover(tmp_path, "a.md", me, age=0.5, host=f"h{HOST}"), now=now, started=now)
    assert not is_stale(leftover(tmp_path, "b.md", me, age=0.5, host=f"h{HOST}"), now=now, started=now - 1)
    assert not is_stale(leftover(tmp_path, "c.md", me, age=0.5, host="h00000000"), now=now, started=now)
    assert not is_stale(leftover(tmp_path, "d.md", me, age=0.5), now=now, started=now)


def test_which_temp_files_are_stale(tmp_path: Path) -> None:
    now = time.time()
    started = now - 10
    gone = dead_pid()
    assert is_stale(leftover(tmp_path, "a.md", gone, age=60), now=now, started=started)
    # written after this process started: maybe its own write in flight
    assert not is_stale(leftover(tmp_path, "b.md", gone, age=1), now=now, started=started)
    # a live writer (another server on the same vault) keeps its file unless it is ancient
    assert not is_stale(leftover(tmp_path, "c.md", os.getppid(), age=600), now=now, started=started)
    assert is_stale(leftover(tmp_path, "d.md", os.getppid(), age=GRACE_SECONDS + 60), now=now, started=started)
    # no writer in the name (an older version's file): only after the long grace
    assert not is_stale(leftover(tmp_path, "e.md", None, age=600), now=now, started=started)
    assert is_stale(leftover(tmp_path, "f.md", None, age=GRACE_SECONDS + 60), now=now, started=started)
    # not ours at all
    other = tmp_path / ".g.md.swp"
    other.write_text("x", encoding="utf-8")
    assert not is_stale(other, now=now, started=started)


def test_sweep_removes_only_the_stale_and_tolerates_vanished_files(tmp_path: Path) -> None:
    stale = leftover(tmp_path, "a.md", dead_pid(), age=60)
    live = leftover(tmp_path, "b.md", os.getppid(), age=60)
    names = [stale.name, live.name, ".gone.md.0123456789ab.p1.vgtmp"]
    assert sweep(tmp_path, names, started=time.time()) == [stale.name]
    assert not stale.exists() and live.exists()


async def test_start_up_removes_what_a_crashed_write_left_and_indexes_nothing_of_it(
    make_vault: Callable[..., Path],
) -> None:
    root = make_vault({"Inbox/Idea.md": "# Idea\n"})
    # "before this process started" is the test process here: a day ago is before it
    stale = leftover(root / "Inbox", "Idea.md", dead_pid(), age=86400)
    live = leftover(root / "Inbox", "Other.md", os.getppid(), age=600)
    async with started(root) as vg:
        await vg.indexed()
        assert not stale.exists()
        assert live.exists()
        listed = [i["path"] for i in (await vg.ok("list_notes"))["items"]]
        assert listed == ["Inbox/Idea.md"]
        assert (await vg.ok("read_note", path="Inbox/Idea"))["content"] == "# Idea\n"
