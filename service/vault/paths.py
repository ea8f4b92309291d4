"""Safe path resolution: the single gate between a caller's path string and the file system.

Guarantees: a `VaultPath` always names a location inside the vault root after NFC
normalization and symlink resolution; its `rel` is the canonical POSIX form used everywhere
(index keys, URLs, ACL decisions), its `abs` the file as the disk spells it (an NFD name written
on macOS is found under its NFC path: `service.vault.spelling`). Rejected with `path_invalid`:
empty paths, absolute paths, URL schemes, drive letters, UNC and device names, NUL and control characters, backslashes,
`..` segments (also percent-encoded, once or several times over), names that only look like
traversal (`．．`, `‥`, `。。` after NFKC normalisation, slash lookalikes such as `∕` and `⁄`, a `..;`
segment, overlong UTF-8 forms of `.` and `/` read as Latin-1 such as `À®À®`), a leading `~` (no home
folder here), `:` and `|`, trailing dots/spaces and symlinks that leave the vault.
Hidden folders (`.obsidian`, `.git`, `.trash`, the index folder) raise `acl_denied` for note tools;
any other file or folder name starting with `.` is `path_invalid` for them (the index and
Obsidian skip such names, so a note there could be written but never listed or kept indexed).

Names Windows reserves for devices (`CON`, `Aux.md`, `LPT1`) are valid paths: such notes exist on
Linux and macOS vaults and are read and edited like any other. Creating one is refused by
`VaultPaths.check_new_name` unless `[writes] refuse_device_names` is false (a vault synced to
Windows could not hold it). So is creating a name with a character that shows nothing or reorders
the name (`evil\u202egnp.md` shows as `evilmd.png`, `Wel\u200bcome.md` as `Welcome.md`, `Ho\u00adme.md`
as `Home.md`; tag characters outside a flag, variation selectors outside an emoji or ideograph), or
with one of Obsidian's link characters `#`, `^`, `[`, `]` (no link reaches `Plan#2.md`) or a backtick (a
link to it pairs with another backtick of its line into inline code), or with one of the characters
Windows reserves `<`, `>`, `"`, `?`, `*` (`A* Pathfinding.md`): one already so named is read and edited.

Resolution is a check of the path as it is now; the write path does not rely on it staying true
(a folder can be swapped for a symlink in between): `service.vault.dirfd` walks to the folder it
changes one component at a time without following links.
"""

from __future__ import annotations

import functools
import os
import re
import stat
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from itertools import count
from pathlib import Path, PurePosixPath
from urllib.parse import quote, unquote

from service.errors import AclDenied, PathInvalid
from service.vault import openat2
from service.vault.invisible import shows_nothing
from service.vault.root_link import refuse_linked
from service.vault.spelling import on_disk

# A drive (`C:`) or a URL scheme (`https:`, `obsidian:`); a word and ': ' starts a title of a note at
# the vault's root (`Book: Title.md`), never a URL nor a drive path (on Windows ':' is refused anyway).
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:(?! )")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")  # C0, DEL and C1 (U+0085 is a line break to some)
# Refused in every path on Windows: `:` (a drive or an NTFS stream there) and `|`. Elsewhere both
# are ordinary characters of a file name, and notes synced from Linux or macOS hold them
# (`Themes/RedShift: OLED Blue Light Filter.md` in the Obsidian Hub vault; `Odd|pipe.md` made by
# another program): they are read, edited, moved away from and deleted; a new name with one is
# refused (`check_new_name`), as Obsidian refuses them (`|` is a wikilink's display part). A path
# starting like a URL scheme or a drive (`C:`, `https:`) stays refused.
_RESERVED_CHARS = frozenset(":|") if os.name == "nt" else frozenset()
_NEW_NAME_RESERVED = frozenset(":|")
# The other characters Windows reserves in names: notes synced from Linux or macOS hold them
# (`A* Pathfinding.md`, `Racket equal?.md`), and are read, edited, moved away from and deleted;
# only a new name with one is refused (`VaultPaths.check_new_name`), as Obsidian refuses them.
_WINDOWS_CHARS = frozenset('<>"?*')
# Characters of Obsidian's link syntax (`[[Note#Heading|shown]]`, `[[Note#^block]]`): a note named
# `Plan#2` cannot be linked (`[[Plan#2]]` is heading "2" of "Plan"), so Obsidian refuses them in
# names it creates. `|` is already refused above. "`": see LINK_CHAR_HINT.
_LINK_CHARS = frozenset("#^[]`")
_DEVICE_NAMES = frozenset(
    {"CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"}
    | {f"COM{i}" for i in range(10)}
    | {f"LPT{i}" for i in range(10)}
    | {"COM¹", "COM²", "COM³", "LPT¹", "LPT²", "LPT³"}
)
MAX_PATH_CHARS = 1024
MAX_SEGMENT_BYTES = 255
ALWAYS_HIDDEN = (".obsidian", ".git", ".trash", ".vaultgate")


