"""Kill a process at a chosen moment: the crash tests' common first half.

`kill_when_held(module, root, marker)` runs `python -m module ROOT MARKER` from the repository
(the module sets up its own hold and writes MARKER once it is inside the moment to be cut), waits
for the marker and sends SIGKILL, so nothing of that process runs afterwards: no `finally`, no
rollback, no flush. What the process left on disk is then the test's to check.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
from anyio.abc import Process

REPO = Path(__file__).resolve().parents[1]


async def kill_when_held(module: str, root: Path, marker: Path, *more: str) -> None:
    """`more`: further arguments, after MARKER. SIGKILLed once held (`held`)."""
    async with held(module, root, marker, *more) as proc:
        proc.kill()


async def run_until_killed(module: str, *args: str) -> int:
    """Run `python -m module ARGS...` from the repository, a process that SIGKILLs itself at the
    moment to be cut, to its end (at most 120 s); its return code (-SIGKILL when it did)."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = await anyio.open_process([sys.executable, "-m", module, *args], env=env, cwd=REPO, stdout=None, stderr=None)
    try:
        with anyio.fail_after(120):
            await proc.wait()
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    assert proc.returncode is not None
    return proc.returncode


@contextlib.asynccontextmanager
async def held(module: str, root: Path, marker: Path, *more: str) -> AsyncIterator[Process]:
    """`python -m module ROOT MARKER` held at its moment (MARKER written) while the block runs,
    alive: the block may SIGKILL it (`proc.kill()`); it is killed at the block's end otherwise."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    command = [sys.executable, "-m", module, str(root), str(marker), *more]
    proc = await anyio.open_process(command, env=env, cwd=REPO, stdout=None, stderr=None)
    try:
        with anyio.fail_after(120):
            while not await anyio.Path(marker).exists():
                assert proc.returncode is None, f"{module} ended before its hold"
                await anyio.sleep(0.05)
        yield proc
    finally:
        if proc.returncode is None:
            proc.kill()
        with anyio.fail_after(30):
            await proc.wait()
