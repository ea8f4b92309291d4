"""memory domain, quick captures: capture, list_captures, process_capture.

Touches: the `capture_queue` table (state database, `service.memory.captures`) and the inbox
note (`[memory] inbox`, default `Memory/Inbox.md`); `process_capture` also the note or entity
note a capture is filed into. Every vault path goes through the path ACL: capturing needs write
access to the inbox, listing read access, processing write access to the inbox and the target.

A capture is answered once its row is committed and its inbox item written (one small append;
`tests/bench/bench_captures.py` measures it). Filing appends the text with a link back to the
inbox item (`[[Memory/Inbox#^cap-…]]`) and a block id of its own, then marks the inbox item with
where it went; a retry after a crash between the two finds the block id and does not file twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import re
from typing import Literal

from pydantic import Field

from service.errors import AlreadyExists, Conflict, NoteNotFound, ToolNotFound, ValidationFailed, VaultgateError
from service.graph.taken_links import TakenLink
from service.markdown import sections
from service.memory.captures import Capture, CaptureQueue, Status, list_in, mark_item, paragraph, stamp, unmarked
from service.memory.model import not_left_open
from service.obs.sessions import caller_hash
from service.tools.context import ToolContext
from service.tools.memory.filing import file_observation, filing_refusal, still_filed
from service.tools.memory.prechecks import entities_there, filing_args
from service.tools.memory.writing import no_open_comment
from service.tools.models import NOTE_ADDRESS, ToolInput, ToolOutput, decode_cursor, encode_cursor
from service.tools.notes.write_out import LINKS_NOW_HERE, LinkNowHere, listed_taken, taken_links
from service.tools.spec import ToolSpec
from service.vault.casing import CaseTwin
from service.vault.paths import VaultPath

TAG = r"^#?[^\s#,\[\]]{1,100}$"
# Several MB in one call is refused by the input model already; `[memory] max_capture_bytes` is
# the configured limit below it.
HARD_MAX_CHARS = 1024 * 1024
CAPTURE_ID = r"^cap-[0-9a-f]{10}$"

# One inbox listing or processing at a time per (vault, inbox note): concurrent captures wait
# and find their item already listed by the one before (its listing takes every unlisted row).
MAX_REOPEN = 500  # unmarked items looked up per call (an inbox is a short queue)


def _queue(ctx: ToolContext) -> CaptureQueue:
    return CaptureQueue(ctx.services.state)


def _link(rel: str, block: str) -> str:
    return f"[[{rel.removesuffix('.md')}#^{block}]]"


def _iso(at: float | None) -> str | None:
    return None if at is None else dt.datetime.fromtimestamp(at, dt.UTC).isoformat(timespec="seconds")


class CaptureIn(ToolInput):
    text: str = Field(min_length=1, max_length=HARD_MAX_CHARS, description="What to capture (Markdown).")
    tags: list[str] = Field(
        default_factory=list, max_length=20, description="Tags for the inbox item, with or without '#'."
    )
    source: str | None = Field(
        default=None,
        max_length=500,
        pattern=r"^[^\r\n]*$",
        description="Where it came from: a note, a URL, a conversation (one line).",
    )


class CaptureOut(ToolOutput):
    id: str = Field(description="The capture's id (the inbox item's block id).")
    status: Status = Field(description="Always 'pending' for a new capture.")
    inbox: str = Field(description="Vault path of the inbox note that lists it.")
    block_link: str = Field(description="Wikilink to the inbox item.")
    created_at: str = Field(description="ISO time of the capture.")


def _check_tags(tags: list[str]) -> list[str]:
    out: list[str] = []
    for tag in tags:
        if not re.match(TAG, tag):
            raise ValidationFailed(
                f"{tag!r} is not a tag", details={"field": "tags", "reason": "invalid_tag", "tag": tag[:100]}
            )
        if tag.lstrip("#") not in out:
            out.append(tag.lstrip("#"))
    return out


async def _list_unlisted(ctx: ToolContext, vp: VaultPath, queue: CaptureQueue) -> None:
    """Write every capture of this vault and inbox that the note does not list yet."""
    async with ctx.services.memory_writes.inbox_locks(ctx.vault.id, vp.rel):
        await _write_unlisted(ctx, vp, queue)


async def _write_unlisted(ctx: ToolContext, vp: VaultPath, queue: CaptureQueue) -> None:
    """`_list_unlisted` under the inbox's lock, held by the caller: the items a kill -9 cut off
    (row committed, item not written) too, whichever call comes next."""
    pending = await queue.unlisted(ctx.vault.id, vp.rel)
    if not pending:
        return
    try:
        await ctx.vault.files.modify(vp, sections.keeping_crlf(lambda content: list_in(content, pending)))
    except NoteNotFound:
        await ctx.vault.files.write(vp, list_in("# Inbox\n", pending), create_only=True)
    await queue.listed(ctx.vault.id, [c.id for c in pending])


def capture_text(ctx: ToolContext, args: CaptureIn) -> tuple[str, list[str]]:
    """The capture's text and tags as the call takes them (empty, too large, a tag that is none:
    `validation_error`); a dry-run vault's preview and a plan's check ask it too (`prechecks`)."""
    cfg = ctx.services.settings.memory
    text = args.text.strip()
    size = len(text.encode("utf-8", errors="surrogatepass"))
    if not text:
        raise ValidationFailed("the capture is empty", details={"field": "text", "reason": "empty"})
    if size > cfg.max_capture_bytes:
        raise ValidationFailed(
            f"the capture is {size} bytes; at most {cfg.max_capture_bytes}",
            details={"field": "text", "reason": "too_large", "bytes": size, "limit": cfg.max_capture_bytes},
            hint="Write long text as a note (create_note) and capture a link to it.",
        )
    no_open_comment(text, "text")  # one `%%` would hide the inbox's later captures
    return text, _check_tags(args.tags)


async def _text_checked(ctx: ToolContext, args: CaptureIn) -> None:
    capture_text(ctx, args)


async def capture(ctx: ToolContext, args: CaptureIn) -> CaptureOut:
    vp = ctx.resolve_note(ctx.services.settings.memory.inbox, "write")
    text, tags = capture_text(ctx, args)
    queue = _queue(ctx)
    cap = await queue.add(ctx.vault.id, text, tags, args.source, caller_hash(ctx.principal.subject), vp.rel)
    await _list_unlisted(ctx, vp, queue)
    return CaptureOut(
        id=cap.id,
        status="pending",
        inbox=vp.rel,
        block_link=_link(vp.rel, cap.id),
        created_at=_iso(cap.created_at) or "",
    )


class ListCapturesIn(ToolInput):
    status: Status | Literal["all"] = Field(
        default="pending", description="Which captures: pending, filed, discarded or all."
    )
    limit: int = Field(default=50, ge=1, le=200, description="Page size.")
    cursor: str | None = Field(default=None, description="`next_cursor` from the previous page.")


class CaptureItem(ToolOutput):
    id: str = Field(description="Capture id (block id of its inbox item).")
    text: str = Field(description="The captured text.")
    tags: list[str] = Field(description="Its tags, without '#'.")
    source: str | None = Field(default=None, description="Where it came from, as captured.")
    status: Status = Field(description="pending, filed or discarded.")
    created_at: str = Field(description="ISO time of the capture.")
    block_link: str = Field(
        description="Wikilink to the inbox item; to the inbox note while the item is not written there "
        "(a capture a crash cut off: the next capture or process_capture writes it)."
    )
    processed_at: str | None = Field(default=None, description="ISO time it was filed or discarded.")
    filed_as: str | None = Field(default=None, description="note, new_note or entity.")
    filed_to: str | None = Field(default=None, description="Wikilink to the filed text (when you may read it).")


class ListCapturesOut(ToolOutput):
    items: list[CaptureItem] = Field(description="Captures in the order they came, oldest first.")
    total: int = Field(description="Captures with this status.")
    next_cursor: str | None = Field(description="Cursor for the next page, None at the end.")


def _item(ctx: ToolContext, cap: Capture) -> CaptureItem:
    filed = None
    if cap.filed_to and cap.filed_block and ctx.can_read(cap.filed_to):
        filed = _link(cap.filed_to, cap.filed_block)
    return CaptureItem(
        id=cap.id,
        text=cap.text,
        tags=list(cap.tags),
        source=cap.source,
        status=cap.status,
        created_at=_iso(cap.created_at) or "",
        block_link=_link(cap.inbox, cap.id) if cap.in_inbox else f"[[{cap.inbox.removesuffix('.md')}]]",
        processed_at=_iso(cap.processed_at),
        filed_as=cap.filed_as,
        filed_to=filed,
    )


async def _reopen_undone(ctx: ToolContext, queue: CaptureQueue, inbox: VaultPath) -> None:
    """Make pending again each processed capture whose processing was taken back: its inbox item
    no longer carries a status (an undone plan put the inbox back, or a person removed the
    fields) and, for a filed one, what it was filed as is gone from its note. Held under the
    inbox's lock: processing marks the item right after it records the capture processed."""
    try:
        content = (await asyncio.to_thread(ctx.vault.files.read, inbox)).content
    except VaultgateError:
        return
    ids = unmarked(content)
    for cap in await queue.processed_of(ctx.vault.id, ids[:MAX_REOPEN]) if ids else []:
        if cap.status == "filed" and await still_filed(ctx, cap.filed_to, cap.filed_block):
            continue  # a crash between recording and marking: filed all the same
        await queue.reopen(ctx.vault.id, cap.id, cap.processed_at)