@dataclass(frozen=True, slots=True)
class VaultPath:
    """A validated location inside one vault."""

    rel: str  # canonical POSIX relative path, '' for the vault root
    abs: Path
    real_rel: str | None = None  # where a symlink on the way really points (inside the vault), else None

    @property
    def name(self) -> str:
        return self.abs.name

    @property
    def parent_rel(self) -> str:
        return self.rel.rpartition("/")[0]


# Characters that render like '/' or '.' but are not: a path using them would look like a
# traversal to the human reading a confirmation preview. NFKC folds the fullwidth and small
# forms onto ASCII; these it leaves alone.
_SLASH_LOOKALIKES = frozenset("\u2215\u2044\u29f8\u2571\u29f5\u29f9\u2216")
_DOT_LOOKALIKES = str.maketrans({"\u3002": ".", "\u0701": ".", "\u0702": ".", "\ua4f8": "."})
# Overlong UTF-8 encodings of '.', '/' and '\\' (C0 AE, C0 AF, E0 80 AE, ...), as the bytes read
# one character each (Latin-1, or the surrogate escapes of undecodable bytes): a name that a
# lenient decoder elsewhere would turn into '..'.
_OVERLONG = re.compile(
    "[\u00c0\u00c1\udcc0\udcc1][\u0080-\u00bf\udc80-\udcbf]"
    "|[\u00e0\udce0][\u0080-\u009f\udc80-\udc9f][\u0080-\u00bf\udc80-\udcbf]"
    "|[\u00f0\udcf0][\u0080-\u008f\udc80-\udc8f][\u0080-\u00bf\udc80-\udcbf]{2}"
)
_DECODE_ROUNDS = 4
LOOKALIKE_HINT = (
    "This name only looks like a path step ('..', '/', '~'); use a plain relative path inside the "
    "vault, e.g. 'Projects/Plan.md'."
)


def _invalid(path: object, reason: str, hint: str | None = None) -> PathInvalid:
    shown = path if isinstance(path, str) and len(path) < 300 else "<path>"
    return PathInvalid(f"invalid path {shown!r}: {reason}", hint=hint, details={"path": shown, "reason": reason})


def _is_dots(seg: str) -> bool:
    """`.` or `..`, also with a `;parameter` tail as some servers strip it (`..;`)."""
    return seg.split(";", 1)[0] in (".", "..")


def _unoverlong(found: re.Match[str]) -> str:
    """The character an overlong UTF-8 sequence (one character per byte) stands for."""
    units = [ord(ch) & 0xFF for ch in found[0]]  # a surrogate escape \udcXX is byte XX
    lead_bits = {2: 0x1F, 3: 0x0F, 4: 0x07}[len(units)]
    value = units[0] & lead_bits
    for unit in units[1:]:
        value = (value << 6) | (unit & 0x3F)
    return chr(value)


def _check_disguised(path: str) -> None:
    """Refuse what reads as a traversal once decoded, normalised or looked at by a human."""
    unfolded = _OVERLONG.sub(_unoverlong, path)
    if unfolded != path and (
        "\\" in unfolded or unfolded.count("/") != path.count("/") or any(_is_dots(s) for s in unfolded.split("/"))
    ):
        raise _invalid(path, "overlong UTF-8 form of '.' or '/'", LOOKALIKE_HINT)
    decoded = path
    for _ in range(_DECODE_ROUNDS):
        again = unquote(decoded)
        if again == decoded:
            break
        decoded = again
        if "\\" in decoded or "\x00" in decoded or any(_is_dots(seg) for seg in decoded.split("/")):
            raise _invalid(path, "percent-encoded traversal", LOOKALIKE_HINT)
    for form in {path, decoded}:
        folded = unicodedata.normalize("NFKC", form)
        if _SLASH_LOOKALIKES.intersection(folded) or folded.count("/") != form.count("/") or "\\" in folded:
            raise _invalid(path, "slash lookalike character", LOOKALIKE_HINT)
        for seg, seen in zip(form.split("/"), folded.translate(_DOT_LOOKALIKES).split("/"), strict=True):
            if _is_dots(seen) and (seen != seg or seen not in (".", "..")):
                raise _invalid(path, "segment that looks like '..'", LOOKALIKE_HINT)
    if path.split("/", 1)[0] == "~":
        raise _invalid(path, "leading '~' (paths are relative to the vault root, not a home folder)", LOOKALIKE_HINT)


