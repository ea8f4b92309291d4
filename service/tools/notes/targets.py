"""notes domain, targets: which note a writing call works on, by the one rule every tool uses
for names (`ToolContext.find_note`): a name that resolves to an existing note is that note.

`existing_or_new` is the note a modify-or-create call changes; `create_target` the note a create
call would make — the existing note the name means (then the create answers `already_exists`
naming it), else the path as written; `refuse_etag_of_missing` answers an `expected_etag` for a
note that is not there with `note_not_found`.
"""

from __future__ import annotations

from service.errors import NotANote, NoteNotFound
from service.tools.context import ToolContext
from service.vault.paths import VaultPath


async def existing_or_new(ctx: ToolContext, address: str) -> VaultPath:
    """The note a modify-or-create call works on: the existing note the address names (as
    `find_note` finds it), or, when none fits, the new path exactly as written (a new path is a
    path: a wikilink's brackets are dropped, nothing is looked up)."""
    return (await ctx.find_note(address, "write", section="reject", missing_ok=True)).vp


async def create_target(ctx: ToolContext, address: str) -> VaultPath:
    """Where a create call works: the existing note the address names (as `find_note` finds it:
    `File recovery` is `Plugins/File recovery.md` when that is the one note of that name), so
    that creating it answers `already_exists` naming that note, as every other tool would find
    it; when no note fits, the path exactly as written (a note may sit beside a folder of the
    same name)."""
    try:
        return (await ctx.find_note(address, "write", section="reject", missing_ok=True)).vp
    except NotANote:
        return ctx.resolve_note(address, "write")


def refuse_etag_of_missing(ctx: ToolContext, vp: VaultPath, expected_etag: str | None) -> None:
    """An `expected_etag` for a note that is not there: `note_not_found`, never "the note
    changed since you read it" (the file layer still answers `conflict` when it vanishes in
    between, under its lock)."""
    if expected_etag is not None and ctx.vault.files.current_etag(vp) is None:
        raise NoteNotFound(
            f"no note at {vp.rel!r}: the expected_etag names a version of a note that is not there",
            details={"path": vp.rel, "expected_etag": expected_etag, "suggestions": []},
            hint="Check the path (list_notes, search_text); to create the note, call without expected_etag.",
        )
