"""The scalar style of a frontmatter link (yaml_scalars.styles, which a move's or rename's link
rewrite asks of every candidate note) is found in one pass over a line (review R2 s64 F12):
whether a quote opens a scalar was decided by a regex over the line's whole start, once per
quote, so one line of N quoted links cost N x its length (20,000 links: 54 s per note, a rename's
dry run of a note with 10,000: 10 s). Counted, not timed."""

from __future__ import annotations

import random
import re

import pytest

from service.graph import yaml_scalars as ys
from service.graph.linkpath import PathSet
from service.graph.rewrite import rewrite_note

_PROPS = re.compile(r"(?:(?<=\s)|^)(?:[!&][^\s]*\s+)+$")


def _opens_reference(line: str, at: int) -> bool:
    """The rule as it was written before (a regex over `line[:at]`), kept here as the reference."""
    before = _PROPS.sub("", line[:at]).rstrip()
    return before == "" or before.endswith((":", "-", "[", "{", ",", "?"))


class _Counted(str):
    """A frontmatter line that counts the characters taken out of it (slices, items)."""

    taken = 0

    def __getitem__(self, key: object) -> str:  # type: ignore[override]
        part = str.__getitem__(self, key)  # type: ignore[index]
        _Counted.taken += len(part)
        return part


class _Line(str):
    def rstrip(self, chars: str | None = None) -> str:
        return _Counted(str.rstrip(self, chars))


def _flow_line(n: int) -> str:
    return "r: [" + ", ".join(f'"[[{i}]]"' if i % 2 else f"'[[{i}]]'" for i in range(n)) + "]"


def test_a_line_of_many_quoted_links_is_read_in_one_pass() -> None:
    line = _flow_line(5000)
    lines = ["---", _Line(line), "---", ""]
    wanted = [(1, m.start()) for m in re.finditer(r"\[\[", line)]
    _Counted.taken = 0
    got = ys.styles(lines, 3, wanted)
    assert [got[w] for w in wanted] == [ys.DOUBLE if i % 2 else ys.SINGLE for i in range(5000)]
    assert _Counted.taken <= 3 * len(line), (_Counted.taken, len(line))


@pytest.mark.parametrize("seed", range(6))
def test_whether_a_quote_opens_a_scalar_is_the_rule_as_before(seed: int) -> None:
    rng = random.Random(seed)
    alphabet = [" ", " ", "\t", "!", "&", "!!str", "&a", ":", "-", "[", "{", ",", "?", "x", "k:", "'", '"', "\u00a0"]
    for _ in range(400):
        line = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 14)))
        before = ys._Before(line)
        for at in range(len(line) + 1):
            assert before.opens(at) == _opens_reference(line, at), (line, at)


def test_a_rename_rewrites_one_link_of_a_long_flow_list_in_its_quoting() -> None:
    n = 3000
    text = "---\n" + _flow_line(n) + "\n---\nbody\n"
    files = ["1.md", "S.md"]
    out = rewrite_note(
        text,
        source_before="S.md",
        source_after="S.md",
        before=PathSet(files),
        after=PathSet(["It's one.md", "S.md"]),
        moved={"1.md": "It's one.md"},
    ).text
    assert out == text.replace('"[[1]]"', '"[[It\'s one]]"')
