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

A note over `[limits] max_note_bytes` is not read at all (its etag, its scan for secrets and its
length need all of it): it is listed in `refused` with read_note's `compute_budget_exceeded`,
counted as done, and the rest of the bundle is packed.
"""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from service.errors import (
    AclDenied,
    AmbiguousNote,
    ComputeBudgetExceeded,
    NotANote,
    NoteNotFound,
    PathInvalid,
    ValidationFailed,
)
from service.markdown import frontmatter as fm
from service.markdown.parse import note_title
from service.obsidian.attachments import kind_of
from service.retrieval.sensitive import Guard, Span, clip
from service.tools.bundles.known import Known, kept_scan, known_of, known_window, learn
from service.tools.bundles.pack import Packer, json_size, measure
from service.tools.bundles.shapes import (
    MODES,
    RESERVE,
    BundleArgs,
    BundleEntry,
    BundleFilesIn,
    BundleFolderIn,
    BundleOut,
    Manifest,
    Mode,
    OtherFileItem,
    RefusedItem,
)
from service.tools.bundles.window import SCAN_KEPT_FROM, Marks, redacted_length, redacted_window, scanned
from service.tools.context import ToolContext
from service.tools.graph.links import linked_file
from service.tools.models import decode_cursor, encode_cursor
from service.tools.search_common import query_key
from service.tools.sensitive import guard_of
from service.tools.spec import ToolSpec
from service.vault.decoding import UTF8
from service.vault.files import NoteFile, VaultFiles
from service.vault.settled import Settled, read_settled

BATCH = 32  # notes read per worker-thread hop
PROGRESS_FROM = 100  # candidates above which a page reports progress


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
        self.refused: list[RefusedItem] = []
        self.split: tuple[str, int, str, int] | None = None  # (path, offset, etag, part) to resume at

    def add(self, note: NoteFile, resume: Resume | None, key: Settled | None = None) -> bool:
        """Packs `note` (from `resume`'s offset when it applies); False when the page is full
        before the note starts. `key`: the version's `Settled` key, to keep for its next pages."""
        rel = note.path.rel
        spans, sensitive = scanned(self.scans, self.guard, note)  # for the flag and for redaction
        first, last = _select(note.content, self.mode)

        def window(spans: list[Span], first: int, last: int, start: int, width: int) -> tuple[str, Marks]:
            return redacted_window(note.content, spans, first, last, start, width)

        added = self._add(rel, note.etag, note.stat.mtime, (spans, sensitive), first, last, resume, window)
        split = self.split is not None and self.split[0] == rel
        if key is not None and split and len(note.content) >= SCAN_KEPT_FROM and note.encoding == UTF8:
            learn(self.scans, note, key, {mode: _select(note.content, mode) for mode in MODES})
        return bool(added)

    def add_known(self, files: VaultFiles, known: Known, resume: Resume) -> bool | None:
        """`add` of the note `known` names, from the bytes its part of this page takes; None
        when it cannot be (`known` doc): the note is then read whole."""
        scan = kept_scan(self.scans, self.guard, known)
        if scan is None or resume.etag != known.etag or resume.path != known.vp.rel or self.entries:
            return None
        first, last = known.bounds[self.mode]

        def window(spans: list[Span], first: int, last: int, start: int, width: int) -> tuple[str, Marks] | None:
            return known_window(files, known, spans, first, last, start, width)

        return self._add(known.vp.rel, known.etag, known.mtime, scan, first, last, resume, window)

    def _add(
        self,
        rel: str,
        etag: str,
        mtime: float,
        scan: tuple[list[Span], bool],
        first: int,
        last: int,
        resume: Resume | None,
        window: Callable[[list[Span], int, int, int, int], tuple[str, Marks] | None],
    ) -> bool | None:
        spans, sensitive = scan
        spans = clip(spans, first, last) if self.guard.redacts else []
        length = redacted_length(last - first, spans)  # of the text packed: its secrets redacted
        start, part, restarted = 0, 1, False
        if resume is not None and resume.path == rel and not self.entries:
            if resume.etag == etag and resume.offset < length:
                start, part = resume.offset, resume.part
            else:
                restarted = True
        shell = {
            "path": rel,
            "title": note_title(rel),
            "obsidian_url": self.url(rel),
            "etag": etag,
            "mtime": mtime,
            "part": 1,
            "start": start,
            "length": length,
            "continues": False,
            "restarted": restarted,
            "bytes": 0,
            "tokens": 0,
            "sensitive": False,
            "redacted": 0,
        }
        # only the part a page can take is made (`window`): not all of a 50 MB note on every page
        made = window(spans, first, last, start, self.packer.reach())
        if made is None:
            return None
        text, marks = made
        piece = self.packer.place(text, 0, shell)
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
            self.split = (rel, start + piece.end, etag, part + 1)
        return True

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

    def note_refused(self, name: str, rel: str, exc: ComputeBudgetExceeded) -> bool:
        """Lists the note `rel` (over `[limits] max_note_bytes`: never read) in `refused` with its
        error, as read_notes reports it; False when that would pass the cap."""
        error = {"code": exc.code, "message": exc.message, "details": exc.details}
        item = RefusedItem(address=name, path=rel, error=error)
        size = json_size(item.model_dump(mode="json")) + 2
        if self.packer.used_json + size > self.packer.cap and (self.entries or self.missing or self.refused):
            return False
        self.packer.used_json += size
        self.refused.append(item)
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
            refused=self.refused,
            sensitive_detected=any(e.sensitive for e in self.entries),
            next_cursor=cursor,
        )


