"""A note tool given a canvas, a base or an attachment by its name: `not_a_note` naming the file
(shared by the notes, properties and graph domains; outside them, so importing it loads none).

`find_note_only` is `ToolContext.find_note` for tools that take notes only (get_properties,
set_properties and the other one-note property edits, suggest_links; read_note, read_notes,
note_info, get_outline): an address that names an
existing file by its extension ('Trip board.canvas', '[[temple.png]]', 'books.BASE') as a link
names it (`ToolContext.find_file`: any folder, any letter case, the caller's read rules) is
`not_a_note` with the file's path, its kind and the tool that reads it, where `find_note` alone
answered `note_not_found` for 'Trip board.canvas.md' with no suggestion (a full path was already
`not_a_note`). A name no file has keeps `find_note`'s answer. Touches nothing.
"""

from __future__ import annotations

from typing import Any

from service.errors import NotANote, NoteNotFound
from service.obsidian.attachments import kind_of
from service.tools.context import FoundNote, Op, ToolContext, link_target
from service.vault.paths import VaultPath

READERS = {"canvas": "read_canvas", "base": "query_base"}  # any other kind: read_attachment


def not_a_note(vp: VaultPath) -> NotANote:
    kind = kind_of(vp.rel)
    reader = READERS.get(kind, "read_attachment")
    return NotANote(
        f"{vp.rel!r} is {'an' if kind[:1] in 'aeiou' else 'a'} {kind} file, not a note",
        details={"path": vp.rel, "kind": kind, "read_with": reader},
        hint=f"Note tools read and edit Markdown notes ('.md'); {reader} reads this file, get_backlinks and "
        "get_outlinks take it too.",
    )


async def find_note_only(ctx: ToolContext, address: str, op: Op = "read", **how: Any) -> FoundNote:
    """`ctx.find_note(address, op, **how)`; when no note fits and `address` names an existing
    file that is no note by its extension, `not_a_note` naming it (module docstring)."""
    try:
        return await ctx.find_note(address, op, **how)
    except NoteNotFound:
        name = link_target(address).rsplit("/", 1)[-1]
        if "." not in name.strip(".") or name.lower().endswith(".md"):
            raise
        try:
            found = await ctx.find_file(address, "read")
        except NoteNotFound:
            found = None
        if found is None or found.rel.lower().endswith(".md"):
            raise
        raise not_a_note(found) from None