async def list_captures(ctx: ToolContext, args: ListCapturesIn) -> ListCapturesOut:
    inbox = ctx.resolve_note(ctx.services.settings.memory.inbox, "read")
    async with ctx.services.memory_writes.inbox_locks(ctx.vault.id, inbox.rel):
        await _reopen_undone(ctx, _queue(ctx), inbox)
    state = {"s": args.status}
    offset = decode_cursor(args.cursor, **state)
    status = None if args.status == "all" else args.status
    found, total = await _queue(ctx).page(ctx.vault.id, status, offset, args.limit)
    more = offset + len(found) < total
    return ListCapturesOut(
        items=[_item(ctx, c) for c in found],
        total=total,
        next_cursor=encode_cursor(offset + args.limit, **state) if more else None,
    )


Action = Literal["note", "new_note", "entity", "discard"]


class ProcessCaptureIn(ToolInput):
    capture_id: str = Field(pattern=CAPTURE_ID, description="The capture to process (`cap-…`).")
    action: Action = Field(
        description="note: append to an existing note; new_note: create a note with it; entity: add it as an "
        "observation of a memory entity; discard: drop it."
    )
    target: str | None = Field(
        default=None,
        max_length=1000,
        description=f"note: {NOTE_ADDRESS} new_note: the new note's path. entity: the entity's name.",
    )
    heading: str | None = Field(
        default=None,
        min_length=1,
        max_length=200,
        pattern=r"^[^\r\n]*$",
        description="note/new_note: append under this heading (added at the end when the note has none such).",
    )
    category: str | None = Field(
        default=None, max_length=60, description="entity: the observation's category (e.g. 'preference')."
    )


