"""A note over `[limits] max_note_bytes` in a link rewrite (a move's, rename's, rewrite_links'):
never read whole, never skipped while it may hold a link to rewrite.

The note is scanned a chunk at a time (nothing held but one chunk): when no chunk mentions a name
the rewrite looks for (`rewrite.line_mentions` of `rewrite.link_names`; with no names: no `[` at all, nor a canvas's
`"file"`), no link in it can change and the rewrite passes it by. Otherwise the rewrite is refused with the read's
`compute_budget_exceeded` naming the note: a link left pointing at the old name would break
silently. The test is coarser than the rewrite's (a name in plain text counts; so does a chunk
that is not UTF-8 or a UTF-16 file), so it refuses some moves that would have changed nothing in
the note, never the reverse."""

from __future__ import annotations

import codecs
from typing import BinaryIO

from service.errors import ComputeBudgetExceeded
from service.graph.rewrite import line_mentions
from service.vault.files import NoteFile, VaultFiles
from service.vault.paths import VaultPath

CHUNK = 1 << 20


def read_or_refuse(files: VaultFiles, vp: VaultPath, names: frozenset[str] | None) -> NoteFile | None:
    """`files.read(vp)` (its errors); a note over the bound that may hold a link to one of `names`
    (None: any link): its `compute_budget_exceeded`; one that cannot: None (nothing to rewrite)."""
    try:
        return files.read(vp)
    except ComputeBudgetExceeded as exc:
        if exc.details.get("limit") != "note_bytes" or files.scan(vp, lambda fh: _may_link(fh, names)):
            raise
        return None


def _may_link(fh: BinaryIO, names: frozenset[str] | None) -> bool:
    if fh.read(2) in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
        return True  # read as UTF-8 it would mention nothing
    fh.seek(0)
    decoder = codecs.getincrementaldecoder("utf-8")("strict")
    # a mention split between two chunks: kept whole in the tail (a name percent-encoded or YAML-escaped is longer)
    keep = 12 * max((len(n) for n in names), default=0) + 64 if names else 0
    tail = ""
    while chunk := fh.read(CHUNK):
        try:
            text = tail + decoder.decode(chunk)
        except UnicodeDecodeError:
            return True  # another encoding: names could be spelt in it unseen
        if ("[" in text or '"file"' in text) if names is None else line_mentions(text, names):  # a canvas: "file"
            return True
        tail = text[-keep:] if keep else ""
    return False
