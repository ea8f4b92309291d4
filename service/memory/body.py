"""The body of an entity note as read, line by line, and written back with only the memory's
own lines changed.

A note a person keeps in Obsidian holds more than the memory's items: paragraphs, blank lines,
callouts, comments, code blocks, headings of any level, text before the title and after the
sections. `model.parse` keeps every body line in order (`Line`: its section, the observation or
relation it holds, the line as read); `lines_of` gives them back with the items the entity no
longer holds left out, an item a tool changed in its memory form, and the new items placed:
after the section's last item and the lines that continue it, else after the section's last
line of text (a blank line between when that text is no list item, so a person's paragraph
stays a paragraph). Every other line stays as it was, byte for byte. A section the note lacks
is added (Observations before Relations, Relations after Observations, both after the body)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

OBS_HEADING = "## Observations"
REL_HEADING = "## Relations"
# a list item's start as CommonMark and Obsidian read it: up to three spaces, a bullet (`-`, `*`,
# `+`) or a number of 1-9 digits and `.` or `)`, then spaces or a tab (or the line's end: an empty item)
_ITEM = re.compile(r" {0,3}(?:[-*+]|[0-9]{1,9}[.)])(?:[ \t]+|$)")
_BREAK = re.compile(r" {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*")  # `- - -`, `* * *`: a thematic break, no item
_ORDERED = re.compile(r"( {0,3})([0-9]{1,9})([.)])([ \t]*)")


def item_start(line: str) -> str | None:
    """The start of a list item's line (its indent, marker and the spaces or tab after it); None
    for a line that starts no list item (a thematic break starts none)."""
    m = _ITEM.match(line)
    return None if m is None or _BREAK.fullmatch(line) else m.group()


def columns(text: str) -> int:
    """How many columns `text` (spaces and tabs, a tab to the next multiple of 4) takes."""
    width = 0
    for char in text:
        width = width + 4 - width % 4 if char == "\t" else width + 1
    return width


def content_column(start: str) -> int:
    """The column an item's text starts at (`start`: `item_start`'s): after the marker and its
    spaces, or one past the marker when five or more follow (CommonMark: the rest is code in it)."""
    marker = start.rstrip(" \t")
    width = columns(start)
    return columns(marker) + 1 if width - columns(marker) > 4 or width == columns(marker) else width


def following(start: str) -> str:
    """The start of the item after one starting with `start`, in the same list: the same bullet,
    or the next number with the same delimiter; the same indent and spacing — but one space after
    a marker that five or more columns follow (the item's text would be code: `content_column`)."""
    marker = start.rstrip(" \t")
    if columns(start) - columns(marker) > 4:
        start = marker + " "
    m = _ORDERED.fullmatch(start)
    if m:
        return f"{m.group(1)}{int(m.group(2)) + 1}{m.group(3)}{m.group(4) or ' '}"
    return start if start[-1:] in (" ", "\t") else start + " "


class Item(Protocol):
    """An observation or a relation (`service.memory.model`): its line in the memory's form,
    which starts with its `marker` (the list item's start as read, `- ` for a new one)."""

    @property
    def marker(self) -> str: ...

    def render(self) -> str: ...


# a body line as read: its section ("pre", "obs", "rel", "tail"; a memory section's heading is
# "obs#" / "rel#"; "open": from a code block or comment never closed to the note's end, where
# Obsidian shows no item), the memory item it holds (None for a person's line) and the line itself
Line = tuple[str, Item | None, str]


def lines_of(read: list[Line], observations: Sequence[Item], relations: Sequence[Item]) -> list[str]:
    """The note's body lines: those `read` with the memory items changed as the entity now holds
    them (its `observations` and `relations`, in order); joined by LF, the body as read when
    nothing changed. An observation read and left unchanged (its `raw` kept) and a relation
    (never changed in place) are written as their lines were read."""
    held = {id(item) for item in [*observations, *relations]}
    seen = {id(item) for _, item, _ in read if item is not None}
    new = {
        "obs": _listed(read, "obs", [obs for obs in observations if id(obs) not in seen]),
        "rel": _listed(read, "rel", [rel for rel in relations if id(rel) not in seen]),
    }
    inserts: dict[int, list[str]] = {}
    ends: dict[str, int] = {}
    for kind in ("obs", "rel"):
        if (placed := _place(read, kind, bool(new[kind]))) is not None:
            at, blank, end = placed
            inserts.setdefault(at, []).extend([""] * blank + new[kind])
            ends[kind] = end
    if "obs" not in ends:  # no Observations section: before Relations, else after the body
        heads = [i for i, (section, _, _) in enumerate(read) if section == "rel#"]
        if heads:
            inserts.setdefault(heads[0], []).extend([OBS_HEADING, *new["obs"], ""])
            ends["obs"] = heads[0]
        else:
            end = _after_text(read, [i for i, (section, _, _) in enumerate(read) if section != "open"])
            at, lead = _after(read, end) if end else (0, [])  # none at the note's start
            inserts.setdefault(at, []).extend([*lead, OBS_HEADING, *new["obs"]])
            ends["obs"] = at
    if "rel" not in ends:  # no Relations section: after Observations
        at, lead = _after(read, ends["obs"])
        inserts.setdefault(at, []).extend([*lead, REL_HEADING, *new["rel"]])
    out: list[str] = []
    for i, (_, item, line) in enumerate(read):
        out += inserts.get(i, [])
        if item is None:
            out.append(line)
        elif id(item) in held:
            out.append(line if getattr(item, "raw", "") is not None else item.render())
    return out + inserts.get(len(read), [])


def _listed(read: list[Line], kind: str, items: Sequence[Item]) -> list[str]:
    """The lines of new items of a section, in the form of the section's list (the marker of its
    last item read, numbered on), so Obsidian shows them in that list; `- ` in a section with none."""
    last = [item.marker for section, item, _ in read if section == kind and item is not None][-1:]
    out = []
    start = last[0] if last else None
    for item in items:
        line = item.render()
        start = following(start) if start is not None else item.marker
        out.append(start + line[len(item.marker) :])
    return out


def _place(read: list[Line], kind: str, adding: bool) -> tuple[int, int, int] | None:
    """Where a section's new items go (before which line), whether a blank line goes before them,
    and where the section's text ends; None when the note has no such section."""
    heads = [i for i, (section, _, _) in enumerate(read) if section == kind + "#"]
    if not heads:
        return None
    mine = [i for i, (section, _, _) in enumerate(read) if section == kind]
    end = _after_text(read, mine, heads[0] + 1)
    items = [i for i in mine if read[i][1] is not None]
    if items:
        at = items[-1] + 1
        while at < len(read) and read[at][0] == kind and read[at][1] is None and read[at][2].strip():
            at += 1  # the lines that continue the last item (up to a blank line)
        return at, 0, end
    last = read[end - 1][2].lstrip() if end - 1 not in heads else ""
    blank = adding and bool(last) and item_start(last) is None
    return end, int(blank), end


def _after_text(read: list[Line], among: range | list[int], start: int = 0) -> int:
    """The index after the last line holding text among `among` (`start` when none)."""
    return max((i + 1 for i in among if read[i][2].strip()), default=start)


def _after(read: list[Line], at: int) -> tuple[int, list[str]]:
    """Where a missing section goes after the text ending at `at`, and the blank line before it:
    at the note's end (blank lines to the end of the note), after the first of them."""
    rest = read[at:]
    if len(rest) >= 2 and not any(line.strip() for _, _, line in rest):
        return at + 1, []
    return at, [""]
