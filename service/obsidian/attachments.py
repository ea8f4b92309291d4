"""Attachments: what kind a file is by its extension, and where Obsidian puts a new one.

Kinds follow Obsidian's accepted formats (Help: "Accepted file formats"): images `.avif .bmp
.gif .jpeg .jpg .png .svg .webp`, audio `.flac .m4a .mp3 .ogg .wav .webm .3gp`, video `.mkv .mov
.mp4 .ogv .webm` (`.webm` counts as video), `.pdf`, plus Obsidian's own `.canvas` and `.base`;
anything else is `other`.

The location setting is `attachmentFolderPath` in `.obsidian/app.json` (Settings → Files and
links → Default location for new attachments): unset, `""` or `/` is the vault root; `./` is the
folder of the note the attachment is added to; `./sub` a subfolder there; any other value a
folder of the vault.
"""

from __future__ import annotations

import posixpath

IMAGE = {".avif": "image/avif", ".bmp": "image/bmp", ".gif": "image/gif", ".jpeg": "image/jpeg"}
IMAGE |= {".jpg": "image/jpeg", ".png": "image/png", ".svg": "image/svg+xml", ".webp": "image/webp"}
AUDIO = {".flac": "audio/flac", ".m4a": "audio/mp4", ".mp3": "audio/mpeg", ".ogg": "audio/ogg"}
AUDIO |= {".wav": "audio/wav", ".3gp": "audio/3gpp"}
VIDEO = {".mkv": "video/x-matroska", ".mov": "video/quicktime", ".mp4": "video/mp4", ".ogv": "video/ogg"}
VIDEO |= {".webm": "video/webm"}
TEXT = {".txt": "text/plain", ".csv": "text/csv", ".json": "application/json", ".css": "text/css"}
TEXT |= {".js": "text/javascript", ".html": "text/html", ".xml": "application/xml", ".yaml": "text/yaml"}
TEXT |= {".yml": "text/yaml", ".tsv": "text/tab-separated-values", ".log": "text/plain", ".ts": "text/plain"}
TEXT |= {".py": "text/x-python", ".sh": "text/x-shellscript", ".tex": "text/x-tex", ".bib": "text/plain"}
KINDS = ("image", "audio", "video", "pdf", "canvas", "base", "text", "other")


def ext_of(path: str) -> str:
    return posixpath.splitext(path)[1].lower()


def kind_of(path: str) -> str:
    ext = ext_of(path)
    if ext in IMAGE:
        return "image"
    if ext in VIDEO:
        return "video"
    if ext in AUDIO:
        return "audio"
    if ext == ".pdf":
        return "pdf"
    if ext in (".canvas", ".base"):
        return ext[1:]
    if ext in TEXT:
        return "text"
    return "other"


SNIFF = 8192  # bytes looked at for a NUL


def text_of(data: bytes) -> str | None:
    """A file's bytes as text, or None when they are no text: a NUL in the first `SNIFF` bytes, or
    not UTF-8 (a byte order mark dropped)."""
    if b"\x00" in data[:SNIFF]:
        return None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None


def with_extension_of(src: str, rel: str) -> str:
    """`rel`, the new path of the file `src` (not a note) renamed, moved or copied, with `src`'s
    extension when the new name has none of its own, as Obsidian's rename keeps it: 'Library.base'
    renamed 'Shelf' or 'Shelf v1.2' is 'Shelf.base' / 'Shelf v1.2.base', still a base. A new name
    has an extension of its own when it ends in `src`'s, in '.md' or in another format Obsidian
    opens ('other.jpg' stays); for a file of no such format, any extension given is its own."""
    name, new_name = src.rsplit("/", 1)[-1], rel.rsplit("/", 1)[-1]
    if "." not in name.lstrip("."):
        return rel
    extension, own = name[name.rindex(".") :], ext_of(new_name)
    if own and (own in (extension.lower(), ".md") or kind_of(new_name) != "other" or kind_of(name) == "other"):
        return rel
    return rel + extension


def mime_of(path: str) -> str:
    ext = ext_of(path)
    for table in (IMAGE, VIDEO, AUDIO, TEXT):
        if ext in table:
            return table[ext]
    if ext == ".pdf":
        return "application/pdf"
    if ext in (".canvas", ".base"):
        return "application/json" if ext == ".canvas" else "text/yaml"
    return "application/octet-stream"


def setting_of(app: object) -> str:
    """`attachmentFolderPath` from app.json (`""` when unset or not a string)."""
    value = app.get("attachmentFolderPath") if isinstance(app, dict) else None
    return value.strip() if isinstance(value, str) else ""


def folder_for(setting: str, note: str | None) -> str:
    """The vault folder a new attachment of `note` goes to ('' is the vault root). Without a
    note, the note-relative forms fall back to the root, as Obsidian does for a file added from
    outside any note."""
    value = setting.strip()
    if value in ("", "/", "."):
        return ""
    if value == "./" or value.startswith("./"):
        base = posixpath.dirname(note) if note else ""
        sub = value[2:].strip("/")
        return posixpath.join(base, sub).strip("/") if sub else base
    return value.strip("/")
