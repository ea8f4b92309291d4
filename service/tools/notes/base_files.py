"""notes domain: Obsidian Bases files (`.base`) through the note tools.

A base is written as Obsidian keeps it: a `.base` file holding the Bases YAML (filters,
formulas, properties, summaries, views). create_note and write_note (create, overwrite) take a
path ending in `.base` (`names_base`): the content is checked first (`check_base`) by the
parser query_base evaluates it with (`service.bases.model.load`), plus what Obsidian's YAML
reader refuses and that one reads past (a key twice in one mapping), and a ```` ```base ````
block pasted whole (Obsidian would read the fence as YAML): any problem is `bases_syntax_error`
with its line and column, before a confirmation is asked and before anything is written. The
file is then written as a note is (atomic, `expected_etag`, confirmation to replace a non-empty
one without it), so a plan's journal and undo_last_plan cover it. delete_note trashes one,
copy_note copies one (`file_copy`); move_note / rename_note move it as any file (embeds `![[X.base]]` are rewritten;
filters naming the moved notes are left as written, as Obsidian does); read_note and read_notes read
its YAML and etag (`base_reads`). Tools that edit
part of a note (append, prepend, patch) and those that only make notes answer `not_a_note`
(`context.BASE_HINT`): a base is replaced whole. An existing base is found as query_base finds it
(`ToolContext.find_file`: its path, or its name alone); a new one is the path as written.
Touches: nothing (the callers write).
"""

from __future__ import annotations

from typing import Any

import yaml

from service.bases import model
from service.errors import AmbiguousNote, BasesSyntaxError, NotANote, NoteNotFound, ValidationFailed
from service.markdown.fences import unfence
from service.obsidian.attachments import with_extension_of
from service.tools.context import BASE_HINT, ToolContext, link_target
from service.types import Op
from service.vault import offloop
from service.vault.paths import VaultPath, normalize

__all__ = [
    "BASE_HINT",
    "base_file",
    "check_base",
    "base_static_check",
    "check_base_write",
    "checked_base_write",
    "file_copy",
    "names_base",
    "note_or_file",
]


# What query_base takes as inline `yaml`; a base read from a file is any size. Checking one costs
# ~10 ms per 1,000 characters of formulas and views (1.7 s at 195,000), on the calling loop.
MAX_BASE_CHARS = 200_000


def names_base(address: str) -> bool:
    """Whether an address names a `.base` file (`Books.base`, `[[Books.base]]`, `Views/Books.base`)."""
    return link_target(address).lower().endswith(".base")


async def base_file(ctx: ToolContext, address: str, op: Op, *, missing_ok: bool = False) -> VaultPath:
    """The existing `.base` file the address names, as query_base and `![[Books.base]]` find it
    (its path, else its name or path tail, any letter case); with `missing_ok`, when none fits,
    the path as written (where one is created)."""
    try:
        return await ctx.find_file(address, op)
    except NoteNotFound:
        if not missing_ok:
            raise
    text = link_target(address)
    if not text.rsplit("/", 1)[-1][: -len(".base")].strip():  # '.base', 'Lists/ .base'
        raise ValidationFailed(
            f"{address!r} names no base: a .base file needs a name", details={"field": "path", "path": address}
        )
    return ctx.resolve(normalize(text), op)


async def note_or_file(ctx: ToolContext, address: str, op: Op, *, missing_ok: bool = False) -> VaultPath:
    """The note (`find_note`, a whole note), the `.base` file (`base_file`), else the other file
    (a canvas, an image, a PDF) an address names with its extension, as a link names it
    (`ToolContext.find_file`: `Trip board.canvas`, `[[photo.png]]`, its path): what delete_note,
    copy_note, move_note and rename_note take, as Obsidian deletes, copies, moves and renames any
    of them. A note of that name wins (`Plan v1.2` is `Plan v1.2.md`); a folder stays
    `not_a_note`; a name no file has keeps the note lookup's answer (its suggestions)."""
    if names_base(address):
        return await base_file(ctx, address, op, missing_ok=missing_ok)
    name = link_target(address).rsplit("/", 1)[-1]
    named = "." in name.strip(".") and not name.lower().endswith(".md")  # a name with an extension
    try:
        found = (await ctx.find_note(address, op, section="reject", missing_ok=missing_ok)).vp
    except (NoteNotFound, NotANote) as exc:
        kind = exc.details.get("kind")
        if kind == "folder" or ("read_with" not in exc.details and not named):  # a file found: its path, any name
            raise
        try:
            return await ctx.find_file(address, op)
        except NoteNotFound:
            raise exc from None
    if missing_ok and named and not found.abs.is_file():  # no note: the file of that name, if any
        try:
            return await ctx.find_file(address, op)
        except NoteNotFound:
            pass
    return found


def file_copy(ctx: ToolContext, src: str, new_path: str) -> VaultPath:
    """Where copy_note puts a copy of `src`, a file that is not a note (a base, a canvas, an
    attachment): the path as written, its extension added to a name without one of its own (as a
    rename keeps it: `attachments.with_extension_of`, 'Films v1.2' is 'Films v1.2.base'); another
    extension is a `validation_error` (a copy of a base is a base, of an image that image)."""
    name = src.rsplit("/", 1)[-1]
    extension = name[name.rindex(".") :].lower() if "." in name.lstrip(".") else ""
    text = with_extension_of(src, link_target(new_path))
    if extension and not text.lower().endswith(extension):
        raise ValidationFailed(
            f"{new_path!r}: a copy of {src!r} is a {extension} file",
            details={"field": "new_path", "path": new_path},
            hint=f"Give new_path ending in {extension!r}, or the name alone.",
        )
    new_name = text.rsplit("/", 1)[-1]
    if not new_name[: len(new_name) - len(extension)].strip():
        raise ValidationFailed(f"{new_path!r} names no file", details={"field": "new_path", "path": new_path})
    return ctx.resolve(normalize(text), "write")


