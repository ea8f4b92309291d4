"""bridges domain, the app's window: open_in_obsidian, get_active_note.

Both ask the Obsidian that has the vault open, through its Local REST API plugin
(`service.bridges`). `open_in_obsidian` opens an existing file only: the path goes through the same
resolution and path ACL as every note tool before anything is sent (a path outside the vault, or one
the caller may not read, sends nothing), and a file that does not exist is `note_not_found` rather
than a request (the plugin would create the note); so is a file whose path holds '#'
(`validation_error`, `hash_in_path`: the plugin reads the path as link text, where '#' starts a
heading, and would open, and create, another note). `get_active_note` shows the active file only
when the caller may read its path and where a symlink on it points (else it answers as if none were
open, as get_workspace hides such a file); an image, audio, video or PDF in focus has no `content`
(the plugin reads its bytes as text), nor has any other file whose bytes are no text (a .zip, .docx,
.sqlite: `_text_of`), `kind` saying what it is; and the request waits out the plugin's own wait for
metadata such a file (or a canvas) never gets (`rest_api.METADATA_WAIT_S`).
Touches: nothing on disk (get_active_note reads an active non-note file whose text holds U+FFFD);
the plugin's `POST /open/{path}` and `GET /active/`.
"""

from __future__ import annotations

import asyncio

from pydantic import BaseModel, Field

from service.bridges.rest_api import LocalRestApi
from service.errors import AclDenied, PathInvalid, ValidationFailed, VaultgateError
from service.markdown.parse import note_title
from service.obsidian.attachments import SNIFF, kind_of, text_of
from service.tools.context import ToolContext
from service.tools.graph.links import linked_file
from service.tools.models import NOTE_ADDRESS, JsonValue, ToolInput, ToolOutput
from service.tools.obsidian.config import visible_path
from service.tools.spec import ToolSpec
from service.vault.paths import VaultPath


def client_of(ctx: ToolContext) -> LocalRestApi:
    """This vault's Local REST API client (`plugin_missing` when none is configured)."""
    return ctx.services.bridges.client(ctx.vault.config)


class OpenIn(ToolInput):
    path: str = Field(description=NOTE_ADDRESS + " Any existing vault file (canvas, PDF, image) by its path.")
    new_leaf: bool = Field(default=False, description="Open it in a new tab instead of the current one.")


class OpenOut(ToolOutput):
    path: str = Field(description="Vault-relative path of the file opened.")
    title: str = Field(description="The file name without '.md'.")
    obsidian_url: str = Field(description="obsidian://open URL of the same file.")
    opened: bool = Field(description="True: Obsidian accepted the request.")
    new_leaf: bool = Field(description="Whether it was opened in a new tab.")


async def _target(ctx: ToolContext, path: str) -> VaultPath:
    """The note `path` names, else the base, canvas or attachment it names as a link does
    (Obsidian opens those too): the graph tools' rule, `links.linked_file`."""
    return await linked_file(ctx, path)


def _openable(rel: str) -> None:
    """The plugin opens a path as link text (`workspace.openLinkText`), where the first '#' starts
    a heading: `Notes/C# tips.md` would open `Notes/C`, which Obsidian creates. Link text has no
    escape for it, so such a file is refused before anything is sent."""
    if "#" in rel:
        raise ValidationFailed(
            f"{rel!r} cannot be opened through the Local REST API: its '#' would be read as a heading, "
            f"and Obsidian would open (and create) {rel.split('#', 1)[0]!r} instead",
            details={"field": "path", "reason": "hash_in_path", "path": rel},
            hint="Open it in Obsidian by hand, or rename it without '#' (rename_note) and open it then.",
        )


async def open_static_check(ctx: ToolContext, args: OpenIn) -> None:
    """What validate_plan and a dry-run vault's preview, which open nothing in Obsidian, can tell
    of the call, as the call finds it: a bridge is configured, and the file is in the vault, one the
    caller may read (`acl_denied`), and has no '#' (`hash_in_path`). A file not found is the call's
    `note_not_found`, which a plan's check leaves to the run (an earlier step may make it)."""
    client_of(ctx)
    _openable((await _target(ctx, args.path)).rel)


async def open_in_obsidian(ctx: ToolContext, args: OpenIn) -> OpenOut:
    vp = await _target(ctx, args.path)  # outside the vault, unreadable or missing: nothing is sent
    _openable(vp.rel)
    await client_of(ctx).open_file(vp.rel, new_leaf=args.new_leaf)
    return OpenOut(
        path=vp.rel,
        title=note_title(vp.rel),
        obsidian_url=ctx.vault.url(vp.rel),
        opened=True,
        new_leaf=args.new_leaf,
    )


class ActiveIn(ToolInput):
    include_content: bool = Field(default=True, description="Return the note's text (false: its metadata only).")


class NoteStat(BaseModel):
    ctime: float = Field(description="Creation time, Unix milliseconds, as Obsidian reports it.")
    mtime: float = Field(description="Modification time, Unix milliseconds.")
    size: int = Field(description="Size in bytes.")


