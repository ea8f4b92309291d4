"""Obsidian's settings files under `.obsidian/` and the file references the domain's results share.

The settings folder is hidden from every note tool (`service.vault.paths`); this module is the
one place the domain opens it, by fixed names only (`bookmarks.json`, `workspace.json`,
`app.json`, `types.json`: the property types set_properties and list_properties follow), never by
a caller's path. Reads are lenient (a missing or malformed file is `None`);
writes are atomic and etag-guarded through `VaultFiles` and are not announced to the index (the
files are not vault content). Every vault file a setting names is shown only when the caller may
read it (`FileRef`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Hashable
from typing import Any, BinaryIO, TypeVar

from pydantic import BaseModel, Field

from service.errors import NoteNotFound, PathInvalid, ValidationFailed
from service.markdown.parse import note_title
from service.obsidian import property_types
from service.obsidian.kept import Kept
from service.tools.context import ToolContext
from service.vault import offloop
from service.vault.files import WriteResult
from service.vault.paths import VaultPath, normalize
from service.vault.settled import Settled, key_of, read_settled

CONFIG_DIR = ".obsidian"
T = TypeVar("T")


class FileRef(BaseModel):
    """A vault file named by one of Obsidian's files, as every file result carries it."""

    path: str = Field(description="Vault-relative path.")
    title: str = Field(description="The file name without '.md' (notes keep other extensions).")
    obsidian_url: str = Field(description="obsidian://open URL of the file.")
    exists: bool = Field(description="Whether the file (or folder) is there now.")


def config_path(ctx: ToolContext, name: str) -> VaultPath:
    return ctx.vault.paths.resolve(f"{CONFIG_DIR}/{name}", allow_hidden=True)


def read_config(ctx: ToolContext, name: str) -> tuple[Any, str | None]:
    """(parsed JSON or None, etag or None) of `.obsidian/<name>`; missing or not JSON is None."""
    try:
        note = ctx.vault.files.read(config_path(ctx, name))
    except (NoteNotFound, PathInvalid, OSError):  # missing, a folder or a link out of the vault there, unreadable
        return None, None
    return _parsed(note.content), note.etag


def _parsed(text: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: nested past the parser's limit
        return None


def _key_now(fh: BinaryIO) -> Settled:
    return key_of(os.fstat(fh.fileno()))


def read_kept(ctx: ToolContext, name: str, view: Hashable, make: Callable[[Any], T]) -> tuple[T, str | None]:
    """(`make(parsed JSON)`, etag) of `.obsidian/<name>` as `read_config` reads it, reusing what a
    page before made of the same version for the same `view` (`service.obsidian.kept`): the file's
    settled key, one `fstat`, or else its bytes' etag names the version. `view` is whatever else
    `make`'s answer depends on (the caller's ACL); a view equal to no other (`object()`) keeps the
    parse only. A missing or unreadable file is `make(None)`, nothing kept."""
    kept, vault = ctx.services.settings_files, ctx.vault.id
    try:
        vp = config_path(ctx, name)
        found = kept.by_key(vault, name, ctx.vault.files.scan(vp, _key_now))
        if found is None:
            note, key = read_settled(ctx.vault.files, vp)
            found = kept.by_etag(vault, name, note.etag, key)
            if found is None:
                data = _parsed(note.content)
                found = Kept(key, note.etag, data, (view, make(data)))
                kept.keep(vault, name, found)
    except (NoteNotFound, PathInvalid, OSError):  # as `read_config`
        return make(None), None
    made_for, value = found.made  # one read of the pair: another thread may replace it meanwhile
    if made_for != view:
        value = make(found.data)
        found.made = (view, value)
    return value, found.etag


def config_size(ctx: ToolContext, name: str) -> int:
    """The size of `.obsidian/<name>` now, for `offloop.sized` (0 when it cannot be read: `read_config`
    then answers None at once)."""
    try:
        return offloop.size_of(config_path(ctx, name))
    except PathInvalid:
        return 0


async def write_config(ctx: ToolContext, name: str, text: str, expected_etag: str | None) -> WriteResult:
    return await ctx.vault.files.write(config_path(ctx, name), text, expected_etag=expected_etag, publish=False)


def visible_path(ctx: ToolContext, raw: object) -> str | None:
    """A vault path from a settings file or the Obsidian plugin, when it is a valid path the caller
    may read (an absolute path, '/etc/passwd', is none: Obsidian writes vault paths without a
    leading '/')."""
    if not isinstance(raw, str) or not raw.strip():
        return None
    try:
        rel = normalize(raw.strip().rstrip("/"))
    except PathInvalid:
        return None
    if ctx.vault.paths.is_hidden(rel) or not ctx.can_read(rel):
        return None
    return rel


def file_ref(ctx: ToolContext, rel: str) -> FileRef:
    return FileRef(
        path=rel,
        title=note_title(rel),
        obsidian_url=ctx.vault.url(rel),
        exists=ctx.vault.paths.on_disk(rel).exists(),
    )


def declared_types(ctx: ToolContext) -> dict[str, str]:
    """The vault's property types (`service.obsidian.property_types.declared`) from `.obsidian/types.json`."""
    return property_types.declared(read_config(ctx, "types.json")[0])


def fit_declared(ctx: ToolContext, properties: dict[str, Any]) -> dict[str, Any]:
    """`properties` with each value written as the type `.obsidian/types.json` gives its name
    (null, a removal, as it is); a value that cannot be is a `validation_error`, nothing written."""
    kinds = declared_types(ctx)
    out: dict[str, Any] = {}
    for key, value in properties.items():
        kind = kinds.get(key.lower())
        if value is None or kind is None:
            out[key] = value
            continue
        try:
            out[key] = property_types.fitted(value, kind)
        except property_types.TypeMismatch as exc:
            raise ValidationFailed(
                f"property {key!r} is a {kind} property in this vault (.obsidian/types.json): give {exc.wanted}",
                details={"field": "properties", "key": key, "type": kind},
                hint="Write the value as that type, or change the property's type in Obsidian's Properties view.",
            ) from None
    return out