class ProcessCaptureOut(ToolOutput):
    id: str = Field(description="The capture.")
    status: Status = Field(description="filed or discarded.")
    action: Action = Field(description="What was done.")
    path: str | None = Field(default=None, description="Vault path the text was filed into.")
    block_link: str | None = Field(default=None, description="Wikilink to the filed text.")
    obsidian_url: str | None = Field(default=None, description="obsidian:// URL of the note it was filed into.")
    entity: str | None = Field(default=None, description="entity: the entity's name.")
    inbox_marked: bool = Field(description="Whether the inbox item was found and marked processed.")
    links_now_here: list[LinkNowHere] | None = Field(default=None, description="new_note: " + LINKS_NOW_HERE)
    links_now_here_count: int | None = Field(default=None, description="How many links `links_now_here` holds in all.")


def _filed_text(cap: Capture) -> str:
    back = f"[[{cap.inbox.removesuffix('.md')}#^{cap.id}|captured {stamp(cap.created_at)}]]"
    return f"{paragraph(cap.text)}{''.join(f' #{t}' for t in cap.tags)} ({back}) ^{cap.id}"


def _append(content: str, heading: str | None, text: str) -> str:
    not_left_open(content)  # at its end (or its last section's), the text would be code or hidden
    if heading is not None:
        try:
            span = sections.find_heading(content, [heading])
        except ValidationFailed as exc:
            if exc.details.get("reason") != "not_found":
                raise
        else:
            return sections.patch_lines(content, span, "append", text)
        text = f"## {heading.lstrip('#').strip()}\n\n{text}"
    return (f"{body}\n\n" if (body := content.rstrip("\n")) else "") + text + "\n"


