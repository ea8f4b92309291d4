"""What a tool handler sees: the resolved vault, the caller, and path helpers that apply the ACL.

Handlers never check auth, scopes or limits themselves; they resolve every path argument
through `resolve`/`resolve_note` (safe resolution + the path ACL for the operation) and filter
listed paths with `can_read` so nothing the caller may not read leaks into a result. An existing
note is found with `find_note`, which accepts what a wikilink accepts (`service.graph.address`);
a path where a note is to be created stays a path (`resolve_note`).

A `ToolContext` carries what handlers use of the call, not the dispatch chain's `CallContext`:
the caller, the transport, the SDK request (for client log notifications and nested calls),
the progress reporter, the correlation id and `notes`, the call's own dict through which a
handler leaves facts for the outer layers (the session it closed, what a nested call applied).
`InputNeeded` is how a handler hands a nested call's question for the human back to its layer.
"""

from __future__ import annotations

import asyncio
import errno
import os
import stat
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from service.security.visible import unrestricted
from service.tools.named_files import BASE_HINT, link_target, not_a_base
from service.tools.note_names import note_name_loader
from service.types import Op, Principal, ProgressFn, Transport
from service.vault.paths import VaultPath, with_md

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from service.graph.address import Address, NoteName
    from service.services import Services
    from service.vault.commit import Steps
    from service.vault.vault import Vault

SectionUse = Literal["keep", "ignore", "reject"]


@dataclass(frozen=True, slots=True)
class FoundNote:
    """An existing note found by its address; `subpath` is the `#…` section asked for, if kept."""

    vp: VaultPath
    subpath: str | None
    address: Address
    stat: os.stat_result | None = None  # the note's `stat` when found by its path (read_note need not stat again)


_NOT_THERE = (errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP)  # what `Path.is_file` answers False for


def _regular_file(path: Path) -> os.stat_result | None:
    """`path.is_file()`, keeping the `stat` it made (None: no regular file there)."""
    try:
        st = path.stat()
    except OSError as exc:
        if exc.errno not in _NOT_THERE:
            raise
        return None
    except ValueError:  # a NUL in the name
        return None
    return st if stat.S_ISREG(st.st_mode) else None


__all__ = ["BASE_HINT", "InputNeeded", "Op", "ToolContext", "link_target", "note_name_loader"]


