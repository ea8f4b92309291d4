"""Frontmatter read within [limits]: aliases, merge keys, recursion and nesting are measured
before anything is built; ordinary YAML (aliases included) reads as before."""

from __future__ import annotations

import pytest

from service.markdown import frontmatter as fm
from service.settings.limits import LimitsSettings


def _note(yaml: str) -> str:
    return f"---\n{yaml}---\nbody\n"


def test_an_alias_bomb_is_refused_without_being_built() -> None:
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 9)]
    front = fm.split(_note("\n".join(lines) + "\n"))
    assert front.data == {} and front.error is not None and front.error.startswith(fm.EXPANSION_ERROR)
    assert front.body_line == 11  # the body is still found


def test_a_merge_key_bomb_is_refused() -> None:
    yaml = "a: &a {x1: 1, x2: 2, x3: 3}\n"
    for prev, name in zip("abcdefg", "bcdefgh", strict=True):
        yaml += f"{name}: &{name}\n  <<: [" + ", ".join([f"*{prev}"] * 9) + f"]\n  k{name}: 1\n"
    assert (fm.split(_note(yaml)).error or "").startswith(fm.EXPANSION_ERROR)


def test_an_alias_inside_itself_is_refused() -> None:
    assert "inside itself" in (fm.split(_note("x: &x [1, *x]\n")).error or "")


@pytest.mark.parametrize(
    "nested", ["[" * 80 + "]" * 80, "".join(f"{'  ' * i}k{i}:\n" for i in range(80)) + "  " * 80 + "v"]
)
def test_nesting_past_max_depth_is_refused(nested: str) -> None:
    yaml = f"x: {nested}\n" if nested.startswith("[") else nested + "\n"
    front = fm.split(_note(yaml))
    assert front.data == {} and front.error is not None


def test_aliases_and_merges_within_bounds_read_as_before() -> None:
    front = fm.split(_note("base: &b {a: 1}\nchild:\n  <<: *b\n  c: 2\nboth: [*b, *b]\n"))
    assert front.error is None
    assert front.data == {"base": {"a": 1}, "child": {"a": 1, "c": 2}, "both": [{"a": 1}, {"a": 1}]}


def test_the_value_limit_applies_without_aliases() -> None:
    yaml = "items: [" + ", ".join(str(i) for i in range(1500)) + "]\n"
    limits = LimitsSettings(max_frontmatter_values=1000)
    assert fm.split(_note(yaml), limits).data == {}
    assert len(fm.split(_note(yaml)).data["items"]) == 1500


def test_to_plain_raises_past_the_limit() -> None:
    shared = ["x"] * 100
    value = [shared] * 100  # 10,000 values, one list object
    with pytest.raises(fm.FrontmatterTooLarge):
        fm.to_plain(value, LimitsSettings(max_frontmatter_values=1000))
    assert len(fm.to_plain(value)) == 100
