"""What a note lookup answers about a file that is no note, named as a link names it (used by
`ToolContext.find_note` and `find_file`; it imports no tool domain and not `context`, so
importing it loads none).

A note tool given a file that is no note answers what it found, as Obsidian's link resolution
would name it:

- an address naming an existing file by its extension ('Trip board.canvas', '[[temple.png]]',
  'Plain.excalidraw', in any folder, any letter case, the caller's read rules: `find_file`) is
  `not_a_note` with the file's path, its kind and the tool that reads it (`not_a_note`), where a
  note lookup answered `note_not_found` for 'Trip board.canvas.md' with no suggestion; a `.base`
  named to a note tool is `not_a_note` whether or not it exists (`not_a_base`);
- a bare name no note has ('Trip board', 'temple', 'Sketch') stays `note_not_found` — a link
  without an extension names a '.md' note in Obsidian — and names in `details.files` the files of
  that name the caller may read (`same_named`): the canvas, image or base, or the Excalidraw
  drawing ('Sketch.excalidraw.md', read by read_excalidraw), each with the tool that reads it.

A note of that name always wins; a name no file has keeps the note lookup's answer. Touches nothing.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from service.errors import NotANote

if TYPE_CHECKING:
    from service.vault.paths import VaultPath

READERS = {"canvas": "read_canvas", "base": "query_base", "drawing": "read_excalidraw"}  # else read_attachment
DRAWINGS = (".excalidraw.md", ".excalidraw")
MAX_NAMED = 5  # files listed in a note_not_found's details.files
BASE_HINT = (
    "A base is replaced whole: read_note reads its YAML and etag, write_note with mode 'overwrite' and that "
    "expected_etag (or create_note) writes the Bases YAML as content; query_base evaluates it; "
    "delete_note, move_note and copy_note take it."
)


def link_target(address: str) -> str:
    """The file a wikilink or an embed names (`![[Books.base|shown]]` -> `Books.base`); any other
    address as written, stripped. NFC, as vault paths and the index's names are (`parse_address`):
    a name a macOS client spells in NFD is the same name."""
    text = unicodedata.normalize("NFC", address.strip())
    if len(text) > 4 and text.startswith(("[[", "![[")) and text.endswith("]]"):
        return text.lstrip("!")[2:-2].split("|", 1)[0]
    return text


def file_kind(rel: str) -> str:
    """A file's kind as a note tool names it: an Excalidraw drawing, else by its extension."""
    from service.obsidian.attachments import kind_of

    return "drawing" if rel.lower().endswith(DRAWINGS) else kind_of(rel)


def not_a_note(vp: VaultPath) -> NotANote:
    kind = file_kind(vp.rel)
    reader = READERS.get(kind, "read_attachment")
    return NotANote(
        f"{vp.rel!r} is {'an' if kind[:1] in 'aeiou' else 'a'} {kind} file, not a note",
        details={"path": vp.rel, "kind": kind, "read_with": reader},
        hint=f"Note tools read and edit Markdown notes ('.md'); {reader} reads this file, get_backlinks and "
        "get_outlinks take it too.",
    )


def not_a_base(target: str) -> None:
    """`not_a_note` for a `.base` file (existing or not) named to a tool that reads or edits
    notes only: never a note `Books.base.md` made for `Books.base`."""
    if link_target(target).lower().endswith(".base"):
        raise NotANote(
            f"{target!r} names an Obsidian base (.base), not a note",
            details={"path": link_target(target), "kind": "base"},
            hint=BASE_HINT,
        )


def names_a_file(target: str) -> bool:
    """Whether `target` ends in an extension other than '.md' ('Trip board.canvas', 'v1.2')."""
    name = link_target(target).rsplit("/", 1)[-1]
    return "." in name.strip(".") and not name.lower().endswith(".md")


def same_named(files: Iterable[str], target: str, visible: Callable[[str], bool]) -> list[dict[str, str]]:
    """Of `files`, those no note tool reads that a bare name (or a partial path ending in one)
    names without their extension, as `{path, kind, read_with}`: the first `MAX_NAMED` that are
    `visible`, by path ('Photo' for Pics/Photo.png, 'Sketch' for Sketch.excalidraw.md)."""
    key = link_target(target).strip().strip("/").lower()
    if not key or key.endswith(".md"):
        return []
    name = key.rsplit("/", 1)[-1]
    fits: list[str] = []
    for rel in files:
        low = rel.lower()
        if name not in low:  # most files, at once
            continue
        stem = next((low[: -len(s)] for s in DRAWINGS if low.endswith(s)), None)
        if stem is None:
            if low.endswith(".md") or "." not in low.rsplit("/", 1)[-1]:
                continue
            stem = low.rsplit(".", 1)[0]
        if stem == key or stem.endswith("/" + key):
            fits.append(rel)
    out: list[dict[str, str]] = []
    for rel in sorted(fits):
        if visible(rel):
            kind = file_kind(rel)
            out.append({"path": rel, "kind": kind, "read_with": READERS.get(kind, "read_attachment")})
            if len(out) == MAX_NAMED:
                break
    return out


def of_that_name(files: list[dict[str, str]]) -> str:
    """The end of a `note_not_found` message naming `same_named`'s files."""
    if not files:
        return ""
    listed = ", ".join(f"{f['path']!r} ({f['kind']}: {f['read_with']})" for f in files)
    return f"; {'files' if len(files) > 1 else 'a file'} of that name: {listed}"


def missing_hint(close: bool, files: bool, *, note: bool) -> str | None:
    """A missing note's (or file's) hint: its suggestions, and the files of its name."""
    named = "details.files are files of that name: pass one to its read_with tool" + (
        ", or name it with its extension (a name without one names a note, as a link does)." if note else "."
    )
    if close:
        return "Pass one of details.suggestions as the path." + (f" {named}" if files else "")
    return named if files else None
