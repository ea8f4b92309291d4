"""A note whose name ends in '.base' (Notes/Plan.base.md, the note 'Plan.base') is read by its
name, as Obsidian's link [[Plan.base]] opens it when no Plan.base file exists. f9f5c388 sent every
address ending in '.base' to the base reader, so read_note and read_notes answered note_not_found
for 'Plan.base' and validation_error (a base's view) for '[[Plan.base#Goals]]', which read the
note and its section before. Found reviewing f9f5c388 (session 74, R4). A real base of that name
is still read as a base.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

NOTE = "# Plan\n\n## Goals\n\nship it\n"
BASE = "views:\n  - type: table\n    name: All\n"


async def test_a_note_named_like_a_base_is_read_by_its_name(make_vault: Callable[..., Path]) -> None:
    vault = make_vault({"Notes/Plan.base.md": NOTE, "Library.base": BASE, "Library.base.md": "# not me\n"})
    async with started(vault) as vg:
        await vg.indexed()
        for address in ("Plan.base", "[[Plan.base]]", "Notes/Plan.base"):
            out = await vg.ok("read_note", path=address)
            assert (out["path"], out["content"]) == ("Notes/Plan.base.md", NOTE), address
        section = await vg.ok("read_note", path="[[Plan.base#Goals]]")
        assert section["content"] == "## Goals\n\nship it\n"
        many = await vg.ok("read_notes", paths=["Plan.base#Goals", "Library.base"])
        assert [(i["path"], i["content"]) for i in many["items"]] == [
            ("Notes/Plan.base.md", "## Goals\n\nship it\n"),
            ("Library.base", BASE),
        ]
        base = await vg.ok("read_note", path="Library.base")  # the base file, not the note Library.base
        assert (base["path"], base["content"]) == ("Library.base", BASE)
        await vg.err("read_note", "note_not_found", path="Nowhere.base")
        await vg.err("read_note", "validation_error", path="Library.base#All")
