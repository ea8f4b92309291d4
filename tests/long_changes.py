"""Shared test data for long changes: a hub vault, a step hold, the index's state, progress checks.

`Hold` is the `StepHook` tests give `VaultgateApp(step_hook=...)`: it holds the first long change
at one step (phase, item) until the test releases it, and records whether the call was
cancelled while held. That makes every cancellation test deterministic: the client cancels
from its progress handler, and the held step is where the server sees it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio

from service.storage.db import Database
from service.vault.commit import Phase

HUB_NOTES = 200


def hub_files(n: int = HUB_NOTES) -> dict[str, str]:
    """`n` notes that each link to `Hub` and carry `#topic`, plus the hub and a second target."""
    files = {f"Notes/n{i:03}.md": f"# Note {i}\n\nSee [[Hub]] and [[Hub#Part|part]]. #topic\n" for i in range(n)}
    files["Hub.md"] = "# Hub\n\n## Part\n\ntext\n"
    files["Other.md"] = "# Other\n\n## Part\n\nmore\n"
    return files


class Hold:
    """Holds the first long change that reaches (`phase`, `at`) until `release` is set.

    `reached` is set when the change gets there; `cancelled` when the call was cancelled while
    held (in the commit phase the hold sits inside the shield, so it is never cancelled there).
    `forever`: never released, only a cancellation ends the hold.
    """

    def __init__(self, phase: Phase = "prepare", at: int = 1, *, label: str | None = None) -> None:
        self.phase, self.at, self.label = phase, at, label
        self.reached = anyio.Event()
        self.release = anyio.Event()
        self.cancelled = anyio.Event()
        self.used = False

    async def __call__(self, label: str, phase: Phase, done: int, total: int, /) -> None:
        if self.used or phase != self.phase or done != self.at or (self.label and label != self.label):
            return
        self.used = True
        self.reached.set()
        try:
            await self.release.wait()
        except anyio.get_cancelled_exc_class():
            self.cancelled.set()
            raise


async def index_state(db: Database) -> tuple[list[Any], list[Any], list[Any]]:
    """The index rows a long change touches: notes (path, etag), links, tags."""
    notes = await db.fetchall("SELECT path, etag FROM notes ORDER BY path")
    links = await db.fetchall(
        "SELECT n.path, l.target_raw, l.target_path, l.line FROM links l JOIN notes n ON n.id = l.src_id "
        "ORDER BY n.path, l.line, l.target_raw"
    )
    tags = await db.fetchall(
        "SELECT n.path, t.tag_lower FROM note_tags t JOIN notes n ON n.id = t.note_id ORDER BY n.path, t.tag_lower"
    )
    return [tuple(r) for r in notes], [tuple(r) for r in links], [tuple(r) for r in tags]


def assert_progress(seen: list[tuple[float, float | None, str | None]]) -> None:
    """Progress values only grow, each has a total and a message, and the last reaches its total."""
    assert seen, "no progress notification"
    values = [p for p, _, _ in seen]
    assert values == sorted(values) and len(set(values)) == len(values), values
    assert all(total is not None and p <= total for p, total, _ in seen), seen
    assert all(message for _, _, message in seen), seen
    last, total, _ = seen[-1]
    assert last == total, seen[-1]


def vault_bytes(root: Path) -> dict[str, bytes]:
    """Every visible file of a vault (no cache folder), for whole-vault byte comparisons."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(root).parts)
    }