async def _file_into_note(ctx: ToolContext, cap: Capture, args: ProcessCaptureIn) -> tuple[VaultPath, list[TakenLink]]:
    assert args.target is not None
    text = _filed_text(cap)
    if args.action == "new_note":
        vp = ctx.resolve_note(args.target, "write")
        taken = await taken_links(ctx, [vp.rel])  # those create_note lists (none if our earlier attempt made it)
        try:
            await ctx.vault.files.write(vp, _append("", args.heading, text), create_only=True)
        except AlreadyExists as exc:  # a case twin, or a note that is not our own earlier attempt
            if isinstance(exc, CaseTwin) or f"^{cap.id}" not in ctx.vault.files.read(vp).content:
                raise
        return vp, taken
    found = await ctx.find_note(args.target, "write", section="reject")

    def change(content: str) -> str:
        return content if f"^{cap.id}" in content else _append(content, args.heading, text)

    await ctx.vault.files.modify(found.vp, sections.keeping_crlf(change))
    return found.vp, []


def _not_pending(cap: Capture) -> Conflict:
    return Conflict(
        f"capture {cap.id!r} is {cap.status} already",
        details={"capture_id": cap.id, "status": cap.status, "filed_to": cap.filed_to},
        hint="list_captures shows the pending ones.",
    )


async def capture_refusal(ctx: ToolContext, args: ProcessCaptureIn) -> None:
    """process_capture's refusal of the capture and its target as they are now, nothing written
    (a dry-run vault's preview: `service.tools.memory.previews`): no such capture, one processed
    (unless its processing was taken back, `_reopen_undone`), an entity not there, a note not
    there (`note`) or one there already (`new_note`)."""
    queue = _queue(ctx)
    cap = await queue.get(ctx.vault.id, args.capture_id)
    inbox = ctx.resolve_note(cap.inbox if cap is not None else ctx.services.settings.memory.inbox, "write")
    if cap is None:
        raise ToolNotFound(f"no capture {args.capture_id!r} in this vault", details={"capture_id": args.capture_id})
    if cap.status != "pending":
        try:
            listed = cap.id in unmarked((await asyncio.to_thread(ctx.vault.files.read, inbox)).content)
        except VaultgateError:
            listed = False
        if not listed or cap.status == "filed" and await still_filed(ctx, cap.filed_to, cap.filed_block):
            raise _not_pending(cap)
    target = (args.target or "").strip()
    if args.action == "entity":
        filing_refusal(
            ctx, target, cap.text, source=f"{cap.inbox.removesuffix('.md')}#^{cap.id}", category=args.category
        )
    elif args.action == "new_note":
        vp = ctx.resolve_note(target, "write")
        if ctx.vault.files.has_note(vp) and f"^{cap.id}" not in ctx.vault.files.read(vp).content:
            raise AlreadyExists(f"a note already exists at {vp.rel!r}", details={"path": vp.rel})
    elif args.action == "note":
        await ctx.find_note(target, "write", section="reject")


