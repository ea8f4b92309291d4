"""context bundles domain, packing: bundle_folder, bundle_files.

Touches: vault files (read only, through `VaultFiles`, in a worker thread). Packs notes — whole,
body only or frontmatter only — into pages under the caller's byte or token budget and the
response cap (`pack.Packer`), with a manifest of what the page holds and what is left.

Order and cursors. bundle_folder goes by vault path (code point order); its cursor holds the last
path packed, so a later page starts after it whatever was created, edited or deleted meanwhile:
no unchanged note is repeated or skipped. bundle_files goes by the caller's list (duplicates
dropped); its cursor holds a position in it. A note split over pages is resumed at the recorded
character offset when its etag is unchanged, else sent again from its start with `restarted`.

Read permission filters the folder walk before anything is counted or packed: a denied note
is in no entry, count or cursor; an address in bundle_files naming a denied note is reported
`missing` exactly like one naming no note. Secrets are redacted from contents under the vault's
sensitive mode (`service.tools.sensitive`), before any cutting.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from service.errors import AclDenied, AmbiguousNote, NotANote, NoteNotFound, PathInvalid, ValidationFailed
from service.markdown import frontmatter as fm
from service.markdown.parse import note_title
from service.obsidian.attachments import kind_of
from service.retrieval.sensitive import Guard, Span, clip, redact_spans
from service.tools.bundles.pack import Packer, Unit, json_size, measure
from service.tools.context import ToolContext
from service.tools.graph.links import linked_file
from service.tools.models import NOTE_ADDRESS, ToolInput, ToolOutput, decode_cursor, encode_cursor
from service.tools.search_common import query_key
from service.tools.sensitive import guard_of
from service.tools.spec import ToolSpec
from service.vault.files import NoteFile

Mode = Literal["whole", "body", "frontmatter"]
DEFAULT_BYTES = 100_000
RESERVE = 16_384  # bytes of a response kept for everything but the entries
BATCH = 32  # notes read per worker-thread hop
KEPT_SCANS, SCAN_KEPT_FROM = 4, 1_000_000  # notes of this many characters keep their scan (per vault)
PROGRESS_FROM = 100  # candidates above which a page reports progress


class BundleArgs(ToolInput):
    mode: Mode = Field(
        default="whole", description="What of each note: whole, body (without frontmatter), frontmatter (YAML)."
    )
    max_bytes: int | None = Field(
        default=None,
        ge=256,
        le=50_000_000,
        description="Budget of one page: UTF-8 bytes of entry contents (default 100000 when max_tokens is unset).",
    )
    max_tokens: int | None = Field(
        default=None,
        ge=64,
        le=12_500_000,
        description="Budget of one page in estimated tokens (ASCII chars/4 + other chars), instead of max_bytes.",
    )
    cursor: str | None = Field(default=None, description="`next_cursor` of the previous page (same arguments).")

    @model_validator(mode="after")
    def _one_budget(self) -> BundleArgs:
        if self.max_bytes is not None and self.max_tokens is not None:
            raise ValueError("give max_bytes or max_tokens, not both")
        return self

    def budget(self) -> tuple[int, Unit]:
        if self.max_tokens is not None:
            return self.max_tokens, "tokens"
        return self.max_bytes or DEFAULT_BYTES, "bytes"


class BundleFolderIn(BundleArgs):
    folder: str = Field(default="", description="Folder to pack ('' = the whole vault).")
    recursive: bool = Field(default=True, description="Include notes in sub-folders.")


class BundleFilesIn(BundleArgs):
    paths: list[Annotated[str, Field(min_length=1, max_length=1024)]] = Field(
        min_length=1, max_length=1000, description="Notes to pack, in this order. Each: " + NOTE_ADDRESS
    )


class BundleEntry(ToolOutput):
    path: str = Field(description="Vault-relative path.")
    title: str = Field(description="Note title.")
    obsidian_url: str = Field(description="obsidian://open URL of the note.")
    etag: str = Field(description="Content hash of the note when it was read.")
    mtime: float = Field(description="Modification time (Unix seconds).")
    content: str = Field(description="The note's text (or this part of it), secrets redacted per the vault's mode.")
    part: int = Field(description="1 for a note's first (or only) part; 2, 3… for its continuations.")
    start: int = Field(description="Character offset of this part in the selected text (whole, body or YAML).")
    length: int = Field(
        description="Characters of the selected text in all (the note is whole when start=0 "
        "and start + len(content) = length)."
    )
    continues: bool = Field(description="The rest of this note is on the next page.")
    restarted: bool = Field(default=False, description="The note changed after its first part: sent again whole.")
    bytes: int = Field(description="UTF-8 bytes of `content`.")
    tokens: int = Field(description="Estimated tokens of `content`.")
    sensitive: bool = Field(description="The note holds a secret or a health/money topic ([sensitive], [search]).")
    redacted: int = Field(description="Secret spans replaced by [REDACTED:kind] in this part.")


class Manifest(ToolOutput):
    included: list[str] = Field(description="Paths packed in this page, in order (a split note once).")
    continues: str | None = Field(description="The note split across this page and the next, if any.")
    remaining: int = Field(description="Notes not yet started after this page.")
    total: int = Field(description="Notes in the bundle (bundle_files: distinct addresses).")
    unit: Unit = Field(description="What the budget counts: bytes or tokens.")
    budget: int = Field(description="Budget of a page.")
    used: int = Field(description="Budget used by this page's contents.")


class OtherFileItem(ToolOutput):
    address: str = Field(description="The address as given.")
    path: str = Field(description="The file it names: a canvas, a base or an attachment, not packed (no note).")
    kind: str = Field(description="canvas, base, image, pdf, audio, video, text or other.")
    read_with: str = Field(
        description="The tool that reads it: read_canvas, query_base (rows; read_note: its YAML) or read_attachment."
    )


class BundleOut(ToolOutput):
    entries: list[BundleEntry] = Field(description="The packed notes of this page, in bundle order.")
    manifest: Manifest = Field(description="What this page holds and what continues on the next one.")
    missing: list[str] = Field(
        default_factory=list, description="bundle_files: addresses in this page's range that name no readable file."
    )
    not_notes: list[OtherFileItem] = Field(
        default_factory=list,
        description="bundle_files: addresses in this page's range naming a canvas, a base or an attachment (not "
        "packed), with the tool that reads each.",
    )
    sensitive_detected: bool = Field(description="Some entry is sensitive: confirm before passing it on.")
    next_cursor: str | None = Field(default=None, description="Pass as `cursor` for the next page; None at the end.")


@dataclass(frozen=True, slots=True)
class Resume:
    """A split note to resume: `path` from character `offset` when its etag is still `etag`."""

    path: str
    offset: int
    etag: str
    part: int


def _select(text: str, mode: Mode) -> tuple[int, int]:
    """Where the part of a note `mode` asks for is (start, end offsets)."""
    if mode == "whole":
        return 0, len(text)
    found = fm.fences(text)
    if mode == "body":
        return found.body_start, len(text)
    if found.raw is None:
        return 0, 0
    start = text.find(found.raw)
    return start, start + len(found.raw)


_READERS = {"canvas": "read_canvas", "base": "query_base"}  # any other kind: read_attachment


class _Page:
    """One page being packed: the packer, the entries and what was skipped."""

    def __init__(self, ctx: ToolContext, guard: Guard, args: BundleArgs) -> None:
        self.url = ctx.vault.url
        self.guard = guard
        self.scans = ctx.vault.scans
        self.mode = args.mode
        limit, self.unit = args.budget()
        most = ctx.services.settings.governor.max_response_bytes
        # a small limit keeps half for the rest (RESERVE alone is more than a 4 KB limit)
        cap = max((most - min(RESERVE, most // 2)) // 2, 512)
        self.packer = Packer(limit, self.unit, cap)
        self.entries: list[BundleEntry] = []
        self.missing: list[str] = []
        self.not_notes: list[OtherFileItem] = []
        self.split: tuple[str, int, str, int] | None = None  # (path, offset, etag, part) to resume at

    def add(self, note: NoteFile, resume: Resume | None) -> bool:
        """Packs `note` (from `resume`'s offset when it applies); False when the page is full
        before the note starts."""
        rel = note.path.rel
        spans, sensitive = self._scan(note)  # for the flag and for redaction
        first, last = _select(note.content, self.mode)
        marks: list[tuple[int, int]] = []
        text = note.content[first:last]
        if self.guard.redacts:
            text, marks = redact_spans(text, clip(spans, first, last))
        start, part, restarted = 0, 1, False
        if resume is not None and resume.path == rel and not self.entries:
            if resume.etag == note.etag and resume.offset < len(text):
                start, part = resume.offset, resume.part
            else:
                restarted = True
        shell = {
            "path": rel,
            "title": note_title(rel),
            "obsidian_url": self.url(rel),
            "etag": note.etag,
            "mtime": note.stat.mtime,
            "part": 1,
            "start": start,
            "length": len(text),
            "continues": False,
            "restarted": restarted,
            "bytes": 0,
            "tokens": 0,
            "sensitive": False,
            "redacted": 0,
        }
        piece = self.packer.place(text, start, shell)
        if piece is None:
            return False
        content = text[piece.start : piece.end]
        entry = BundleEntry(
            **{
                **shell,
                "content": content,
                "part": part,
                "continues": piece.continues,
                "bytes": measure(content, "bytes"),
                "tokens": measure(content, "tokens"),
                "sensitive": sensitive,
                "redacted": sum(1 for a, b in marks if b > piece.start and a < piece.end),
            }
        )
        listed = 0 if self.entries and self.entries[-1].path == rel else json_size(rel) + 2  # manifest.included
        self.packer.take(content, json_size(entry.model_dump(mode="json")) + listed)
        self.entries.append(entry)
        if piece.continues:
            self.split = (rel, piece.end, note.etag, part + 1)
        return True

    def _scan(self, note: NoteFile) -> tuple[list[Span], bool]:
        """The note's secret spans and whether it is sensitive: scanned once per version for the
        pages of a long note (a 50 MB note: ~2 s of scans a page, each page of 100 KB)."""
        key = (note.path.rel, note.etag, self.guard.fingerprint, self.guard.terms)
        kept: tuple[list[Span], bool] | None = self.scans.get(key)
        if kept is None:
            spans = self.guard.spans(note.content)
            kept = (spans, bool(spans) or self.guard.mentions(note.content))  # `topical` without tags
            if len(note.content) >= SCAN_KEPT_FROM:
                self.scans[key] = kept
                while len(self.scans) > KEPT_SCANS:  # pages run in worker threads: popitem is one step
                    with contextlib.suppress(KeyError):
                        self.scans.popitem(last=False)
        return kept

    def note_missing(self, name: str) -> bool:
        """Lists `name` in `missing`; False (the page is full) when that would pass the cap."""
        size = json_size(name) + 2
        if self.packer.used_json + size > self.packer.cap and (self.entries or self.missing):
            return False
        self.packer.used_json += size
        self.missing.append(name)
        return True

    def note_other(self, name: str, rel: str) -> bool:
        """Lists the file `name` names (no note) in `not_notes`; False when that would pass the cap."""
        kind = kind_of(rel)
        item = OtherFileItem(address=name, path=rel, kind=kind, read_with=_READERS.get(kind, "read_attachment"))
        size = json_size(item.model_dump(mode="json")) + 2
        if self.packer.used_json + size > self.packer.cap and (self.entries or self.missing or self.not_notes):
            return False
        self.packer.used_json += size
        self.not_notes.append(item)
        return True

    def out(self, total: int, remaining: int, cursor: str | None) -> BundleOut:
        included = list(dict.fromkeys(e.path for e in self.entries))
        return BundleOut(
            entries=self.entries,
            manifest=Manifest(
                included=included,
                continues=self.split[0] if self.split else None,
                remaining=remaining,
                total=total,
                unit=self.unit,
                budget=self.packer.budget,
                used=self.packer.used,
            ),
            missing=self.missing,
            not_notes=self.not_notes,
            sensitive_detected=any(e.sensitive for e in self.entries),
            next_cursor=cursor,
        )


def _read(ctx: ToolContext, rel: str) -> NoteFile | None:
    try:
        return ctx.vault.files.read(ctx.vault.paths.resolve(rel, op="read"))
    except (NoteNotFound, PathInvalid, AclDenied):
        return None  # gone since the walk, or became a folder


# Vault paths of a batch of names (None: the name is no readable note); bundle_folder's names
# are paths already, bundle_files' are addresses resolved through the ACL.
Locate = Callable[[list[str]], Awaitable[list[str | None]]]


async def _pack(ctx: ToolContext, page: _Page, names: list[str], locate: Locate, resume: Resume | None) -> int:
    """Packs the notes `names` locate to, in order, into `page`; returns the index of the first
    one not fully packed (the split note's own index when one continues). A name that locates
    to no note, or whose file is gone, is passed over (bundle_files lists it in `missing`)."""

    def fill(offset: int, rels: list[str | None]) -> tuple[int, bool]:
        for k, rel in enumerate(rels):  # reads and packs a batch in one worker-thread hop
            if rel is not None and not rel.lower().endswith(".md"):  # bundle_files: a canvas, a base, an attachment
                if not page.note_other(names[offset + k], rel):
                    return offset + k, True
                continue
            note = _read(ctx, rel) if rel is not None else None
            if note is None:
                if not page.note_missing(names[offset + k]):
                    return offset + k, True
            elif not page.add(note, resume) or page.split is not None:
                return offset + k, True
        return offset + len(rels), False

    index, total = 0, len(names)
    while index < total:
        rels = await locate(names[index : index + BATCH])
        index, stopped = await asyncio.to_thread(fill, index, rels)
        if stopped:
            return index
        if total > PROGRESS_FROM:
            await ctx.progress(index, total, f"bundle: {index}/{total} notes")
    return index


def _state(cursor: str | None, key: str) -> dict[str, Any]:
    """The fields of a bundle cursor (`{}` for the first page)."""
    if not cursor:
        return {}
    offset = decode_cursor(cursor, t="bundle", q=key)
    try:
        data = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    except ValueError:
        raise ValidationFailed("invalid cursor", details={"field": "cursor"}) from None
    return {**data, "o": offset}


def _resume_of(state: dict[str, Any]) -> Resume | None:
    if state.get("p") is None:
        return None
    return Resume(str(state["p"]), int(state["o"]), str(state.get("e")), int(state.get("n", 2)))


def _cursor(page: _Page, key: str, **position: Any) -> str:
    if page.split is not None:
        path, offset, etag, part = page.split
        return encode_cursor(offset, t="bundle", q=key, p=path, e=etag, n=part, **position)
    return encode_cursor(0, t="bundle", q=key, p=None, e=None, **position)


async def bundle_folder(ctx: ToolContext, args: BundleFolderIn) -> BundleOut:
    folder = ctx.folder(args.folder)
    key = query_key("bundle_folder", folder.rel, args.recursive, args.mode)
    state = _state(args.cursor, key)
    resume = _resume_of(state)

    def walk() -> list[str]:
        found = ctx.vault.files.walk(folder, recursive=args.recursive, readable=ctx.walk_filter())
        return sorted(rel for rel, entry in found if not entry.is_dir() and rel.lower().endswith(".md"))

    paths = await asyncio.to_thread(walk)
    # Resume by path, not by position: notes created or deleted before the cut shift positions.
    mark: str | None = resume.path if resume is not None else state.get("a")
    todo = paths if mark is None else [p for p in paths if p > mark or (resume is not None and p == mark)]

    async def locate(batch: list[str]) -> list[str | None]:
        return list(batch)

    page = _Page(ctx, guard_of(ctx), args)
    stop = await _pack(ctx, page, todo, locate, resume)
    page.missing = []  # a note deleted since the walk is simply not in the bundle
    started = stop + (1 if page.split is not None else 0)
    cursor = None
    if stop < len(todo):
        cursor = _cursor(page, key, a=todo[stop - 1] if stop > 0 else mark)
    return page.out(len(paths), len(todo) - started, cursor)


async def bundle_files(ctx: ToolContext, args: BundleFilesIn) -> BundleOut:
    names = list(dict.fromkeys(args.paths))
    key = query_key("bundle_files", names, args.mode)
    state = _state(args.cursor, key)
    first = int(state.get("i", 0))
    if not 0 <= first <= len(names):
        raise ValidationFailed("invalid cursor", details={"field": "cursor"})

    async def locate(batch: list[str]) -> list[str | None]:
        found: list[str | None] = []
        for address in batch:
            try:
                found.append((await linked_file(ctx, address)).rel)  # a note, else a canvas, base or attachment
            except (NoteNotFound, PathInvalid, AclDenied, AmbiguousNote, NotANote, ValidationFailed):
                found.append(None)  # a denied note is reported exactly like a missing one
        return found

    page = _Page(ctx, guard_of(ctx), args)
    stop = first + await _pack(ctx, page, names[first:], locate, _resume_of(state))
    started = stop + (1 if page.split is not None else 0)
    cursor = _cursor(page, key, i=stop) if stop < len(names) else None
    return page.out(len(names), len(names) - started, cursor)


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="bundle_folder",
        domain="bundles",
        title="Pack a folder into a context bundle",
        description="The notes of a folder (whole, body or frontmatter) packed in path order into pages under a "
        "byte or token budget, with a manifest (included, continues, remaining) and next_cursor; a note bigger "
        "than a page is split across pages. Each entry has obsidian_url and a sensitive flag; secrets are "
        "redacted per the vault's setting. For a few chosen notes use bundle_files; for passages answering a "
        "question, context_for_query.",
        input_model=BundleFolderIn,
        output_model=BundleOut,
        handler=bundle_folder,
    ),
    ToolSpec(
        name="bundle_files",
        domain="bundles",
        title="Pack chosen notes into a context bundle",
        description="The given notes (whole, body or frontmatter), in the order given, packed into pages under a "
        "byte or token budget, with a manifest and next_cursor; addresses naming no readable file are listed in "
        "`missing`, a canvas, base or attachment in `not_notes` (with the tool that reads it). Same entries as "
        "bundle_folder. For one note use read_note.",
        input_model=BundleFilesIn,
        output_model=BundleOut,
        handler=bundle_files,
    ),
)