def check_base(ctx: ToolContext, content: str) -> None:
    """Refuse content Obsidian would not open as a base (`bases_syntax_error`, with where)."""
    if unfence(content, "base") != content:
        raise BasesSyntaxError(
            "the content is a ```base code block; a .base file holds only the YAML inside it",
            details={"at": "(file)", "line": 1, "column": 1},
            hint="Pass the YAML without the fence lines (```base and ```).",
        )
    model.load(content, 0, ctx.services.settings.limits)  # the parser query_base reads it with
    if content.strip():
        twice = _key_twice(yaml.compose(content, Loader=yaml.SafeLoader))
        if twice is not None:
            key, node = twice
            line, column = node.start_mark.line + 1, node.start_mark.column + 1
            raise BasesSyntaxError(
                f"the key {key!r} appears twice in one mapping (line {line}, column {column}); "
                "Obsidian refuses such a file",
                details={"at": "(yaml)", "line": line, "column": column, "token": key},
                hint="Keep one of them: merge the two entries into one.",
            )


def check_base_write(ctx: ToolContext, address: str, content: str, *, mode: str, frontmatter: Any = None) -> None:
    """For an address naming a `.base`: what a note write may do that a base may not (append to
    it, a frontmatter block), then `check_base`. Nothing for a note."""
    if not names_base(address):
        return
    if mode == "append":
        raise ValidationFailed(
            "a .base file is written whole: mode 'append' would leave YAML Obsidian may not read",
            details={"field": "mode", "path": address},
            hint="Read it (read_note), then write_note with mode 'overwrite' and its expected_etag.",
        )
    if frontmatter:
        raise ValidationFailed(
            "a .base file has no frontmatter: its YAML is the whole content",
            details={"field": "frontmatter", "path": address},
            hint="Pass the Bases YAML (filters, formulas, properties, views) as content.",
        )
    if len(content) > MAX_BASE_CHARS:
        raise ValidationFailed(
            f"a base of {len(content):,} characters is past the {MAX_BASE_CHARS:,} a base may hold",
            details={"field": "content", "path": address, "chars": len(content), "max_chars": MAX_BASE_CHARS},
            hint="A base holds filters, formulas and views, not data: the rows are the notes it selects.",
        )
    check_base(ctx, content)


async def checked_base_write(
    ctx: ToolContext, address: str, content: str, *, mode: str, frontmatter: Any = None
) -> None:
    """`check_base_write`, in a worker thread for a long base (`offloop.sized`: parsing and
    compiling one is linear in it, ~10 ms per 1,000 characters)."""
    if names_base(address):
        await offloop.sized(len(content), check_base_write, ctx, address, content, mode=mode, frontmatter=frontmatter)


async def base_static_check(ctx: ToolContext, args: Any) -> None:
    """write_note's and create_note's refusal of a base the arguments alone decide, also in
    validate_plan and a dry-run vault's preview (`ToolSpec.static_check`): a malformed one."""
    mode = getattr(args, "mode", "create")
    await checked_base_write(ctx, args.path, args.content, mode=mode, frontmatter=getattr(args, "frontmatter", None))


def _key_twice(root: yaml.Node | None) -> tuple[str, yaml.Node] | None:
    """The first key repeated in one mapping and its second node (none: None). Without
    recursion, each node once (an anchor used many times is one node)."""
    seen_nodes: set[int] = set()
    stack = [root] if root is not None else []
    while stack:
        node = stack.pop()
        if id(node) in seen_nodes:
            continue
        seen_nodes.add(id(node))
        if isinstance(node, yaml.MappingNode):
            keys: set[str] = set()
            for key, value in node.value:
                if isinstance(key, yaml.ScalarNode) and key.tag != "tag:yaml.org,2002:merge":
                    if key.value in keys:
                        return str(key.value), key
                    keys.add(key.value)
                stack.append(value)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(reversed(node.value))
    return None


def refuse_folder_and_note(ctx: ToolContext, path: str, seen: VaultPath) -> None:
    """A move's `path` naming a folder as written and, '.md' left out, the note beside it ('Projects'
    for the folder Projects/ and the note Projects.md: the folder-note layout) is `ambiguous_note`:
    which one is meant is asked, never guessed (read_note and delete_note take 'Projects' for the
    note; a move took the folder, renaming it without confirmation within its parent folder).
    'Projects/' names the folder, 'Projects.md' the note; a note the caller may not read is no
    candidate (not revealed)."""
    if not seen.abs.is_dir() or path.strip().endswith("/"):
        return
    note = f"{seen.rel}.md"
    if not seen.abs.with_name(seen.abs.name + ".md").is_file() or not ctx.can_read(note):
        return
    raise AmbiguousNote(
        f"{path!r} names both the folder '{seen.rel}/' and the note {note!r}",
        details={"path": path, "candidates": [f"{seen.rel}/", note]},
        hint=f"Pass '{seen.rel}/' for the folder or {note!r} for the note.",
    )
