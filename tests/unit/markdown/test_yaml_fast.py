"""The simple-frontmatter reader (`yaml_fast`) builds exactly what the YAML loader builds, or
declines: checked on generated hostile blocks (numbers YAML 1.1 reads its own way, dates that do
not exist, quotes, colons, comments, tabs, CRLF, a BOM, NEL, Latin-1 and astral characters,
anchors, nested and ragged lists), each read both ways, values, types and order compared."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import pytest
import yaml

from service.markdown import frontmatter as fm
from service.markdown import yaml_fast
from service.settings.limits import LimitsSettings

KEYS = ["tags", "status", "a b", "x-y", "k_2", "true", "Null", "no", "on", "é", "key ", " key", "a:b", "1", "y"]
SCALARS = [
    "plain", "two words", "Kraków", "山田太郎", "note 📅", "true", "False", "TRUE", "tRue", "yes", "no", "off",
    "null", "NULL", "~", "0", "-0", "12", "-7", "007", "08", "0x1f", "0o17", "1_000", "+3", "1:30", "190:20:30",
    "1.5", "-0.0", ".5", "1.", "1e3", "1.0e+3", ".inf", "-.Inf", ".nan", "2024-03-26", "2024-02-30", "0000-01-01",
    "2024-3-6", "2024-03-26T10:00:00", "2024-03-26 10:00", "20240326", "http://a.b/c", "a: b", "a:", "a:b",
    "a #c", "a#c", "#c", "'single'", "'it''s'", "'a\\b'", '"double"', '"a\\tb"', '"a "b""', '""', "''", '"',
    "a 'q'", 'say "hi"', "R&D", "&anchor x", "*alias", "!tag x", "!!str 5", "{a: 1}", "{{date}}", "|", ">",
    "- x", "-", "?", "? x", "@at", "`tick`", "%pct", "a\tb", "a\rb", "caf\xe9", "\xa0nbsp", "a\x85b",
    "a\u2028b", "\ufeffbom", "a\x7fb", "\x00", "[a, b]", "[a b, c/d]", "[]", "[ ]", "[a, ]", "[a,b]", "[1, 2.5]",
    "[true, null]", "[a, [b]]", "[a]]", "[[a]]", '["a, b", c]', "['a', \"b\"]", "[a: b]", "[2024-03-26]", "a ",
    "a  b", "a]", "x,y", "[a", "a\\b",
]  # fmt: skip


# The forms the fast reader takes (some only look simple); drawn more often than the rest, so
# that many blocks are read both ways.
EASY_KEYS = ["tags", "status", "a b", "x-y", "k_2", "true", "no"]
EASY = [
    "plain", "two words", "Kraków", "山田太郎", "note 📅", "true", "FALSE", "tRue", "null", "0", "-0", "12", "007",
    "1.5", "-0.0", "2024-03-26", "2024-02-30", "http://a.b/c", "a:b", "'single'", '"double"', "a 'q'", "caf\xe9",
    "[a, b]", "[a b, c/d]", "[]", "[1, 2.5]", "[true, null]", "[2024-03-26]", "[a, [b]]", "a ", "x,y", "a\\b",
]  # fmt: skip


def _scalar(rng: random.Random) -> str:
    return rng.choice(EASY if rng.random() < 0.8 else SCALARS)


def _block(rng: random.Random) -> str:
    lines: list[str] = []
    for _ in range(rng.randint(1, 5)):
        key = rng.choice(EASY_KEYS if rng.random() < 0.9 else KEYS)
        shape = rng.random()
        if shape < 0.5:
            lines.append(f"{key}:{rng.choice([' ', ' ', ''])}{_scalar(rng)}{rng.choice(['', '', ' ', '  '])}")
        elif shape < 0.75:
            indent = rng.choice(["", "  ", "    "])
            lines.append(f"{key}:")
            for _ in range(rng.randint(0, 4)):
                ragged = rng.choice([indent] * 12 + [" ", "\t", indent + " "])
                lines.append(f"{ragged}-{rng.choice([' '] * 8 + ['  ', ''])}{_scalar(rng)}")
        elif shape < 0.9:
            lines.append(f"{key}:")
            for _ in range(rng.randint(0, 3)):
                sub = rng.choice(EASY_KEYS if rng.random() < 0.9 else KEYS)
                lines.append(f"{rng.choice(['  '] * 6 + [' ', '    '])}{sub}: {_scalar(rng)}")
        elif shape < 0.93:
            lines.append(rng.choice(["", "# comment", "  continued", "---", "...", "key", f"{key}: a\n  b"]))
        else:
            lines.append(f"{key}:")
    text = "\n".join(lines) + rng.choice(["\n", "\n", "", "\n\n"])
    if rng.random() < 0.03:
        text = text.replace("\n", "\r\n")
    return text


def _library(raw: str) -> Any:
    return yaml.load(raw, Loader=fm._Loader)  # noqa: S506 - the safe loader subclass


def _blocks(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [_block(rng) for _ in range(count)]


def test_the_fast_reader_builds_what_the_library_builds_or_declines() -> None:
    taken = 0
    for raw in _blocks(6000, 39):
        fast = yaml_fast.read(raw)
        if fast is None:
            continue
        taken += 1
        assert repr(fast) == repr(_library(raw)), raw  # values, their types and the keys' order
    assert taken > 400  # the generator reaches the fast form often enough to mean something


@dataclass(frozen=True)
class _Tight:
    """Limits below what the settings allow, so the value, text and depth bounds are reached."""

    max_frontmatter_values: int = 3
    max_depth: int = 2
    max_value_bytes: int = 0


@pytest.mark.parametrize("limits", [LimitsSettings(), _Tight()])
def test_frontmatter_reads_the_same_with_and_without_the_fast_reader(
    limits: fm.YamlLimits, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocks = _blocks(1500, 40)
    fast = [fm.parse_yaml(raw, limits) for raw in blocks]
    monkeypatch.setattr(yaml_fast, "read", lambda raw: None)
    assert fast == [fm.parse_yaml(raw, limits) for raw in blocks]


@pytest.mark.parametrize(
    "raw",
    [
        "tags:\n  - iota\n  - home/finance\nstatus: blocked\ncreated: 2024-03-26\npriority: 1\nscore: 9.5\n",
        "aliases: [Roadmap, plan/b]\nauthor: 山田太郎\ndone: false\nempty:\n",
        'tags:\n- "two words"\n- plain\nsource:\n  url: https://example.org/a/1\n  date: 2024-01-02\n',
    ],
)
def test_the_common_frontmatter_shapes_take_the_fast_path(raw: str) -> None:
    fast = yaml_fast.read(raw)
    assert fast is not None
    assert repr(fast) == repr(_library(raw))


@pytest.mark.parametrize(
    "raw",
    [
        "a: &x [1, 2]\nb: *x\n",  # an alias: the loader measures its expansion
        "a: 2024-02-30\n",  # the loader's own error for a date that does not exist
        "a: 1\r\nb: 2\r\n",
        "a: x # note\n",
        "a: 010\n",  # octal in YAML 1.1
        "a: 1:30\n",  # sexagesimal
        "a:\n  b:\n    c: 1\n",
    ],
)
def test_anything_else_goes_to_the_library(raw: str) -> None:
    assert yaml_fast.read(raw) is None
