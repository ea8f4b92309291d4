"""The audit's most linked notes (whose titles its unlinked mentions look for first) are counted from
the links' target index alone, not by reading each link's row for its source: at 100k notes (632k
links) that GROUP BY held a SQLite reader thread 1.7-3.3 s a run (0.15-0.2 s now; docs/benchmarks.md).
The links of the plane's own notes (`Digests/`) still count for nothing: they are taken off through
the links' source index. Checked during a run_consolidation through the whole dispatch chain: the
statements the most-linked read runs and their query plans (on the reader that ran them), and what
it found."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

from service.plane.job import JobContext
from tests.conftest import started

T = TypeVar("T")


def vault() -> dict[str, str]:
    files = {f"Notes/N{i}.md": f"# N{i}\n\nSee [[Popular]] and [[Second]].\n" for i in range(6)}
    files["Notes/N0.md"] += "Also [[Third]].\n"
    files["Popular.md"] = "# Popular\n\nLinked by six.\n"
    files["Second.md"] = "# Second\n\nLinked by six too.\n"
    files["Third.md"] = "# Third\n\nLinked by one note, and by digests many times.\n"
    # the plane's own notes: their links count for nothing, so Third stays the least linked
    for d in range(3):
        files[f"Digests/2026-12-0{d + 1} digest.md"] = "# Digest\n\n" + "[[Third]] " * 12 + "[[Popular]]\n"
    files["Digests/Only.md"] = "# Only\n\n[[Lonely target]]\n"  # linked by the plane's notes only: not linked
    files["Lonely target.md"] = "# Lonely target\n\nNo link out.\n"
    return files


async def test_most_linked_counts_links_from_the_target_index_without_the_planes_own(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: dict[str, Any] = {}
    real = JobContext.read

    async def traced(self: JobContext, fn: Callable[[sqlite3.Connection], T]) -> T:
        if not getattr(fn, "__qualname__", "").endswith("mentions.<locals>.most_linked"):
            return await real(self, fn)

        def tracing(c: sqlite3.Connection) -> T:
            statements: list[str] = []
            c.set_trace_callback(statements.append)
            try:
                found = fn(c)
            finally:
                c.set_trace_callback(None)
            seen["plans"] = [
                str(row[-1])
                for sql in statements
                if "links" in sql
                for row in c.execute("EXPLAIN QUERY PLAN " + sql).fetchall()
            ]
            seen["found"] = found
            return found

        return await real(self, tracing)

    monkeypatch.setattr(JobContext, "read", traced)
    async with started(make_vault(vault())) as vg:
        await vg.indexed()
        await vg.ok("run_consolidation", wait=True, jobs=["audit"])
    linked, _in_turn = seen["found"]
    assert linked == ["Popular.md", "Second.md", "Third.md"]  # six, six, one: the digests' links left out
    reads = [p for p in seen["plans"] if "links" in p and p.startswith(("SEARCH", "SCAN"))]
    assert reads, seen["plans"]
    # each link is counted from an index alone (COVERING), or only the plane's own notes' links are read
    # (by their source); before: "SEARCH links USING INDEX links_by_target", a row read per link
    every_link = [p for p in reads if "links_by_target" in p]
    assert every_link and all("COVERING INDEX" in p for p in every_link), reads
    assert all("COVERING INDEX" in p or "links_by_src" in p for p in reads), reads
