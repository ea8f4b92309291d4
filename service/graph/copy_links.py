"""The text of a note copied into another folder: its links keep naming the files the
original's links name.

A relative Markdown link (`[x](../a.md)`, `![](img/p.png)`) or a wikilink by a path from the
note's folder names another file, or none, once the same text sits in another folder. Obsidian
keeps a moved note's links working by rewriting them; a copy made into another folder is
treated alike: each link that would name another file from the copy's folder is rewritten to
name the file the original's link names (`rewrite.rewrite_note`, the decision a move makes), in
the style it was written in, and a link to the note itself names the copy. Links that resolve
alike from both folders (a bare name, most often), unresolved links and code are left as
written. A copy into the note's own folder is its bytes.
"""

from __future__ import annotations

from service.graph.linkpath import PathSet, folder_of
from service.graph.moves import vault_files
from service.graph.rewrite import rewrite_note
from service.vault.vault import Vault


def copied_text(vault: Vault, text: str, source: str, copy: str, paths: PathSet | None = None) -> str | None:
    """`text` (the note at `source`) as its copy at `copy` holds it; None when no link changes.
    `paths`: the vault's files the links resolve over (a plan's check: as its earlier steps leave
    them); None: those on disk, walked: run it in a worker thread."""
    if folder_of(source) == folder_of(copy) or ("[[" not in text and "](" not in text):
        return None
    before = PathSet(vault_files(vault)) if paths is None else paths.changed(added=[source], removed=[copy])
    after = before.changed(added=[copy])
    result = rewrite_note(
        text, source_before=source, source_after=copy, before=before, after=after, moved={source: copy}
    )
    return result.text if result.changed else None
