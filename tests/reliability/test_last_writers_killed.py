"""kill -9 in, or right after, a file's write, delete or move by the writers the other kill tests
(test_newest_writers_killed.py, test_more_writers_killed.py) do not cover, then a new server on
the same data folder (tests/reliability/writes_killed.py's `call` scenario: the call runs through
the dispatch chain and the process SIGKILLs itself; `gone:` / `gone-after:` kill it as a file is
unlinked or moved away):

- note tools: prepend_note, patch_note, copy_note, add_tags, remove_tags, delete_property,
  delete_note (to the trash), move_note (the note, then a path link to it in another note);
- memory tools: create_entities and delete_entities (two entities each), delete_relations,
  memory_store;
- obsidian tools: write_excalidraw (a new drawing), create_periodic_note (from its template),
  remove_bookmark.

Each time the next start leaves the vault as it was (the call not begun, or rolled back when it
is journaled), or, after the one file of a call that changes one file, as the call leaves it;
the call done again then leaves the vault byte for byte as an uninterrupted call leaves a copy
(but for what each call makes anew: times, observation ids, a drawing's element ids and seeds).
"""

from __future__ import annotations

import json
import re
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Harness, snapshot, started
from tests.killed import run_until_killed
from tests.reliability.test_more_writers_killed import _vault_only, temps
from tests.reliability.test_newest_writers_killed import swept

MODULE = "tests.reliability.writes_killed"

ANN = (
    "---\nname: Ann\nentityType: person\n---\n# Ann\n\n## Observations\n- lives in Oslo ^a1\n\n"
    "## Relations\n- knows [[Bob]]\n"
)
BOB = "---\nname: Bob\nentityType: person\n---\n# Bob\n\n## Observations\n- builds boats ^b1\n"
BOOKMARKS = {"items": [{"type": "file", "path": "Home.md"}, {"type": "file", "path": "Old.md"}]}
VAULT: dict[str, str] = {
    "Home.md": "# Home\n\nSee [[Old]], [[Notes/a#Part|the part]] and [[Notes/a]].\n",
    "Old.md": "---\ntags: [keep]\n---\n# Old\n\nbody\n",
    "Notes/a.md": "---\nstatus: draft\ntags: [x, y]\n---\n# a\n\n## Part\n\ntext\n\n## End\n\n[[Old#Part]]\n",
    "Archive/kept.md": "# kept\n",
    "Daily/2026-01-01.md": "# 2026-01-01\n",
    "Templates/Daily.md": "# {{date}}\n\n## Log\n",
    ".obsidian/daily-notes.json": json.dumps({"folder": "Daily", "template": "Templates/Daily"}),
    ".obsidian/bookmarks.json": json.dumps(BOOKMARKS, indent=2) + "\n",
    "Memory/Ann.md": ANN,
    "Memory/Bob.md": BOB,
}
NEW_PEOPLE = [
    {"name": "Cy", "entityType": "person", "observations": ["rows"]},
    {"name": "Di", "entityType": "person", "observations": ["sails"]},
]
DRAWN = [{"type": "text", "x": 0, "y": 0, "text": "hi"}]
KNOWS = [{"from": "Ann", "to": "Bob", "relationType": "knows"}]
# the call; the files to kill it at (a write's path, `gone:` a file deleted or moved away)
WRITERS: dict[str, tuple[str, dict[str, Any], list[str]]] = {
    "prepend": ("prepend_note", {"path": "Old", "content": "first\n"}, ["Old.md"]),
    "patch": ("patch_note", {"path": "Notes/a", "heading": ["a", "Part"], "content": "more\n"}, ["Notes/a.md"]),
    "copy": ("copy_note", {"path": "Old", "new_path": "Archive/Old copy"}, ["Archive/Old copy.md"]),
    "add_tags": ("add_tags", {"path": "Old", "tags": ["new"]}, ["Old.md"]),
    "remove_tags": ("remove_tags", {"path": "Notes/a", "tags": ["x"]}, ["Notes/a.md"]),
    "delete_property": ("delete_property", {"path": "Notes/a", "key": "status"}, ["Notes/a.md"]),
    "delete_note": ("delete_note", {"path": "Notes/a"}, ["gone:Notes/a.md"]),
    "move_note": (
        "move_note",
        {"path": "Notes/a", "new_path": "Archive/a"},
        ["gone:Notes/a.md", "Home.md"],
    ),
    "create_entities": ("create_entities", {"entities": NEW_PEOPLE}, ["Memory/Cy.md", "Memory/Di.md"]),
    "delete_entities": (
        "delete_entities",
        {"entityNames": ["Ann", "Bob"]},
        ["gone:Memory/Ann.md", "gone:Memory/Bob.md"],
    ),
    "delete_relations": ("delete_relations", {"relations": KNOWS}, ["Memory/Ann.md"]),
    "memory_store": ("memory_store", {"key": "Rent", "value": "Due on the 3rd"}, ["Memory/Rent.md"]),
    "excalidraw": ("write_excalidraw", {"path": "Sketch.excalidraw.md", "add": DRAWN}, ["Sketch.excalidraw.md"]),
    "periodic": ("create_periodic_note", {"period": "daily", "date": "2026-01-05"}, ["Daily/2026-01-05.md"]),
    "bookmark": ("remove_bookmark", {"path": "Old.md"}, [".obsidian/bookmarks.json"]),
}
CASES = [(w, i) for w, (_, _, rels) in WRITERS.items() for i in range(len(rels))]
PARAMS = [
    pytest.param(
        w,
        i,
        after,
        id=f"{w}-{i}-{'after' if after else 'in'}",
    )
    for w, i in CASES
    for after in (False, True)
]


