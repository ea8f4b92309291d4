"""A vault-wide edit's preview holds no more of a note's changed lines than it lists (U12, session
78). Since 42bd778b a preview lists a file's changed lines while they fit a quarter of the response
budget and counts the rest (`changes_not_listed`), but each planned edit still held every changed
line, before and after: a 50 MB note whose 675,000 lines each link to a moved note held ~215 MB
of them for an answer of 265 KB (move_note dry run: peak RSS 669 MB). Each edit now keeps the
changed lines its answer can list and counts the others (`service.graph.rewrite.LineChanges`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any

import pytest

from service.graph.moves import FileEdit
from service.graph.rewrite import LineChange
from tests.conftest import started

BUDGET = 64 * 1024  # governor.max_response_bytes: a few hundred lines fill a quarter of it
LINES = 3000
LINE = "A line {n} of the log that links to [[Home]] and carries #tag and more words.\n"
LOG = "# Log\n" + "".join(LINE.format(n=n) for n in range(LINES))
FILES = {"Home.md": "# Home\n", "Other.md": "See [[Home]].\n", "Log.md": LOG, "Map.canvas": "{}\n"}
CALLS: list[tuple[str, dict[str, Any], Callable[[str], str]]] = [
    ("move_note", {"path": "Home", "new_path": "Moved/Start"}, lambda s: s.replace("[[Home]]", "[[Start]]")),
    ("rename_note", {"path": "Home", "new_path": "Start"}, lambda s: s.replace("[[Home]]", "[[Start]]")),
    ("rewrite_links", {"old_target": "Home", "new_target": "Other"}, lambda s: s.replace("[[Home]]", "[[Other]]")),
    ("rename_tag", {"old": "tag", "new": "label"}, lambda s: s.replace("#tag", "#label")),
    ("replace_text", {"path": "Log", "find": "words", "replace": "text"}, lambda s: s.replace("words", "text")),
]


@pytest.fixture
def held(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """The changed lines each planned edit holds, by path (the most of any plan)."""
    most: dict[str, int] = {}
    init = FileEdit.__init__

    def counted(
        self: FileEdit, path: str, new_path: str, etag: str, original: str, text: str, changes: Any, *rest: Any
    ) -> None:
        most[path] = max(most.get(path, 0), sum(1 for _ in changes))
        init(self, path, new_path, etag, original, text, changes, *rest)  # `rest`: the note's encoding (c68096aa)

    monkeypatch.setattr(FileEdit, "__init__", counted)
    return most


def expected(change: Callable[[str], str], lines: Collection[int]) -> list[dict[str, Any]]:
    old = LOG.split("\n")
    return [{"line": n, "before": old[n - 1], "after": change(old[n - 1])} for n in lines]


@pytest.mark.parametrize(("tool", "args", "change"), CALLS, ids=[c[0] for c in CALLS])
async def test_a_preview_holds_only_the_lines_it_lists(
    make_vault: Callable[..., Path], held: dict[str, int], tool: str, args: dict[str, Any], change: Callable[[str], str]
) -> None:
    async with started(make_vault(FILES), governor={"max_response_bytes": BUDGET}) as vg:
        await vg.indexed()
        before = vg.snapshot()
        out = await vg.ok(tool, **args, dry_run=True)
        log = next(i for i in out["items"] if i["path"] == "Log.md")
        listed = len(log["changes"])
        assert 0 < listed < LINES and listed + log["changes_not_listed"] == LINES
        assert log["changes"] == expected(change, range(2, listed + 2))  # the first lines, as they change
        assert held["Log.md"] <= listed + 1, f"{tool}: an edit held {held['Log.md']} changed lines, {listed} listed"
        assert vg.snapshot() == before
        # applied: every line changes, the answer lists what fits
        apply = vg.ok if tool == "rename_note" else vg.confirmed  # a rename in its folder asks no one
        done = await apply(tool, **args, dry_run=False)
        total = done.get("links_rewritten", done.get("lines_changed"))
        assert total is not None and total >= LINES, done
        assert held["Log.md"] <= listed + 1
    assert vg.read("Log.md") == change(LOG)


def test_a_list_of_changes_keeps_what_a_preview_lists() -> None:
    """`LineChanges` keeps a prefix at least as long as `change_item` lists for the same budget:
    lines weighed in characters (no more than their bytes), a long line as the preview cuts it."""
    from service.graph.rewrite import LineChanges

    long = "é" * 50_000
    changes = [LineChange(n, long if n % 3 else "a", "b" * (n * 37 % 9000)) for n in range(1, 400)]
    kept = LineChanges(4096, changes)
    assert len(kept) == 399 and 1 <= len(list(kept)) < 399
    assert list(kept) == changes[: len(list(kept))]
    assert LineChanges(None, changes) == changes and len(list(LineChanges(10, changes))) == 1
