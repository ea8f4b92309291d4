"""The memory guards: the allocator trim after a bulk load's batches, the cap on glibc's heaps,
and the default parse-worker count."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from service import heap, malloc
from service.indexer.parsepool import default_workers
from tests.conftest import Harness


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc_trim")
def test_trim_releases_freed_memory_on_glibc() -> None:
    blocks = [bytearray(4096) for _ in range(20_000)]
    del blocks
    assert malloc.trim() is True
    assert malloc.trim() is True  # looked up once, callable again


_ARENAS = textwrap.dedent(
    """
    import ctypes, sys, threading
    from service import malloc
    print(malloc.limit_arenas() if sys.argv[1] == "limit" else "-", flush=True)
    held, meet = [], threading.Barrier(6)
    def work():
        meet.wait()  # all six threads alive and allocating at once
        held.append([bytes(20_000) for _ in range(50)])
        meet.wait()
    threads = [threading.Thread(target=work) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    ctypes.CDLL(None).malloc_stats()  # one "Arena N:" block per heap, on stderr
    """
)


def _arenas(mode: str, **env: str) -> tuple[str, int]:
    run = subprocess.run(
        [sys.executable, "-c", _ARENAS, mode],
        capture_output=True,
        text=True,
        check=True,
        env={**{k: v for k, v in os.environ.items() if k != "MALLOC_ARENA_MAX"}, **env},
    )
    return run.stdout.strip(), sum(line.startswith("Arena ") for line in run.stderr.splitlines())


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's arenas")
def test_the_heaps_are_capped_at_two_unless_the_environment_says_otherwise() -> None:
    assert _arenas("free") == ("-", 7)  # glibc's own way: one heap per thread (main + 6)
    assert _arenas("limit") == ("True", malloc.ARENAS)
    said, heaps = _arenas("limit", MALLOC_ARENA_MAX="3")
    assert (said, heaps) == ("False", 3)


# `vaultgate stdio` as its console script runs it (stdin at its end), with a record of the order in
# which `mallopt` is looked up (`_libc_function`'s only lookup) and threads are started.
_STDIO = textwrap.dedent(
    """
    import _thread, ctypes, sys, threading
    events = []
    lookup, start = ctypes.CDLL.__getattr__, _thread.start_new_thread
    def looked_up(self, name):
        events.append(name)
        return lookup(self, name)
    def started(*args, **kwargs):
        events.append("thread")
        return start(*args, **kwargs)
    ctypes.CDLL.__getattr__ = looked_up
    _thread.start_new_thread = threading._start_new_thread = started
    from service.__main__ import main
    sys.argv = ["vaultgate", "stdio", sys.argv[1]]
    code = main()
    print("events", code, *[e for e in events if e in ("mallopt", "thread")], file=sys.stderr, flush=True)
    ctypes.CDLL(None).malloc_stats()  # one "Arena N:" block per heap, on stderr
    """
)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's arenas")
def test_the_stdio_command_caps_the_heaps_before_its_first_thread(make_vault: Callable[..., Path]) -> None:
    """A thread keeps the heap its first allocation got: the cap was set by the app's start, after
    the stdio front's reader had started (`service.malloc`)."""
    run = subprocess.run(
        [sys.executable, "-c", _STDIO, str(make_vault({"Home.md": "# Home\n"}))],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=300,
        env={k: v for k, v in os.environ.items() if k != "MALLOC_ARENA_MAX"}
        | {"VAULTGATE_EMBEDDINGS__PROVIDER": "none"},
    )
    lines = run.stderr.splitlines()
    (events,) = [line.split()[1:] for line in lines if line.startswith("events ")] or [run.stderr[-2000:]]
    assert events[:3] == ["0", "mallopt", "thread"]  # ended as after a client closed stdin; the cap first
    assert sum(line.startswith("Arena ") for line in lines) <= malloc.ARENAS


@pytest.mark.parametrize(("cpus", "workers"), [(1, 0), (2, 1), (3, 1), (4, 2), (5, 3), (64, 3)])
def test_one_parse_worker_on_two_cpus_none_on_one_and_at_most_three(cpus: int, workers: int) -> None:
    assert default_workers(cpus) == workers


def test_the_default_follows_the_usable_cpus() -> None:
    assert 0 <= default_workers() <= 3


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc_trim")
async def test_the_trimmer_trims_until_it_is_stopped() -> None:
    import asyncio

    trimmer = heap.HeapTrimmer(every_s=0)
    await trimmer.start()
    for _ in range(10_000):  # bounded wait for two rounds, no clock involved
        if trimmer.runs >= 2:
            break
        await asyncio.sleep(0.001)
    await trimmer.stop()
    assert trimmer.runs >= 2
    stopped_at = trimmer.runs
    for _ in range(5):
        await asyncio.sleep(0)
    assert trimmer.runs == stopped_at


async def test_the_trimmer_releases_before_each_trim_and_survives_a_failed_release(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import asyncio

    steps: list[str] = []
    monkeypatch.setattr(heap, "trim", lambda: steps.append("trim") or True)

    async def release() -> None:
        steps.append("release")

    async def broken() -> None:
        raise RuntimeError("database is not open")

    trimmer = heap.HeapTrimmer(every_s=0, release=[broken, release])
    await trimmer.start()
    for _ in range(10_000):
        if trimmer.runs >= 2:
            break
        await asyncio.sleep(0.001)
    await trimmer.stop()
    assert steps[:4] == ["release", "trim", "release", "trim"]


async def test_the_app_runs_a_trimmer_that_releases_its_databases_caches(vg: Harness) -> None:
    (trimmer,) = [c for c in vg.app.components if isinstance(c, heap.HeapTrimmer)]
    owners = {getattr(fn, "__self__", None) for fn in trimmer.release}
    # and drops the Obsidian settings files kept for next pages once idle (`service.obsidian.kept`)
    assert owners == {vg.app.db, vg.app.state, vg.app.experiences.db, vg.app.services.settings_files}
