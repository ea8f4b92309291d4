"""notes domain: the answer of a note write (create_note, write_note, append/prepend/patch_note,
copy_note; the periodic-note and template tools too), the links a new note takes over, and those
a deleted note passes on (delete_note).

A note created where another note has its name takes every link Obsidian then resolves to it (the
shortest path, or the linking note's folder: `service.graph.taken_links`); nothing is rewritten,
as in Obsidian, and the answer lists those links (`links_now_here`) so the caller sees what now
points elsewhere. Deleting one of several same-named notes sends its links to the next closest one
(`links_now_elsewhere`): they are not broken, so find_broken_links would not show them. Touches
nothing: reads the index.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, Field

from service.graph.taken_links import TakenLink, links_passed_on, links_taken
from service.markdown.parse import note_title
from service.tools.context import ToolContext
from service.tools.models import ToolOutput
from service.vault.files import WriteResult
from service.vault.paths import VaultPath

ETAG = Field(default=None, description="Etag you read; if the note changed since, the call fails with conflict.")
MAX_LISTED = 50  # links listed in one answer; `links_now_here_count` counts them all


class _Link(BaseModel):
    path: str = Field(description="The note holding the link.")
    line: int = Field(description="1-based line of the link.")
    target: str = Field(description="The link's target as written.")


class LinkNowHere(_Link):
    was: str = Field(description="The note it named before this one existed.")


LINKS_NOW_HERE = (
    "Links that named another note of this name and now name this one: Obsidian resolves a name several "
    "notes share to the closest (the name at the vault's top, else in the linking note's folder, else the "
    "shortest path), and a new note rewrites no link (nor does this call). To keep them on the other note: "
    "rewrite_links with old_target this note and new_target `was` (its dry run lists each change). "
    "The first 50; null when none."
)


class WriteOut(ToolOutput):
    path: str = Field(description="Vault-relative path.")
    title: str = Field(description="Note title.")
    obsidian_url: str = Field(description="obsidian://open URL.")
    etag: str = Field(description="New content hash.")
    created: bool = Field(description="True when the note did not exist before.")
    size: int = Field(description="Size in bytes after the write.")
    links_now_here: list[LinkNowHere] | None = Field(default=None, description=LINKS_NOW_HERE)
    links_now_here_count: int | None = Field(default=None, description="How many links `links_now_here` holds in all.")


class LinkNowElsewhere(_Link):
    now: str = Field(description="The note of the same name it names now.")


LINKS_NOW_ELSEWHERE = (
    "Links to the deleted note that now name another note of its name (Obsidian resolves the name to the "
    "closest: at the vault's top, else in the linking note's folder, else the shortest path): not broken, "
    "so find_broken_links does not list them. The first 50; null when none."
)


async def passed_links(ctx: ToolContext, path: str) -> list[LinkNowElsewhere]:
    """The links deleting note `path` sends to another note of its name, those the caller may read
    from and to (`links_passed_on`), as delete_note lists them (the first `MAX_LISTED`)."""
    found = await links_passed_on(ctx.services.db, ctx.vault.id, path)
    readable = [t for t in found if ctx.can_read(t.source) and ctx.can_read(t.now)]
    return [LinkNowElsewhere(path=t.source, line=t.line + 1, target=t.target, now=t.now) for t in readable]


async def taken_links(ctx: ToolContext, paths: Sequence[str]) -> list[TakenLink]:
    """The links that notes `paths`, about to be created, take over (`links_taken`), those the
    caller may read only: a link in a note, or to a note, the caller may not read is not told."""
    if not paths:
        return []
    found = await links_taken(ctx.services.db, ctx.vault.id, paths)
    return [t for t in found if ctx.can_read(t.source) and ctx.can_read(t.was)]


def listed_taken(path: str, taken: Sequence[TakenLink]) -> tuple[list[LinkNowHere] | None, int | None]:
    """The links of `taken` note `path` took, as an answer lists them (the first `MAX_LISTED`), and
    their count; (None, None) for none."""
    mine = [t for t in taken if t.now == path]
    if not mine:
        return None, None
    listed = [LinkNowHere(path=t.source, line=t.line + 1, target=t.target, was=t.was) for t in mine[:MAX_LISTED]]
    return listed, len(mine)


def with_taken(out: WriteOut, taken: Sequence[TakenLink]) -> WriteOut:
    """`out` listing the links of `taken` its note took (none when it was not created)."""
    if out.created:
        out.links_now_here, out.links_now_here_count = listed_taken(out.path, taken)
    return out


def write_out(ctx: ToolContext, vp: VaultPath, result: WriteResult) -> WriteOut:
    return WriteOut(
        path=vp.rel,
        title=note_title(vp.rel),
        obsidian_url=ctx.vault.url(vp.rel),
        etag=result.etag,
        created=result.created,
        size=result.stat.size,
    )