def _read(ctx: ToolContext, rel: str) -> tuple[NoteFile, Settled | None] | ComputeBudgetExceeded | None:
    try:
        return read_settled(ctx.vault.files, ctx.vault.paths.resolve(rel, op="read"))
    except (NoteNotFound, PathInvalid, AclDenied):
        return None  # gone since the walk, or became a folder
    except ComputeBudgetExceeded as exc:
        return exc  # over [limits] max_note_bytes, nothing read: listed in `refused`, the rest packed


# Vault paths of a batch of names (None: the name is no readable note); bundle_folder's names
# are paths already, bundle_files' are addresses resolved through the ACL.
Locate = Callable[[list[str]], Awaitable[list[str | None]]]


async def _pack(ctx: ToolContext, page: _Page, names: list[str], locate: Locate, resume: Resume | None) -> int:
    """Packs the notes `names` locate to, in order, into `page`; returns the index of the first
    one not fully packed (the split note's own index when one continues). A name that locates
    to no note, or whose file is gone, is passed over (bundle_files lists it in `missing`); a note
    over `[limits] max_note_bytes` is listed in `refused`, never read."""

    def fill(offset: int, rels: list[str | None]) -> tuple[int, bool]:
        for k, rel in enumerate(rels):  # reads and packs a batch in one worker-thread hop
            if rel is not None and not rel.lower().endswith(".md"):  # bundle_files: a canvas, a base, an attachment
                if not page.note_other(names[offset + k], rel):
                    return offset + k, True
                continue
            known = known_of(page.scans, rel) if rel is not None and resume is not None else None
            added = page.add_known(ctx.vault.files, known, resume) if known is not None and resume is not None else None
            if added is not None:  # a later page of a known note, from the bytes it packs
                if not added or page.split is not None:
                    return offset + k, True
                continue
            got = _read(ctx, rel) if rel is not None else None
            if got is None:
                if not page.note_missing(names[offset + k]):
                    return offset + k, True
            elif isinstance(got, ComputeBudgetExceeded):
                if not page.note_refused(names[offset + k], str(rel), got):
                    return offset + k, True
            elif not page.add(got[0], resume, got[1]) or page.split is not None:
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
    if not all(_FIELDS[k](v) for k, v in data.items() if k in _FIELDS):  # a cursor written by hand
        raise ValidationFailed("invalid cursor", details={"field": "cursor"})
    return {**data, "o": offset}


def _count(least: int) -> Callable[[Any], bool]:
    return lambda v: type(v) is int and v >= least


_FIELDS: dict[str, Callable[[Any], bool]] = {  # what `_cursor` writes in each field
    **dict.fromkeys(("p", "e", "a"), lambda v: v is None or isinstance(v, str)),
    "n": _count(2),
    "i": _count(0),
}


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