def normalize(path: str, *, allow_root: bool = False) -> str:
    """Validate a caller's path string and return its canonical relative POSIX form."""
    if not isinstance(path, str):
        raise _invalid(path, "not a string")
    return _normalized(path, allow_root)


# The answer depends on the string alone; a note read resolves its path two or three times, and
# agents come back to the same notes. A refused path raises again each time (nothing cached).
@functools.lru_cache(maxsize=4096)
def _normalized(path: str, allow_root: bool) -> str:
    if len(path) > MAX_PATH_CHARS:
        raise _invalid(path, "too long")
    if _CONTROL.search(path):
        raise _invalid(path, "control character or NUL")
    if "\\" in path:
        raise _invalid(path, "backslash")
    if _SCHEME.match(path):
        raise _invalid(path, "URL scheme or drive letter")
    if path.startswith("/"):
        if allow_root and path.strip("/") == "":
            return ""
        raise _invalid(path, "absolute path")
    try:
        decoded = unquote(path, errors="strict")
    except UnicodeDecodeError:
        raise _invalid(path, "invalid percent-encoding") from None
    if decoded != path and (
        "\\" in decoded or "\x00" in decoded or any(seg in (".", "..") for seg in decoded.split("/"))
    ):
        raise _invalid(path, "percent-encoded traversal")
    _check_disguised(path)
    text = unicodedata.normalize("NFC", path)
    segments: list[str] = []
    for seg in text.split("/"):
        if seg in ("", "."):
            continue
        if seg == "..":
            raise _invalid(path, "'..' segment")
        _check_segment(path, seg)
        segments.append(seg)
    if not segments and not allow_root:
        raise _invalid(path, "empty path")
    return "/".join(segments)


def _check_segment(path: str, seg: str) -> None:
    if seg[-1] in " .":
        raise _invalid(path, "segment ends with a dot or space")
    if _RESERVED_CHARS.intersection(seg):
        raise _invalid(path, "reserved character", COLON_PIPE_HINT)
    try:
        size = len(seg.encode("utf-8"))
    except UnicodeEncodeError:  # half of a UTF-16 pair ('\ud800' in a JSON settings file): no file name
        raise _invalid(path, "a lone surrogate (half of a UTF-16 pair)") from None
    if size > MAX_SEGMENT_BYTES:
        raise _invalid(path, "segment too long")


def is_device_name(segment: str) -> bool:
    """Whether Windows reserves `segment` for a device (`CON`, `aux.md`, `Com1.txt`)."""
    return segment.split(".", 1)[0].rstrip(" ").upper() in _DEVICE_NAMES


DEVICE_NAME_HINT = (
    "Windows reserves this name for a device, so a vault synced to Windows could not hold it; pick another "
    "name (or set [writes] refuse_device_names = false for a vault that never leaves Linux or macOS)."
)


INVISIBLE_HINT = (
    "The name holds a character that shows nothing or reorders the text (a zero-width space, a "
    "direction override, a BOM): it would display as another name. Type the name without it."
)


LINK_CHAR_HINT = (
    "Obsidian links cannot reach a file whose name holds '#', '^', '[' or ']' ([[Plan#2]] is heading '2' of 'Plan'), "
    "and a link to a name with '`' pairs with another backtick of its line into inline code (no link there), so "
    "such names are not created; pick a name without them (e.g. 'Plan 2')."
)


COLON_PIPE_HINT = (
    "A name cannot hold ':' (a drive, a URL scheme or a file stream) or '|' (in a link, what follows it is "
    "the text shown); pick a name without them (e.g. 'Time - 10')."
)


WINDOWS_CHAR_HINT = (
    "Windows cannot hold a name with '<', '>', '\"', '?' or '*', and Obsidian refuses them, so such names are not "
    "created; pick a name without them (e.g. 'A-star Pathfinding')."
)


