"""How Obsidian names a new note whose name is taken (`vault.getAvailablePath(path, "md")`, which
Templater's `create_new` uses): the name asked for, else `Name 1.md`, `Name 2.md`, ... up to
`MOST_NUMBERED`. Used for the note execute_template makes, by its handler's check and preview
(the vault now) and by a plan's check (the vault after the plan's steps so far)."""

from __future__ import annotations

from collections.abc import Callable

MOST_NUMBERED = 1000  # names tried after the one asked for


def available_path(rel: str, taken: Callable[[str], bool]) -> str:
    """`rel` (a `.md` path), or the first `stem N.md` not `taken`; `rel` when all of them are."""
    stem = rel.removesuffix(".md")
    for n in range(MOST_NUMBERED + 1):
        candidate = f"{stem} {n}.md" if n else rel
        if not taken(candidate):
            return candidate
    return rel
