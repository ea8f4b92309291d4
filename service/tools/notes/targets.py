"""notes domain, targets: which note a writing call works on, by the one rule every tool uses
for names (`ToolContext.find_note`): a name that resolves to an existing note is that note.

`existing_or_new` is the note a modify-or-create call changes; `create_target` the note a create
call would make — the existing note the name means (then the create answers `already_exists`
naming it), else the path as written; `refuse_etag_of_missing` answers an `expected_etag` for a
note that is not there with `note_not_found`.

Replacing a note: `overwrite_preview` is what a human approves (the note's size and etag), and
`shown_etag` the version every confirmed overwrite (write_note, create_note, copy_note,
bulk_create_notes, write_canvas, write_excalidraw) passes to the file layer: the one shown. A
preview that found no file records that too (`previewed_absent`): the human approved making the
file, so the confirmed call creates it or fails, never replacing one another program made since.
"""

from __future__ import annotations

from collections.abc import Sequence

from service.errors import Conflict, NotANote, NoteNotFound
from service.tools.context import ToolContext
from service.tools.notes.base_files import base_file, names_base
from service.vault import offloop
from service.vault.paths import VaultPath
from service.vault.readonly import refuse_read_only


async def existing_or_new(ctx: ToolContext, address: str) -> VaultPath:
    """The note a modify-or-create call works on: the existing note the address names (as
    `find_note` finds it), or, when none fits, the new path exactly as written (a new path is a
    path: a wikilink's brackets are dropped, nothing is looked up). A `.base` file likewise
    (`base_files.base_file`)."""
    if names_base(address):
        return await base_file(ctx, address, "write", missing_ok=True)
    return (await ctx.find_note(address, "write", section="reject", missing_ok=True)).vp


async def create_target(ctx: ToolContext, address: str) -> VaultPath:
    """Where a create call works: the existing note the address names (as `find_note` finds it:
    `File recovery` is `Plugins/File recovery.md` when that is the one note of that name), so
    that creating it answers `already_exists` naming that note, as every other tool would find
    it; when no note fits, the path exactly as written (a note may sit beside a folder of the
    same name). A `.base` file likewise (`base_files.base_file`)."""
    if names_base(address):
        return await base_file(ctx, address, "write", missing_ok=True)
    try:
        return (await ctx.find_note(address, "write", section="reject", missing_ok=True)).vp
    except NotANote:
        return ctx.resolve_note(address, "write")


async def create_targets(ctx: ToolContext, addresses: Sequence[str]) -> list[VaultPath]:
    """`create_target` for many addresses at once (bulk_create_notes): the note names are read
    once, and only an address whose path, file name or alias some note carries is resolved by the
    whole rule; every other one is its path as written (no per-address scan of the vault)."""
    from service.graph.address import parse_address
    from service.graph.linkpath import strip_md

    literals = [ctx.resolve_note(address, "write") for address in addresses]
    pending = [i for i, vp in enumerate(literals) if not vp.abs.is_file()]
    if not pending:
        return literals
    names = await ctx.note_names()
    bases = {n.base_low for n in names}  # a note matching by path has the file name too
    aliases = {a for n in names for a in n.aliases_low}
    out = list(literals)
    for i in pending:
        target = parse_address(addresses[i]).target
        low = strip_md(target.strip().strip("/")).lower()
        whole = strip_md(addresses[i].strip().strip("/")).lower()  # 'Odd|pipe', 'Odd#hash': a note's name too
        if low.rpartition("/")[2] in bases or whole.rpartition("/")[2] in bases or target.strip().lower() in aliases:
            out[i] = await create_target(ctx, addresses[i])
    return out


def refuse_etag_of_missing(ctx: ToolContext, vp: VaultPath, expected_etag: str | None) -> None:
    """An `expected_etag` for a note that is not there: `note_not_found`, never "the note
    changed since you read it" (the file layer answers the same under its lock: `stale_etag`)."""
    if expected_etag is not None and not ctx.vault.files.has_note(vp):
        raise NoteNotFound(
            f"no note at {vp.rel!r}: the expected_etag names a version of a note that is not there",
            details={"path": vp.rel, "expected_etag": expected_etag, "suggestions": []},
            hint="Check the path (list_notes, search_text); to create the note, call without expected_etag.",
        )


async def overwrite_preview(ctx: ToolContext, vp: VaultPath, new_size: int, expected_etag: str | None) -> str | None:
    """`_overwrite_preview`: a long note's read in a worker thread (`offloop`, review R2 s64 F7).
    A note made read-only (chmod a-w) is refused here, before a human is asked to approve it."""
    refuse_read_only(vp.abs, vp.rel)
    if expected_etag is not None:
        return None
    return await offloop.sized(offloop.size_of(vp), _overwrite_preview, ctx, vp, new_size)


def _overwrite_preview(ctx: ToolContext, vp: VaultPath, new_size: int) -> str | None:
    """Why replacing the note at `vp` needs a human, or None.

    Replacing non-empty content needs confirmation unless the caller passes the etag it read: a
    matching etag is informed consent, and a stale one fails with `conflict` anyway. A missing or
    empty note loses nothing.
    """
    previewed: dict[str, str | None] = ctx.notes.setdefault("previewed", {})
    try:
        current = ctx.vault.files.read(vp)
    except NoteNotFound:
        previewed[vp.rel] = None  # approved as a new file: the write is create-only (`previewed_absent`)
        return None
    previewed[vp.rel] = current.etag  # what a human approves is this version
    if not current.content.strip():
        return None
    size = f"{current.stat.size} bytes, etag {current.etag}"  # the version approved: an edit since asks again
    return f"overwrite {vp.rel} ({size} → {new_size} bytes) without a matching expected_etag"


def shown_etag(ctx: ToolContext, vp: VaultPath, expected_etag: str | None) -> str | None:
    """The version a write may replace: the caller's `expected_etag`, else for a confirmed call the
    one its preview showed the human (`overwrite_preview`). Every confirmed overwrite passes it to
    the file layer, so an edit landing after that check is a `conflict`, never replaced unseen; a
    path the preview did not show (the name found another note since) is a `conflict` too."""
    if expected_etag is not None or ctx.notes.get("confirmed") is None:
        return expected_etag
    previewed: dict[str, str | None] = ctx.notes.get("previewed", {})
    if previewed and vp.rel not in previewed:  # the name means another note than the one shown
        shown = sorted(previewed)
        raise Conflict(
            f"{vp.rel!r} is not what the confirmation showed ({', '.join(shown[:3])}): the name means another note now",
            details={"path": vp.rel, "reason": "not_the_note_shown", "shown": shown[:20]},
            hint="Call again: the new confirmation shows the note the name means now.",
        )
    return previewed.get(vp.rel)


def previewed_absent(ctx: ToolContext, vp: VaultPath, expected_etag: str | None = None) -> bool:
    """Whether a confirmed call's preview found no file at `vp` (and the caller named no version):
    what the human approved is a new file, so the write is create-only and a file another program
    makes between the preview and the write is `already_exists`, left as it is."""
    if expected_etag is not None or ctx.notes.get("confirmed") is None:
        return False
    previewed: dict[str, str | None] = ctx.notes.get("previewed", {})
    return vp.rel in previewed and previewed[vp.rel] is None
