"""The audit's orphans read the notes that link nowhere and the links to those, not every link of
the vault: at 100k notes (600k links) the set of every link's source and of every (source, target)
pair held a SQLite reader thread 8-17 s and the interpreter with it (docs/benchmarks.md, "the
consolidation plane at 100,000 notes"). Here the rows the orphans' read turns into Python objects
are counted (a counting row factory on the reader it runs on) during a run_consolidation through
the whole dispatch chain: they follow the candidates, not the links, and the orphans found are
the same (a link from a note a reader may not see still counts for nothing)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

from service.plane.job import JobContext
from tests.conftest import started

T = TypeVar("T")
HUB = 30  # notes that all link one another: 870 links


def vault() -> dict[str, str]:
    files = {f"Hub/N{i}.md": "# N\n\n" + " ".join(f"[[N{j}]]" for j in range(HUB) if j != i) for i in range(HUB)}
    files["Lonely.md"] = "# Lonely\n\nNobody links here.\n"
    files["Linked only by a secret.md"] = "# Linked only by a secret\n\nNo link out.\n"
    files["Private/Secret.md"] = "# Secret\n\nSee [[Linked only by a secret]].\n"
    files["Target.md"] = "# Target\n\nNo link out.\n"  # linked from the hub: no orphan
    files["Hub/N0.md"] += " [[Target]]"
    return files


async def test_orphans_read_rows_of_their_candidates_not_of_every_link(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    rows: dict[str, int] = {}
    real = JobContext.read

    async def counted(self: JobContext, fn: Callable[[sqlite3.Connection], T]) -> T:
        name = getattr(fn, "__qualname__", "")

        def counting(c: sqlite3.Connection) -> T:
            def factory(cursor: sqlite3.Cursor, row: tuple[Any, ...]) -> tuple[Any, ...]:
                rows[name] = rows.get(name, 0) + 1
                return row

            c.row_factory = factory
            try:
                return fn(c)
            finally:
                c.row_factory = None

        return await real(self, counting)

    monkeypatch.setattr(JobContext, "read", counted)
    acl = {"prefix_rules": [{"path": "Private", "read": "deny", "write": "deny"}]}
    async with started(make_vault(vault()), acl=acl) as vg:
        await vg.indexed()
        await vg.ok("run_consolidation", wait=True, jobs=["audit"])
        found = (await vg.ok("list_findings", kind="orphan", limit=100))["items"]
    orphans = sorted(f["detail"]["path"] for f in found)
    assert orphans == ["Linked only by a secret.md", "Lonely.md"]  # a hidden note's link counts for nothing
    read = rows["Audit.orphans.<locals>.linked"]
    assert read <= 10, read  # the 4 notes that link nowhere and the link to one of them; before: 900