@dataclass
class ToolContext:
    principal: Principal
    vault: Vault
    services: Services
    transport: Transport = "inproc"
    request: Any = None  # the SDK request context, None in process
    report: ProgressFn | None = None
    correlation_id: str = ""
    notes: dict[str, Any] = field(default_factory=dict)  # the call's notes (shared with the chain)

    def resolve(self, path: str, op: Op = "read", *, allow_root: bool = False) -> VaultPath:
        from service.security.acl import check_path

        vp = self.vault.paths.resolve(path, allow_root=allow_root, op=op)
        check_path(self.services.guard, self.principal, self.vault, vp, op)
        return vp

    def folder(self, path: str, op: Op = "read", *, field: str | None = None) -> VaultPath:
        """An existing folder (the vault root for ''), as written; none there is `note_not_found`
        naming in `details.suggestions` the folders the caller may have meant (`archive` for
        `Archive`: `service.vault.folder_names`), `details.field` the argument when given."""
        from service.errors import NoteNotFound
        from service.vault.folder_names import folder_suggestions

        vp = self.resolve(path, op, allow_root=True)
        if vp.abs.is_dir():
            return vp
        suggestions = folder_suggestions(self.vault.paths.root, vp.rel, self._readable_folder)
        details: dict[str, Any] = {"path": vp.rel, "suggestions": suggestions}
        if field is not None:
            details["field"] = field
        closest = f"; closest: {', '.join(suggestions)}" if suggestions else ""
        raise NoteNotFound(
            f"no folder at {vp.rel!r}{closest}",
            details=details,
            hint="Pass one of details.suggestions as the folder."
            if suggestions
            else "list_folders lists the vault's folders.",
        )

    def _readable_folder(self, rel: str) -> bool:
        from service.errors import AclDenied, PathInvalid

        try:
            self.resolve(rel, "read")
        except (AclDenied, PathInvalid):
            return False
        return True

    def resolve_note(self, path: str, op: Op = "read") -> VaultPath:
        """A note path, taken as written (where a note is created): `.md` is optional, as in
        Obsidian, and a wikilink's brackets around it (`[[New idea]]`) are dropped."""
        from service.vault.paths import normalize

        text = path.strip()
        if len(text) > 4 and text.startswith("[[") and text.endswith("]]"):
            path = text[2:-2]
        _named(path)
        not_a_base(path)  # never 'Books.base.md' for 'Books.base'
        return self.resolve(with_md(normalize(path)), op)

    async def find_note(
        self, address: str, op: Op = "read", *, section: SectionUse = "ignore", missing_ok: bool = False
    ) -> FoundNote:
        """An existing note named as a wikilink names it (path, name, partial path, alias, any
        letter case, `#Heading`/`#^block`), with the path ACL for `op` applied to the note found.
        `section`: a `#…` part is returned (`keep`), dropped (`ignore`) or a `validation_error`.

        The address is first a vault path on disk, as written; only when no note is there are
        the notes the caller may read searched (`resolve_address`): `ambiguous_note` when several
        fit, else the literal path's own answer (`acl_denied`, `path_invalid`), `not_a_note` for a
        folder or attachment (also one named as a link names it, 'Trip board.canvas', or as a
        whole though its name holds '|' or '#', 'scan#1.pdf': `service.tools.named_files`),
        `note_not_found` with the closest names as `details.suggestions` and the files of that
        name no note tool reads as `details.files` —
        or, with `missing_ok`, the literal path itself (where a note may be created, or where the
        file layer answers an `expected_etag` with `conflict`)."""
        from service.errors import AclDenied, AmbiguousNote, NoteNotFound, PathInvalid, ValidationFailed
        from service.graph.address import or_by_name, parse_address, resolve_address, suggestions
        from service.tools.named_files import missing_hint, names_a_file, of_that_name, same_named
        from service.vault.paths import normalize

        addr = parse_address(address, self._names_a_path)  # 'Plan#2', 'Home#Contribute/new': paths on disk
        if addr.cut:  # or 'Odd|pipe' by name
            by_name = or_by_name(self._names_a_path, await self._note_names(odd=True), self._visible_note)
            addr = parse_address(address, by_name)
        if addr.cut and names_a_file(address):  # 'Board|x.canvas', 'scan#1.pdf': a file so named is the whole
            await self._no_note_file(address)
        if addr.subpath is not None and section == "reject":
            raise ValidationFailed(
                f"{address!r} names a section ({addr.subpath!r}); this tool works on the whole note",
                details={"field": "path", "reason": "section_not_supported", "subpath": addr.subpath},
                hint="Pass the note without '#…'; patch_note and read_note take a section.",
            )
        kept = addr.subpath if section == "keep" else None
        _named(addr.target)
        denied: AclDenied | None = None
        invalid: PathInvalid | None = None
        literal: VaultPath | None = None
        try:
            literal = self.resolve(with_md(normalize(addr.target)), op)
        except AclDenied as exc:
            denied = exc
        except PathInvalid as exc:
            if exc.details.get("reason") != "reserved character" or "/" in addr.target:
                raise
            invalid = exc  # 'Q&A: basics' can still be an alias
        if literal is not None and (st := _regular_file(literal.abs)) is not None:
            return FoundNote(literal, kept, addr, st)
        names = await self._note_names()
        # A scan of every note name (~0.1 s for 20k notes): off the event loop.
        found = await asyncio.to_thread(resolve_address, addr.target, names, self._visible_note)
        if found.path is not None:
            return FoundNote(self.resolve(found.path, op), kept, addr)
        if found.candidates:
            raise AmbiguousNote(
                f"{addr.target!r} fits {found.total} notes",
                details={"address": address, "candidates": list(found.candidates), "total": found.total},
            )
        if denied is not None:
            raise denied
        if invalid is not None:
            raise invalid
        assert literal is not None
        self._not_a_note(addr.target)
        if missing_ok:
            if addr.display is not None:  # no 'Q' for 'Q|A': the new path is the text as written ('|': path_invalid)
                made = self.resolve_note(address, op)
                for segment in (s for s in made.rel.split("/") if "|" in s):
                    self.vault.paths.check_new_name(made.rel, segment)
            return FoundNote(literal, kept, addr)
        if names_a_file(addr.target):  # 'Trip board.canvas': not_a_note naming the canvas, if one is there
            await self._no_note_file(addr.target)
        close = await asyncio.to_thread(suggestions, addr.target, names, self._visible_note)
        files = same_named(await self.known_files(None), addr.target, self._visible_note)  # 'Trip board'
        raise NoteNotFound(
            f"no note at {literal.rel!r}" + (f"; closest: {', '.join(close)}" if close else "") + of_that_name(files),
            details={"path": literal.rel, "suggestions": close, **({"files": files} if files else {})},
            hint=missing_hint(bool(close), bool(files), note=True),
        )

    async def find_file(self, address: str, op: Op = "read") -> VaultPath:
        """An existing file that is not a note (a `.base`, an attachment) named as an embed
        names it (`![[Books.base]]`): the vault path as written when a file is there, else the
        files the index knows (and, while the first index is built, those on disk) and the
        caller may read, by path tail or file name (any letter case): `ambiguous_note` when
        several fit, `note_not_found` when none does (details.kind: the file's kind by its
        extension, `service.obsidian.attachments.kind_of`; suggestions: the closest files of its
        extension; files: those of its name with another extension, `named_files.same_named`)."""
        from service.errors import AclDenied, AmbiguousNote, NoteNotFound
        from service.graph.address import NoteName, resolve_address, suggestions
        from service.obsidian.attachments import kind_of
        from service.tools.named_files import missing_hint, of_that_name, same_named
        from service.vault.paths import normalize

        text = link_target(address)
        denied: AclDenied | None = None
        try:
            literal = self.resolve(normalize(text), op)
            if literal.abs.is_file():
                return literal
        except AclDenied as exc:
            denied = exc  # answered unless the name names a file elsewhere
        names = [NoteName(f) for f in await self.known_files("." + text.lower().rpartition(".")[2])]
        found = resolve_address(text, names, self._visible_note)
        if found.path is not None:
            return self.resolve(found.path, op)
        if found.candidates:
            raise AmbiguousNote(
                f"{text!r} fits {found.total} files",
                details={"address": address, "candidates": list(found.candidates), "total": found.total},
            )
        if denied is not None:
            raise denied
        rel = normalize(text)
        named = "." in rel.rsplit("/", 1)[-1].strip(".")  # with an extension
        if not named:  # perhaps a note's name ('kyoto')
            note = await asyncio.to_thread(resolve_address, text, await self._note_names(), self._visible_note)
            if note.path is not None:
                raise NoteNotFound(
                    f"no file at {rel!r}: it names the note {note.path!r}",
                    details={"path": rel, "note": note.path, "suggestions": []},
                    hint="This tool takes a file that is not a note, named with its extension ('cover.jpg'); "
                    "read_note reads the note. list_attachments lists the note's attachments (for_note).",
                )
        close = await asyncio.to_thread(suggestions, text, names, self._visible_note)  # files of its extension
        stem = text if not named else text.rsplit(".", 1)[0] if kind_of(rel) != "other" else ""
        files = same_named(await self.known_files(None), stem, self._visible_note) if stem else []  # 'Photo.canvas'
        raise NoteNotFound(
            f"no file at {rel!r}" + (f"; closest: {', '.join(close)}" if close else "") + of_that_name(files),
            details={"path": rel, **({"kind": kind_of(rel)} if named else {}), "suggestions": close}
            | ({"files": files} if files else {}),
            hint=missing_hint(bool(close), bool(files), note=False)
            or "No file has this name: check the name and its extension; list_attachments lists the vault's "
            "files that are not notes (canvases and bases too).",
        )

    async def _no_note_file(self, target: str) -> None:
        """`not_a_note` when `target`, which names no note, names by its extension an existing
        file no note tool reads (`service.tools.named_files`); an ambiguous name is `ambiguous_note`."""
        from service.errors import AclDenied, NoteNotFound, PathInvalid
        from service.tools.named_files import not_a_note

        try:
            found = await self.find_file(target, "read")
        except (NoteNotFound, AclDenied, PathInvalid):
            return
        if not found.rel.lower().endswith(".md"):
            raise not_a_note(found)

    async def known_files(self, suffix: str | None) -> list[str]:
        """The files the index knows whose names end with `suffix` (any letter case; every file for
        None) and, while the first index is still being built, those on disk the caller may read."""
        from service.indexer import fresh
        from service.indexer.runner import indexer_of

        indexer = indexer_of(self.vault)
        if indexer is not None:  # a file the caller has just written is found by name
            await fresh.settle(indexer)
        partial = indexer is None or not indexer.ready  # read first, as in `_note_names`
        every = indexer.files() if indexer is not None else []
        files = every if suffix is None else [f for f in every if f.lower().endswith(suffix)]
        if partial:
            known = set(files)
            files = files + [rel for rel in self._files_on_disk(suffix or "") if rel not in known]
        return files

    def _names_a_path(self, text: str) -> str | None:
        """What an address holding '#' or '|' names, as a whole, of what the caller may read on disk:
        "note" (`.md` optional), "folder" (named with '#' or '|'), "new" (a new note in such a
        folder), or None. See `parse_address` for which wins."""
        from service.errors import AclDenied, PathInvalid
        from service.vault.paths import normalize

        try:
            note = self.resolve(with_md(normalize(text)), "read")
            if note.abs.is_file():
                return "note"
            if self.resolve(normalize(text), "read").abs.is_dir():
                return "folder"
            if ("#" in (folder := note.rel.rpartition("/")[0]) or "|" in folder) and note.abs.parent.is_dir():
                return "new"
        except (AclDenied, PathInvalid):
            pass
        return None

    def _not_a_note(self, target: str) -> None:
        """`not_a_note` when `target` is a folder or a file no note tool reads the caller may read."""
        from service.errors import AclDenied, NotANote, PathInvalid
        from service.tools.named_files import not_a_note
        from service.vault.paths import normalize

        not_a_base(target)
        try:
            vp = self.resolve(normalize(target), "read")
        except (AclDenied, PathInvalid):
            return
        if vp.abs.is_dir():
            raise NotANote(
                f"{vp.rel!r} is a folder, not a note",
                details={"path": vp.rel, "kind": "folder"},
                hint="Pass a note's path; list_notes lists the notes in this folder.",
            )
        if vp.abs.is_file() and not vp.rel.lower().endswith(".md"):
            raise not_a_note(vp)  # its kind and the tool that reads it, as by its name (`named_files`)

    def _visible_note(self, rel: str) -> bool:
        """A note the caller may read and that is on disk (the index may lag behind a deletion)."""
        return self.can_read(rel) and self.vault.paths.on_disk(rel).is_file()

    async def note_names(self) -> list[NoteName]:
        """Every note an address may name (paths and aliases), read once for many addresses."""
        return await self._note_names()

    async def _note_names(self, *, odd: bool = False) -> list[NoteName]:
        """Every note an address may name: the index's notes and aliases; while the first index
        is still being built, also the notes on disk (without aliases). `odd`: of the index's,
        those whose path holds '#' or '|' (`NoteNames.holding`), for `or_by_name`."""
        from service.graph.address import NoteName
        from service.indexer import fresh
        from service.indexer.runner import indexer_of
        from service.storage.db import DbError

        indexer = indexer_of(self.vault)
        if indexer is not None:  # a note the caller has just created or renamed is found by name
            await fresh.settle(indexer)
        # Read before the names: a write made while the first index was built is applied just
        # before it turns ready, so the index may turn ready while the names are read without them.
        partial = indexer is None or not indexer.ready

        load = note_name_loader(self.services.db, self.vault.id)
        try:
            # Kept by the indexer and patched per index round: not 10k rows and objects per call.
            held = await (indexer.names.get(load) if indexer is not None else load(None))
            names = list(indexer.names.holding() if odd and indexer is not None else held)
            # Read with the list: a cold load's list holds the notes on disk already (`names.py`).
            listed = indexer is not None and indexer.names.with_files
        except DbError:
            names, listed = [], False
        if partial and not listed:
            known = {n.path for n in names}
            names += [NoteName(rel) for rel in self._files_on_disk(".md") if rel not in known]
        return names

    def _files_on_disk(self, suffix: str) -> list[str]:
        """The caller's readable files on disk whose names end with `suffix` (any letter case):
        what an index still being built may not hold yet."""
        root = self.vault.paths.resolve("", allow_root=True)
        walk = self.vault.files.walk(root, readable=self.walk_filter())
        return [rel for rel, entry in walk if rel.lower().endswith(suffix) and not entry.is_dir()]

    def can_read(self, rel: str) -> bool:
        return self.services.guard.allows(self.principal, self.vault, rel, "read")

    def walk_filter(self) -> Callable[[str], bool] | None:
        """`can_read` for `VaultFiles.walk`, or None when no rule can deny this caller a visible
        note (the walk leaves hidden folders out by itself): a listing then asks nothing per file."""
        return None if unrestricted(self) else self.can_read

    async def progress(self, done: float, total: float | None = None, message: str | None = None) -> None:
        if self.report is not None:
            await self.report(done, total, message)

    async def run_nested(self, tool: str, arguments: dict[str, Any]) -> Any:
        """Run `tool` through the whole dispatch chain as part of this call (the facade, a
        finding's plan): same caller, transport and progress, and — protocol 2026-07-28 — the
        retry of this call carries the answer to the inner call's question. An inner question
        becomes this call's (`InputNeeded`), an inner error this call's error. Its `ToolResult`."""
        from service.errors import ToolNotFound, VaultgateError

        result = await self.services.dispatch(
            tool,
            arguments,
            principal=self.principal,
            transport=self.transport,
            request=self.request,
            progress=self.report,
            input_responses=self.notes.get("input_responses"),
            request_state=self.notes.get("request_state"),
        )
        if result.input_required is not None:
            raise InputNeeded(result.input_required)  # the client must ask its human, then retry this call
        self.notes["inner_applied"] = result.applied  # the governor keeps a completed change a success
        if result.is_error:
            if isinstance(result.error, VaultgateError):
                raise result.error
            raise ToolNotFound(f"{tool} failed", details={"tool": tool})  # pragma: no cover - errors are typed
        return result

    def steps(self, label: str) -> Steps:
        """Progress and cancellation points of a long multi-file change (`service.vault.commit`)."""
        from service.vault.commit import Steps

        return Steps(label, self.report, self.services.step_hook)


class InputNeeded(Exception):  # noqa: N818 - a signal, not an error
    """A handler ran a nested call (the facade) that needs the client's input first: the handler
    layer turns it into this call's own InputRequiredResult, so the client asks its human and
    retries the outer call with the answer. Outside the error tree on purpose (`service.errors`):
    no `except VaultgateError` may turn it into an error result."""

    def __init__(self, pending: Any) -> None:
        super().__init__("input required")
        self.pending = pending


def _named(target: str) -> None:
    """A note path must end with the note's name: `Inbox/` names a folder, and taken as a note
    it became `Inbox.md` at the root (`normalize` drops empty segments)."""
    if target.rstrip().endswith("/"):
        from service.errors import PathInvalid

        raise PathInvalid(
            f"{target!r} names a folder, not a note",
            details={"path": target, "reason": "no note name"},
            hint="Give the note's name after the folder, e.g. 'Inbox/Idea'.",
        )
