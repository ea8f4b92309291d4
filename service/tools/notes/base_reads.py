"""notes domain: read_note and read_notes of an Obsidian base (`.base`).

create_note and write_note write a base (`base_files`); read_note reads one back as it reads a
note: its text (the Bases YAML, whole or a line range) with the etag a later write_note
`expected_etag` takes, its size, times and lines. A base has no frontmatter, headings, tags or
links of a note's kind (a YAML comment '# …' is no heading): `part` 'frontmatter' and a heading
are a `validation_error`, as is the view of an embed (`Library.base#Old`: query_base reads a
view). The base is found as query_base finds it (`base_files.base_file`: its path, or its name).
Touches: vault files (read only).
"""

from __future__ import annotations

from typing import Any

from service.errors import NotANote, NoteNotFound, ValidationFailed, VaultgateError
from service.markdown import line_ends
from service.markdown.parse import note_title
from service.tools.context import ToolContext, link_target
from service.tools.notes.base_files import base_file, names_base
from service.tools.notes.part_reads import too_long
from service.vault import offloop
from service.vault.decoding import UTF8


def named_base(address: str) -> tuple[str, str | None] | None:
    """(the base, the view after its '#') when `address` names a `.base` file ('Library.base',
    '[[Views/Library.base]]', '![[Library.base#Old]]'); None for any other address."""
    target = link_target(address)
    if names_base(target):
        return target, None
    head, sep, view = target.partition("#")
    return (head, view) if sep and names_base(head) else None


async def base_named(ctx: ToolContext, address: str) -> tuple[str, str | None] | None:
    """`named_base`, when the address is read as a base: a `.base` file is there, or no note is.
    'Plan.base' names the note Plan.base.md when no Plan.base file exists, as Obsidian's link
    lookup reads it (and as read_note read it before bases were read): then None, a note's read."""
    if (base := named_base(address)) is None:
        return None
    try:
        await base_file(ctx, base[0], "read")
        return base
    except NoteNotFound:
        pass
    try:
        await ctx.find_note(address, "read", section="keep")
    except (NoteNotFound, NotANote):
        return base  # no note either: the base's own answer
    except VaultgateError:
        pass  # a note's answer (ambiguous, denied): read_note gives it
    return None


async def read_base(
    ctx: ToolContext,
    address: str,
    view: str | None,
    *,
    lines: tuple[int | None, int | None] = (None, None),
    heading: Any = None,
    part: str = "all",
) -> dict[str, Any]:
    """read_note's answer (as a dict of `ReadNoteOut`'s fields) for the base `address` names."""
    if view is not None:
        raise ValidationFailed(
            f"{address + '#' + view!r} names the view {view!r} of a base; read_note reads the base's whole YAML",
            details={"field": "path", "path": address, "view": view},
            hint=f"Pass {address!r} to read its YAML, or query_base with view {view!r} for that view's rows.",
        )
    if heading is not None or part == "frontmatter":
        what = "headings" if heading is not None else "frontmatter"
        raise ValidationFailed(
            f"a base has no {what}: its YAML is the whole file",
            details={"field": "heading" if heading is not None else "part", "path": address, "kind": "base"},
            hint="Read it whole, or by start_line / end_line.",
        )
    vp = await base_file(ctx, address, "read")
    limit = ctx.services.settings.governor.max_response_bytes
    if (size := ctx.vault.files.stat(vp).size) > limit:  # not read (a base is written at most 200,000 chars)
        raise too_long(size, limit, hint="A base this long is not read: read_attachment gives its size.")
    file = await offloop.read(ctx.vault.files.read, vp)
    note = file.content
    text = line_ends.lf(note)
    total = line_ends.line_count(text)
    first, last = 1, max(total, 1)
    content = note
    if lines != (None, None):
        first, last, start, end = line_ends.line_range(text, total, *lines, "base")
        content = line_ends.as_written(text[start:end] + "\n", note, text, first)
    if 2 * len(content) > limit:
        raise too_long(2 * len(content), limit)
    return {
        "path": vp.rel,
        "title": note_title(vp.rel),
        "obsidian_url": ctx.vault.url(vp.rel),
        "etag": file.etag,
        "size": file.stat.size,
        "mtime": file.stat.mtime,
        "content": content,
        "properties": {},
        "tags": [],
        "links": [],
        "total_lines": total,
        "start_line": first,
        "end_line": last,
        "encoding": None if file.encoding == UTF8 else file.encoding,
    }
