"""Which of several files sharing a name a link names: Obsidian's last rule, in one place.

Obsidian's link lookup (`metadataCache.getFirstLinkpathDest`) takes the path as written from
the vault's top, else the path from the linking note's own folder (an ancestor folder counts
for nothing), else, of the files whose name matches, the one with the **shortest path** as a
string: `a/b/Note.md` before `zzzz/Note.md`, so not the fewest folders (observed on Obsidian
1.13.7 through its developer console, pvliesdonk/markdown-vault-mcp#1350 and #1380). Two paths of
one length are taken in path order (Obsidian's own order there is its file table's).

The link index (`service.graph.linkpath`), Dataview's and Bases' link lookups and the mention
finder order same-named files by this key. Touches nothing outside itself.
"""

from __future__ import annotations


def closeness(path: str) -> tuple[int, str]:
    """The order of same-named files for a link: the smallest is the one Obsidian takes."""
    return len(path), path