_MADE_ANEW = re.compile(rb"\^m-[0-9a-z]+|```compressed-json\n[^`]*```|(?<=\nhi )\^[0-9A-Za-z]{8}\n")


def _same(files: dict[str, bytes]) -> dict[str, bytes]:
    """`_vault_only`, each observation's id and a drawing's compressed scene (its element ids and
    seeds are random) left out: the scene's text is compared by `read_excalidraw` instead."""
    return {k: _MADE_ANEW.sub(b"<new>", v) for k, v in _vault_only(files).items()}


def _point(rel: str, after: bool) -> str:
    """The kill point writes_killed.py reads: `REL` / `after:REL`, `gone:REL` / `gone-after:REL`."""
    if rel.startswith("gone:"):
        return ("gone-after:" if after else "gone:") + rel.removeprefix("gone:")
    return ("after:" if after else "") + rel


async def _call(vg: Harness, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    first = await vg.call(tool, **args)
    assert first.structured is not None
    if first.is_error and first.structured["error"]["code"] == "elicit_required":
        return await vg.confirmed(tool, **args)
    assert not first.is_error, first.structured
    return first.structured


_WHOLE: dict[str, dict[str, bytes]] = {}


async def _whole(make_vault: Callable[..., Path], writer: str) -> dict[str, bytes]:
    """The vault as an uninterrupted call leaves a copy of it (`_same`), made once per writer."""
    if writer not in _WHOLE:
        tool, args, _ = WRITERS[writer]
        reference = make_vault(VAULT)
        async with started(reference) as vg:
            await vg.indexed()
            await _call(vg, tool, args)
        _WHOLE[writer] = _same(snapshot(reference))
    return _WHOLE[writer]


@pytest.mark.parametrize(("writer", "at", "after"), PARAMS)
async def test_a_writer_killed_recovers_to_its_call_whole_or_not_at_all(
    make_vault: Callable[..., Path], writer: str, at: int, after: bool
) -> None:
    tool, args, rels = WRITERS[writer]
    whole = await _whole(make_vault, writer)
    root = make_vault(VAULT)
    before = snapshot(root)
    point = _point(rels[at], after)
    call = json.dumps({"tool": tool, "args": args})
    assert await run_until_killed(MODULE, str(root), "call", point, call) == -signal.SIGKILL
    async with started(root) as vg:
        rows: list[Any] = await vg.app.state.fetchall("SELECT kind, status FROM plan_runs ORDER BY started_at")
        journaled = bool(rows)
        if journaled:
            assert [tuple(r) for r in rows] == [("bulk", "interrupted"), ("undo", "done")], rows
        if journaled or not after:
            assert swept(root, point.removeprefix("gone:").removeprefix("gone-after:")) == before
            await vg.indexed()
            await _call(vg, tool, args)  # done again, whole
        assert not temps(root)
        assert _same(snapshot(root)) == whole
        if writer == "excalidraw":
            drawn = await vg.ok("read_excalidraw", path="Sketch.excalidraw.md")
            assert [t["text"] for t in drawn["text_elements"]] == ["hi"], drawn
