"""find_broken_links' links into a missing heading or block (`service.graph.subpaths`), with the
notes longer than the index reads checked against their files.

The index holds a note's first `[limits] max_indexed_note_chars` characters only: a heading or
block id past them is in no row, so a link into a note of more bytes than that, which the index
finds missing, is checked again by reading the note's headings and block ids from the file
(`part_reads`, by its lines, in a worker thread; never held whole). A note that cannot be read so
(not UTF-8, a line longer than a part may hold, gone, changed while read) cannot be checked: the
link is not listed. So is a link past the first `MAX_FILE_CHECKS` such checks of one call (each
reads a long file): a broken-link list names only links known to be broken.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import partial
from typing import Literal

from service.errors import ValidationFailed, VaultgateError
from service.graph.subpaths import Problem, SubpathLinks, section_address
from service.tools.context import ToolContext
from service.tools.notes import part_reads

Reason = Literal["no_note", "no_heading", "no_block"]
MAX_FILE_CHECKS = 32  # distinct (long note, subpath) pairs read from files in one call
PART_LIMIT = 64 * 1024  # a found section longer than this is found all the same (`overflow`)


async def section_problems(ctx: ToolContext, readable: Callable[[str], bool] | None) -> list[Problem]:
    """Links to a note the caller may read whose heading or block the note lacks."""
    found = await SubpathLinks(ctx.services.db).problems(ctx.vault.id, readable)
    cap = ctx.services.settings.limits.max_indexed_note_chars
    long = {(p.edge.target_path or "", p.edge.subpath or "") for p in found if p.target_size > cap}
    if not long:
        return found
    missing: set[tuple[str, str]] = set()
    for at, key in enumerate(sorted(long)):
        if at < MAX_FILE_CHECKS and not await _in_file(ctx, key[0], key[1], cap):
            missing.add(key)
    return [p for p in found if p.target_size <= cap or (p.edge.target_path or "", p.edge.subpath or "") in missing]


async def _in_file(ctx: ToolContext, path: str, subpath: str, cap: int) -> bool:
    """Whether the note at `path` has the section `subpath` names, or cannot be read to tell."""
    address = section_address(subpath)
    if address.block is not None:
        wanted = part_reads.Wanted("block", block=address.block)
    else:
        wanted = part_reads.Wanted("heading", heading=tuple(address.heading or ()))
    read = partial(part_reads.read_part, wanted=wanted, limit=PART_LIMIT, cap=cap)
    try:
        vp = ctx.vault.paths.resolve(path, op="read")
        await asyncio.to_thread(ctx.vault.files.scan, vp, read)
    except ValidationFailed as exc:
        return exc.details.get("reason") != "not_found"
    except (VaultgateError, OSError):
        return True
    return True
