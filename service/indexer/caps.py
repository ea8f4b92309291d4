"""What the index keeps of one note: at most `MAX_TAGS` tags and `MAX_ROWS` rows of each kind.

One note of 100,000 inline tags held the index writer for minutes (T1 s62 #13: the parser's
de-duplication was quadratic; it is linear now). Every row a note stores is also counted and read
back by the tag, link, task and Dataview tools, so a note's cost is bounded by count too: past
these caps the rest is left out of the index (the note itself is indexed, its text searchable)
and the note is reported as a file warning (`capped`, with what was cut) in `index_status`.
They sit far above what real notes hold.

A note's size is bounded too: only its first `[limits] max_indexed_note_chars` characters are
indexed (cut at the last line break within them, `kept_text`). An 18 MB note held the index
writer ~10 s, and a writer's next search waited for it; a 100 MB one would pass the 30 s a
search waits for its own writes. The rest is neither searchable nor listed (tags, links, tasks
past the cut), the note is reported `capped` ('text 20000000 chars > 1048576: ...'), and it
stays readable and writable as a whole.
"""

from __future__ import annotations

from typing import Any

from service.markdown.parse import ParsedNote

MAX_TAGS = 10_000
MAX_ROWS = 100_000  # links and embeds, headings, block ids, tasks and list items, property values

DEFAULT_MAX_CHARS = 1024 * 1024  # `[limits] max_indexed_note_chars` unless set
_max_chars: int | None = None  # set by `use_max_chars` (a parse worker); otherwise the process's `[limits]`


def use_max_chars(chars: int | None) -> int | None:
    """Index at most `chars` characters of a note from now on (a parse worker: the server's
    `[limits]`); None: the process's `[limits]` again. Returns the setting it replaced."""
    global _max_chars
    before, _max_chars = _max_chars, chars
    return before


def max_chars() -> int:
    """`[limits] max_indexed_note_chars` of this process (or as `use_max_chars` set it)."""
    if _max_chars is not None:
        return _max_chars
    # Imported here: `service.budget` imports the settings package, which a parse worker never needs.
    from service.budget import configured

    return configured().max_indexed_note_chars


def kept_text(text: str, cap: int | None = None) -> str:
    """What the index reads of a note: all of it, or its first `cap` (default `max_chars()`)
    characters cut at the last line break within them (or at the limit when they hold none)."""
    cap = max_chars() if cap is None else cap
    if len(text) <= cap:
        return text
    cut = text.rfind("\n", 0, cap) + 1
    return text[: cut or cap]


def within_caps(p: ParsedNote, properties: list[Any], chars: tuple[int, int] = (0, 0)) -> tuple[list[Any], str]:
    """Cut `p`'s collections to the caps, and `properties` (its property rows): those rows as kept,
    and what was cut ('tags 100000 > 10000; ...'), '' for nothing. `chars`: the note's length and
    the length of what `kept_text` kept of it (parsed as `p`)."""
    whole, kept = chars
    cut = [f"text {whole} chars > {max_chars()}: the first {kept} indexed"] if kept < whole else []
    for name, cap in (
        ("tags", MAX_TAGS),
        ("inline_tags", MAX_TAGS),
        ("links", MAX_ROWS),
        ("headings", MAX_ROWS),
        ("tasks", MAX_ROWS),
        ("items", MAX_ROWS),
    ):
        values = getattr(p, name)
        if len(values) > cap:
            if name != "inline_tags":  # counted in `tags`
                cut.append(f"{name} {len(values)} > {cap}")
            setattr(p, name, values[:cap])
    if len(p.block_ids) > MAX_ROWS:
        cut.append(f"block_ids {len(p.block_ids)} > {MAX_ROWS}")
        p.block_ids = dict(list(p.block_ids.items())[:MAX_ROWS])
    if len(properties) > MAX_ROWS:
        cut.append(f"property values {len(properties)} > {MAX_ROWS}")
    return properties[:MAX_ROWS], "; ".join(cut)