class ActiveOut(ToolOutput):
    active: bool = Field(description="Whether Obsidian has a file open that you may read.")
    path: str | None = Field(description="Vault-relative path of the active file.")
    title: str | None = Field(description="Its title.")
    obsidian_url: str | None = Field(description="obsidian://open URL of it.")
    kind: str | None = Field(
        description="What the file is: note, canvas, base, text, image, audio, video, pdf or other (by extension)."
    )
    content: str | None = Field(
        description="Its text as Obsidian holds it (unsaved edits included); null for a file whose bytes are no "
        "text (an image, audio, video, PDF, or binary content: read_attachment reads such a file) or whose "
        "answer is too large for the bridge (over 64 MiB)."
    )
    frontmatter: dict[str, JsonValue] = Field(description="Its properties as Obsidian parsed them.")
    tags: list[str] = Field(description="Its tags as Obsidian found them.")
    stat: NoteStat | None = Field(description="Times and size.")


BINARY = ("image", "audio", "video", "pdf")  # kinds whose bytes are no text (`attachments.kind_of`)


def _none() -> ActiveOut:
    return ActiveOut(
        active=False,
        path=None,
        title=None,
        obsidian_url=None,
        kind=None,
        content=None,
        frontmatter={},
        tags=[],
        stat=None,
    )


def _kind(rel: str) -> str:
    return "note" if rel.lower().endswith(".md") else kind_of(rel)


async def _text_of(ctx: ToolContext, rel: str, kind: str, content: str) -> str | None:
    """The active file's text, None when its bytes are no text. The plugin reads any file as
    text (`cachedRead`: UTF-8, each byte that is none becoming U+FFFD, a NUL kept); the rule is
    read_attachment's (`obsidian.attachments.text_of`): text has no NUL in its first 8 KiB and
    decodes as UTF-8. A U+FFFD may also be the character itself in a text file: the file's bytes
    decide then. A note is text whatever it holds, as read_note reads it."""
    if kind == "note":
        return content
    if kind in BINARY or "\x00" in content[:SNIFF]:  # the plugin kept the NUL
        return None
    if "\ufffd" not in content:
        return content
    try:
        data = await asyncio.to_thread(ctx.vault.files.read_bytes, ctx.resolve(rel, "read"))
    except VaultgateError:  # gone or moved since Obsidian read it: what it sent cannot be told text
        return None
    return content if text_of(data) is not None else None


def _readable(ctx: ToolContext, raw: object) -> str | None:
    """The plugin's path of the active file when the caller may read it, as read_note would: the
    path ACL on the path, and on where a symlink on the way points (Obsidian shows a linked note
    at the link's path, with the text of the note it points to: `Projects/Link.md` to
    `Private/Secret.md` is the secret note), so a link cannot show a note its target's rule hides."""
    rel = visible_path(ctx, raw)  # a path the plugin gives is checked like any other
    if rel is None:
        return None
    try:
        ctx.resolve(rel, "read")
    except (AclDenied, PathInvalid):
        return None
    return rel


def _stat(raw: object) -> NoteStat | None:
    if not isinstance(raw, dict):
        return None
    try:
        return NoteStat(ctime=float(raw["ctime"]), mtime=float(raw["mtime"]), size=int(raw["size"]))
    except (KeyError, TypeError, ValueError, OverflowError):  # OverflowError: an integer past float's range
        return None


async def get_active_note(ctx: ToolContext, args: ActiveIn) -> ActiveOut:
    note = await client_of(ctx).active_note()
    if note is None:
        return _none()
    rel = _readable(ctx, note["path"])
    if rel is None:
        return _none()
    frontmatter = note.get("frontmatter")
    tags = note.get("tags")
    kind = _kind(rel)
    return ActiveOut(
        active=True,
        path=rel,
        title=note_title(rel),
        obsidian_url=ctx.vault.url(rel),
        kind=kind,
        content=await _text_of(ctx, rel, kind, note["content"])
        if args.include_content and isinstance(note["content"], str)
        else None,  # None: too large for the plugin's answer
        frontmatter=frontmatter if isinstance(frontmatter, dict) else {},
        tags=[str(t) for t in tags] if isinstance(tags, list) else [],
        stat=_stat(note.get("stat")),
    )


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="open_in_obsidian",
        domain="bridges",
        title="Open a file in Obsidian",
        description="Show an existing vault file in the running Obsidian (needs the Local REST API plugin and "
        "[vaults.bridge]); never creates a note. plugin_unreachable when Obsidian is closed.",
        input_model=OpenIn,
        output_model=OpenOut,
        handler=open_in_obsidian,
        scope_class="execute",
        static_check=open_static_check,  # validate_plan and a dry-run preview: nothing is opened
        idempotent=True,
        path_args=("path",),
        reads_index=False,
        tags=("bridge",),
    ),
    ToolSpec(
        name="get_active_note",
        domain="bridges",
        title="Get the note open in Obsidian",
        description="The file the running Obsidian has in focus: path, text (with unsaved edits), properties, tags "
        "and times, from its Local REST API plugin; get_workspace reads the last saved layout without the app.",
        input_model=ActiveIn,
        output_model=ActiveOut,
        handler=get_active_note,
        reads_index=False,
        tags=("bridge",),
    ),
)
