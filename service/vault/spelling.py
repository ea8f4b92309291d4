"""Names as they are spelled on disk: an NFC path against a file the disk holds in another form.

Every vault path is NFC (`service.vault.paths.normalize`): index keys, ACL decisions and URLs
use that form. The disk need not: a note written on macOS, or synced from it (iCloud,
Syncthing), is named in NFD (`Re\u0301sume\u0301.md`), and Linux compares names byte for byte. A
path is therefore opened by the name its folder really holds: where the NFC name is absent, the
folder entry with the same NFC form stands for it. One name, two spellings on screen never make
two notes or two folders: a write to `Café/Note.md` beside an NFD `Café` folder lands in it.

Cost: nothing for an ASCII name (it has one form); for another, a missing name costs one scan
of its folder (a name that is present is used as it is).
"""

from __future__ import annotations

import os
import unicodedata


def twin(folder: int | str, name: str) -> str | None:
    """The entry of `folder` (an open descriptor or a path) spelled differently from `name` with
    the same NFC form, or None (also for an ASCII `name`, which has no other spelling)."""
    if name.isascii():
        return None
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                other = entry.name
                if other != name and not other.isascii() and unicodedata.normalize("NFC", other) == name:
                    return other
    except OSError:
        return None
    return None


def on_disk(root: str, rel: str) -> str:
    """`rel` (vault-relative, NFC) as the disk spells it: each segment the disk holds in another
    form replaced by that form; unchanged from the first segment that is not there at all."""
    if rel.isascii() or os.path.lexists(f"{root}/{rel}"):
        return rel
    parts = rel.split("/")
    here = root
    for i, seg in enumerate(parts):
        if not os.path.lexists(f"{here}/{seg}"):
            found = twin(here, seg)
            if found is None:
                break
            parts[i] = seg = found
        here = f"{here}/{seg}"
    return "/".join(parts)