HIDDEN_NAME_HINT = (
    "Names starting with '.' are hidden: Obsidian does not show them and the index skips them. Drop the leading dot."
)


def realpath_now(path: Path | str, original: str) -> str:
    """`os.path.realpath`, with a link that changes while it is read (a folder swapped for a
    symlink and back: `readlink` then fails) refused as `path_invalid` instead of an OS error."""
    try:
        return os.path.realpath(path)
    except OSError:
        raise _invalid(original, "symlink on the way (changed while resolving)") from None


def with_md(rel: str) -> str:
    """Obsidian addresses notes with or without `.md`; the canonical form has it."""
    return rel if rel.lower().endswith(".md") else f"{rel}.md"


def renamed(old: str, new: str) -> bool:
    """Whether a move from `old` to `new` gives the file or folder a new name (not only another
    folder, nor only another letter case): only a new name is checked as one (`check_new_name`),
    so a note already named `Plan#2.md` moves to another folder as it is."""
    return old.rsplit("/", 1)[-1].casefold() != new.rsplit("/", 1)[-1].casefold()


class VaultPaths:
    """Resolves caller paths against one vault root."""

    def __init__(
        self, root: Path, hidden: tuple[str, ...] = ALWAYS_HIDDEN, *, refuse_device_names: bool = True
    ) -> None:
        self.root = Path(os.path.realpath(root))
        self.refuse_device_names = refuse_device_names
        self._root_text = str(self.root)
        self._root_prefix = self._root_text.rstrip(os.sep) + os.sep
        self._hidden = frozenset(h.lower() for h in hidden)

    def check_new_name(self, rel: str, name: str) -> None:
        """Refuse to create the file or folder `name` (the last segment of `rel`, which is being
        created) when it holds a character that shows nothing or reorders the name (`_INVISIBLE`),
        `:` or `|` (`_NEW_NAME_RESERVED`), or one of Obsidian's link syntax (`#`, `^`, `[`, `]`, "`":
        `_LINK_CHARS`) or one Windows reserves (`<`, `>`, `"`, `?`, `*`: `_WINDOWS_CHARS`), or is a
        Windows device name and the vault refuses those."""
        if shows_nothing(name):
            raise _invalid(rel, "invisible or reordering character", INVISIBLE_HINT)
        if _NEW_NAME_RESERVED.intersection(name):
            raise _invalid(rel, "reserved character", COLON_PIPE_HINT)
        if _LINK_CHARS.intersection(name):
            raise _invalid(rel, "reserved character", LINK_CHAR_HINT)
        if _WINDOWS_CHARS.intersection(name):
            raise _invalid(rel, "reserved character", WINDOWS_CHAR_HINT)
        if self.refuse_device_names and is_device_name(name):
            raise _invalid(rel, "reserved device name", DEVICE_NAME_HINT)

    def on_disk(self, rel: str) -> Path:
        """Where the vault path `rel` (NFC) is on disk: as the disk spells it (`spelling.on_disk`)."""
        return self.root / on_disk(self._root_text, rel) if rel else self.root

    def has_link(self, rel: str) -> bool:
        """Whether an existing component of `rel` (below the root) is a symlink now."""
        return not self._plain_below_root(self.on_disk(rel)) if rel else False

    @property
    def hidden(self) -> frozenset[str]:
        """The hidden folders' names, in lower case (what `is_hidden` compares with)."""
        return self._hidden

    def is_hidden(self, rel: str) -> bool:
        first = rel.split("/", 1)[0].lower()
        return first in self._hidden

    def resolve(
        self, path: str, *, allow_root: bool = False, allow_hidden: bool = False, op: str = "read"
    ) -> VaultPath:
        rel = normalize(path, allow_root=allow_root)
        if not allow_hidden and self.is_hidden(rel):
            raise AclDenied(
                f"{rel!r} is inside a folder that note tools may not touch",
                details={"path": rel, "op": op, "rule": "hidden folder"},
            )
        if not allow_hidden and (rel.startswith(".") or "/." in rel):
            # The index skips such names, as Obsidian does: a note created there was found by a
            # search until the next rebuild, never listed, and then gone from the index.
            raise _invalid(path, "a name starting with '.' (hidden)", HIDDEN_NAME_HINT)
        target = self.on_disk(rel)
        real = self._realpath_inside(target, path)
        real_rel: str | None = None
        if real != target:
            real_rel = unicodedata.normalize("NFC", real.relative_to(self.root).as_posix() if real != self.root else "")
            if not allow_hidden and self.is_hidden(real_rel):
                raise AclDenied(
                    f"{rel!r} resolves into a hidden folder",
                    details={"path": rel, "op": op, "rule": "hidden folder"},
                )
        return VaultPath(rel=rel, abs=target, real_rel=real_rel)

    def _realpath_inside(self, target: Path, original: str) -> Path:
        """The real location of `target` (or of its nearest existing ancestor), which must stay inside."""
        if self._plain_below_root(target):
            return target  # the root is real and nothing below it on the way is a link
        probe = target
        suffix: list[str] = []
        while not os.path.lexists(probe) and probe != self.root:
            suffix.append(probe.name)
            probe = probe.parent
        real_text = realpath_now(probe, original)
        real = Path(real_text)
        if real_text != self._root_text and not real_text.startswith(self._root_prefix):
            raise _invalid(original, "symlink leaves the vault")
        for name in reversed(suffix):
            real = real / name
        return real

    def _plain_below_root(self, target: Path) -> bool:
        """Whether no existing component of `target` below the root is a symlink (one `lstat`
        per component below the root, where `os.path.realpath` walks every one from `/`). Where
        `openat2` is armed (`service.vault.openat2`), an existing path is checked in one call
        that refuses a link in any component (ancestors of the root included: the root is real)."""
        text = str(target)
        if text == self._root_text:
            refuse_linked(text)  # the whole vault: its folder is no link it became (`root_link`)
            return True
        if not text.startswith(self._root_prefix):
            return False
        open_name = openat2.path_opener()
        if open_name is not None and "\x00" not in text:  # one call refusing a link anywhere (Linux)
            try:
                os.close(open_name(os.fsencode(text)))
                return True
            except OSError:
                pass  # a link, or a part missing: the walk below says which
        refuse_linked(self._root_text)
        current = self._root_text
        for name in text[len(self._root_prefix) :].split(os.sep):
            current = f"{current}{os.sep}{name}"
            try:
                mode = os.lstat(current).st_mode
            except (FileNotFoundError, NotADirectoryError):
                return True  # the rest does not exist: nothing further can be a link
            except OSError:
                return False  # let realpath decide (and raise) as before
            if stat.S_ISLNK(mode):
                return False
        return True

    def parent_real(self, vp: VaultPath) -> str:
        """`vp` with the folders above it resolved (links inside the vault followed) and its own
        name kept: what a delete, move or new folder changes (a link itself, not its target)."""
        if vp.real_rel is None:
            return vp.rel
        parent, _, name = vp.rel.rpartition("/")
        real = Path(realpath_now(self.root / parent, vp.rel)) if parent else self.root
        rel = "" if real == self.root else self.from_abs(real)
        if rel is None:
            raise PathInvalid(
                f"{vp.rel!r} resolves outside the vault or into a hidden folder",
                details={"path": vp.rel, "reason": "symlink leaves the vault"},
            )
        return f"{rel}/{name}" if rel else name

    def from_abs(self, abs_path: Path) -> str | None:
        """Map an absolute path back to its rel form, or None when it is outside or hidden."""
        try:
            rel = Path(abs_path).relative_to(self.root).as_posix()
        except ValueError:
            return None
        if rel == "." or self.is_hidden(rel):
            return None
        return unicodedata.normalize("NFC", rel)


@functools.lru_cache(maxsize=4096)  # every answer naming a note carries its URL
def obsidian_url(vault_name: str, rel: str, action: str = "open") -> str:
    """`obsidian://open?vault=<name>&file=<encoded path>` as Obsidian itself builds it; with
    action "new", the URL that creates the note (what clicking an unresolved link does)."""
    return f"obsidian://{action}?vault={quote(vault_name, safe='')}&file={quote(rel, safe='')}"


def trash_copy(dest: str, taken: Callable[[str], bool]) -> str:
    """Where a soft delete puts a note: `dest` (the trash folder, then the note's vault path),
    or the first of 'Name 1.md', 'Name 2.md', … there that is not `taken`."""
    p = PurePosixPath(dest)
    if not taken(dest):
        return dest
    return next(name for n in count(1) if not taken(name := str(p.with_name(f"{p.stem} {n}{p.suffix}"))))
