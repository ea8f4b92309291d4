"""What the plane writes into a note it proposes (a digest, a written summary, a topic map) from
text it did not write itself — a note's sentence, a model's sentence, a name — written so the kept
note reads as in Obsidian but takes nothing of its own from it: no `#tag`, link, embed, Dataview
field or block (`quoted`), no comment hiding its next lines and no `#tag` in a name (`inert`),
and links to notes whose paths hold what a wikilink cannot (`link_to`). Used by the digest, the
summaries and the topic maps jobs.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import quote, unquote


def inert(text: str) -> str:
    """`text` (a memory entity's name as a person wrote it in the note's frontmatter, a folder's or
    a note's name) on one line, with `%%`, `<!--` and `#` written as HTML entities: Obsidian shows
    the same characters, but opens no comment that would hide the digest's next lines (the memory
    tools refuse such an entity name; a hand-made note may hold one), and reads no `#tag` in a
    folder's heading (`## Proj #work`) or a name. `#` first: the other entities hold one. So are
    `[`, `]` and `^`, and `::` is `:&#58;`: a name `Fan of [[Foo]]`, `Deadline:: Friday` or
    `Ann ^blk` (the memory tools take them) gives the kept note no link, Dataview field or block."""
    text = _entities(" ".join(text.split())).replace("[", "&#91;").replace("]", "&#93;")
    return text.replace("^", "&#94;").replace("::", ":&#58;")


def _entities(text: str) -> str:
    text = text.replace("#", "&#35;")
    return text.replace("%%", "&#37;&#37;").replace("<!--", "&lt;!--")


# What a wikilink's target cannot hold: `%%` and `<!--` open a comment; `|` starts its shown
# text, `#` and `^` a heading or block, `[` and `]` end or open it (a file name made by hand on
# Linux may hold any of them; Obsidian's own names hold none of `#^[]|`).
_NOT_IN_WIKILINKS = ("%%", "<!--", "|", "#", "^", "[", "]")


def link_to(path: str, title: str | None = None) -> str:
    """A link to the note (shown as `title`, else as its path): a wikilink; a Markdown link with its
    path percent-encoded when the path holds what a wikilink cannot (`_NOT_IN_WIKILINKS`: a folder
    or file name made by hand), which the index resolves to that file — `#` as `%23`, since the
    index cuts a Markdown link's href at its first `#` as written and only then decodes it.
    Brackets in the shown text are HTML entities (the index reads a Markdown link's text up to its
    first `]`, escaped (`\\]`) or not), and so is `#` (`inert`: no `#tag` in the link's text)."""
    if not any(mark in path for mark in _NOT_IN_WIKILINKS):
        return f"[[{path.removesuffix('.md')}" + (f"|{title}]]" if title is not None else "]]")
    text = inert(path.removesuffix(".md") if title is None else title)
    text = text.replace("[", "&#91;").replace("]", "&#93;")
    return f"[{text}]({quote(path)})"


_CODE = re.compile(r"(`+)(.+?)\1")  # an inline code span: Obsidian reads no tag, link or field in one
# A wikilink or embed (its inside), else a Markdown link or image (its text, its href).
_LINK = re.compile(r"!?\[\[([^\[\]\n]+?)\]\]|!?\[([^\[\]\n]*)\]\(([^()\n]*)\)")
_BLOCK_ID = re.compile(r"\s\^[A-Za-z0-9-]+\s*$")


def quoted(sentence: str) -> str:
    """A sentence (a note's, a model's) as the plane quotes it: it reads as in Obsidian, but is
    text only. A wikilink, an embed or a Markdown link is the text it shows (its alias, else its
    target with ` > ` for `#`; a link's text, else its file name), so the kept note links to,
    embeds (transcludes) and lists as broken nothing the quoted text did; `#` is `&#35;` (no
    `#tag` of the kept note's in Dataview, list_tags or search, as `inert`), `::` is `:&#58;` (no
    Dataview field), an unclosed `[[` is `&#91;&#91;`, and a `^block` id ending it is dropped (no
    block of the kept note's). Inline code stays as written: Obsidian reads none of these in it,
    and would show an entity there as written."""
    return _in_text(unlinked(sentence), _escaped)


def unlinked(text: str) -> str:
    """`text` with its links as the text they show and a `^block` id ending it dropped (the first
    half of `quoted`): a digest looks for a note's first sentence in it, so the `!` of an embed or
    the `.` of `x.md` ends none."""
    return _in_text(_BLOCK_ID.sub("", text), _unlinked)


def _in_text(text: str, change: Callable[[str], str]) -> str:
    """`text` with `change` applied to what is not inline code."""
    out: list[str] = []
    at = 0
    for code in _CODE.finditer(text):
        out += [change(text[at : code.start()]), code.group(0)]
        at = code.end()
    return "".join([*out, change(text[at:])])


def _unlinked(text: str) -> str:
    def shown(link: re.Match[str]) -> str:
        if link.group(1) is not None:
            target, _, alias = link.group(1).partition("|")
            return alias.strip() or " > ".join(p.strip() for p in target.split("#") if p.strip())
        return link.group(2).strip() or unquote(link.group(3).strip("<> ")).rsplit("/", 1)[-1]

    return _LINK.sub(shown, text)


def _escaped(text: str) -> str:
    return _entities(text).replace("::", ":&#58;").replace("[[", "&#91;&#91;")
