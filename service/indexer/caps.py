"""What the index keeps of one note: at most `MAX_TAGS` tags and `MAX_ROWS` rows of each kind.

One note of 100,000 inline tags held the index writer for minutes (T1 s62 #13: the parser's
de-duplication was quadratic; it is linear now). Every row a note stores is also counted and read
back by the tag, link, task and Dataview tools, so a note's cost is bounded by count too: past
these caps the rest is left out of the index (the note itself is indexed, its text searchable)
and the note is reported as a file warning (`capped`, with what was cut) in `index_status`.
They sit far above what real notes hold.
"""

from __future__ import annotations

from typing import Any

from service.markdown.parse import ParsedNote

MAX_TAGS = 10_000
MAX_ROWS = 100_000  # links and embeds, headings, block ids, tasks and list items, property values


def within_caps(p: ParsedNote, properties: list[Any]) -> tuple[list[Any], str]:
    """Cut `p`'s collections to the caps, and `properties` (its property rows): those rows as kept,
    and what was cut ('tags 100000 > 10000; ...'), '' for nothing."""
    cut: list[str] = []
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