async def process_capture(ctx: ToolContext, args: ProcessCaptureIn) -> ProcessCaptureOut:
    filing_args(args)  # no target, a heading that would open a comment (its static check's too)
    queue = _queue(ctx)
    cap = await queue.get(ctx.vault.id, args.capture_id)
    inbox = ctx.resolve_note(cap.inbox if cap is not None else ctx.services.settings.memory.inbox, "write")
    if cap is None:
        raise ToolNotFound(f"no capture {args.capture_id!r} in this vault", details={"capture_id": args.capture_id})
    async with ctx.services.memory_writes.inbox_locks(ctx.vault.id, inbox.rel):
        await _reopen_undone(ctx, queue, inbox)
        cap = await queue.get(ctx.vault.id, args.capture_id) or cap
        if cap.status != "pending":
            raise _not_pending(cap)
        if not cap.in_inbox and cap.inbox == inbox.rel:  # its item first: the link back names a block there
            await _write_unlisted(ctx, inbox, queue)
        by = caller_hash(ctx.principal.subject)
        out = ProcessCaptureOut(id=cap.id, status="discarded", action=args.action, inbox_marked=False)
        if args.action == "discard":
            await queue.finish(ctx.vault.id, cap.id, "discarded", by)
            fields = "[status:: discarded]"
        else:
            if args.action == "entity":
                assert args.target is not None
                back = f"{cap.inbox.removesuffix('.md')}#^{cap.id}"  # an inline field holds no ']'
                filed = await file_observation(ctx, args.target, cap.text, source=back, category=args.category)
                rel, block, entity, taken = filed.path, filed.block_id, filed.entity, list[TakenLink]()
            else:
                vp, taken = await _file_into_note(ctx, cap, args)
                rel, block, entity = vp.rel, cap.id, None
            await queue.finish(ctx.vault.id, cap.id, "filed", by, args.action, rel, block)
            link = _link(rel, block)
            fields = f"[status:: filed] [filed_to:: {link}]"
            out = ProcessCaptureOut(
                id=cap.id,
                status="filed",
                action=args.action,
                path=rel,
                block_link=link,
                obsidian_url=ctx.vault.url(rel),
                entity=entity,
                inbox_marked=False,
            )
        box = [False]
        with contextlib.suppress(NoteNotFound):  # a person deleted the inbox: nothing to mark
            await ctx.vault.files.modify(
                inbox, sections.keeping_crlf(lambda content: _mark(content, cap.id, fields, box))
            )
        here, count = listed_taken(out.path or "", taken if out.path else [])
        return out.model_copy(update={"inbox_marked": box[0], "links_now_here": here, "links_now_here_count": count})


def _mark(content: str, capture_id: str, fields: str, found: list[bool]) -> str:
    new, found[0] = mark_item(content, capture_id, fields)
    return new


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="capture",
        domain="memory",
        title="Capture a thought",
        description="Jot something down fast: it is kept in a durable queue and listed in the vault's inbox note "
        "(`[memory] inbox`) as an item with an id, to be filed later with process_capture.",
        input_model=CaptureIn,
        output_model=CaptureOut,
        handler=capture,
        static_check=_text_checked,  # a dry-run preview and a plan refuse its text too
        scopes=("write:vault",),
        scope_class="write",
        mutating=True,
        idempotent=False,
        reads_index=False,
        tags=("memory", "captures"),
    ),
    ToolSpec(
        name="list_captures",
        domain="memory",
        title="List captures",
        description="Captures of this vault by status (pending by default), oldest first, paginated.",
        input_model=ListCapturesIn,
        output_model=ListCapturesOut,
        handler=list_captures,
        reads_index=False,
        tags=("memory", "captures"),
    ),
    ToolSpec(
        name="process_capture",
        domain="memory",
        title="File or discard a capture",
        description="File a pending capture into a note (under a heading), a new note or a memory entity's "
        "observations, with a link back to its inbox item, or discard it; the inbox item is marked processed.",
        input_model=ProcessCaptureIn,
        output_model=ProcessCaptureOut,
        handler=process_capture,
        static_check=entities_there("process_capture"),  # a dry-run preview and a plan: a target it needs
        scopes=("write:vault",),
        scope_class="write",
        mutating=True,
        idempotent=False,
        tags=("memory", "captures"),
    ),
)
