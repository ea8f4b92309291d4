"""A memory note whose frontmatter does not parse (a YAML typo, an alias bomb) is refused by every
memory write with validation_error (reason invalid_frontmatter), as set_properties refuses it, and
left byte for byte: the store rendered the entity from what parsed, so each write dropped every
property (T1 s62 #7: `custom`, `notes`, even `entityType` were lost)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import e2e, started

TYPO = (
    "---\nname: Ann\nentityType: person\ncustom: keep me\nnotes: [unclosed\n---\n# Ann\n\n"
    "## Observations\n- likes tea ^m-aaaaaaaaaaaa\n"
)
LEVELS = "".join(f"{c}: &{c} [{', '.join([f'*{p}'] * 9)}]\n" for p, c in zip("abcdefgh", "bcdefghi", strict=True))
BOMB = (
    "---\na: &a [x, x, x, x, x, x, x, x, x]\n" + LEVELS + "custom: keep me\n---\n# Ann\n\n"
    "## Observations\n- likes tea ^m-aaaaaaaaaaaa\n"
)


# libyaml lets the later `keep` win: rendered from what parsed, `keep: 1` was dropped (R4 s62 F6)
DUPLICATE = (
    "---\nname: Ann\nentityType: person\nkeep: 1\nkeep: 2\n---\n# Ann\n\n## Observations\n- likes tea ^m-aaaaaaaaaaaa\n"
)


# Spelled differently, one key as read (R2 s63 F2): the guard compared spellings, so these passed
# and the write dropped one (`1: first` / `0x1: second` came back as `1: "second"`)
def _twice(first: str, second: str) -> str:
    return (
        f"---\nname: Ann\nentityType: person\n{first}: first\n{second}: second\n---\n# Ann\n\n"
        "## Observations\n- likes tea ^m-aaaaaaaaaaaa\n"
    )


SPELLED = {"int-hex": _twice("1", "0x1"), "int-float": _twice("1", "1.0"), "null": _twice("null", "~")}
SPELLED |= {"bool": _twice("true", "True"), "bool-int": _twice("true", "1")}


@pytest.mark.parametrize(
    "text", [TYPO, BOMB, DUPLICATE, *SPELLED.values()], ids=["typo", "alias-bomb", "duplicate-key", *SPELLED]
)
async def test_memory_writes_refuse_a_note_whose_frontmatter_does_not_parse(
    make_vault: Callable[..., Path], text: str
) -> None:
    async with started(make_vault({"Memory/Ann.md": text, "Memory/Bob.md": "# Bob\n"})) as vg:
        calls = {
            "add_observations": {"observations": [{"entityName": "Ann", "contents": ["likes coffee"]}]},
            "create_relations": {"relations": [{"from": "Ann", "to": "Bob", "relationType": "knows"}]},
            "delete_observations": {"deletions": [{"entityName": "Ann", "observations": ["likes tea"]}]},
        }
        for tool, args in calls.items():
            error = await vg.err(tool, "validation_error", **args)
            assert error["details"]["reason"] == "invalid_frontmatter", (tool, error)
            assert vg.read("Memory/Ann.md") == text, tool
        error = await vg.err("set_properties", "validation_error", path="Memory/Ann.md", properties={"x": 1})
        assert error["details"]["reason"] == "invalid_frontmatter"  # the same refusal
        await vg.ok("add_observations", observations=[{"entityName": "Bob", "contents": ["likes coffee"]}])


async def test_a_duplicate_key_is_refused_over_http(make_vault: Callable[..., Path]) -> None:
    async with e2e(make_vault({"Memory/Ann.md": DUPLICATE})) as (url, vg), Client(url) as client:
        args = {"observations": [{"entityName": "Ann", "contents": ["likes coffee"]}]}
        result = await client.call_tool("add_observations", args)
        assert result.is_error and result.structured_content is not None
        error = result.structured_content["error"]
        assert error["code"] == "validation_error" and error["details"]["reason"] == "invalid_frontmatter", error
        assert "keep" in error["details"]["yaml_error"] and vg.read("Memory/Ann.md") == DUPLICATE


async def test_a_key_and_its_quoted_spelling_are_one_property_to_memory_writes(make_vault: Callable[..., Path]) -> None:
    """`1` and `"1"` are two keys to YAML (set_properties keeps both) but one property as read: a
    memory write rendered from what was read kept only `"1"`; it is refused, the note left as is."""
    text = _twice("1", '"1"')
    async with started(make_vault({"Memory/Ann.md": text})) as vg:
        error = await vg.err(
            "add_observations", "validation_error", observations=[{"entityName": "Ann", "contents": ["x"]}]
        )
        assert error["details"]["reason"] == "invalid_frontmatter", error
        assert vg.read("Memory/Ann.md") == text


async def test_keys_spelled_differently_are_refused_over_http(make_vault: Callable[..., Path]) -> None:
    text = SPELLED["int-hex"]
    async with e2e(make_vault({"Memory/Ann.md": text})) as (url, vg), Client(url) as client:
        args = {"observations": [{"entityName": "Ann", "contents": ["likes coffee"]}]}
        result = await client.call_tool("add_observations", args)
        assert result.is_error and result.structured_content is not None
        error = result.structured_content["error"]
        assert error["code"] == "validation_error" and error["details"]["reason"] == "invalid_frontmatter", error
        assert "0x1" in error["details"]["yaml_error"] and vg.read("Memory/Ann.md") == text
