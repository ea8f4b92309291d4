"""properties tools through the full dispatch chain: round-trip edits and failure paths."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Harness, started
from tests.tools.helpers import tool_context

ODD = """---
# keep me
title: 'Quoted "title"'   # eol
status: "draft"
tags:
  - one   # first
  - proj/alpha
---
# Body

Text #proj and #proj/beta and #other.
"""


@pytest.mark.covers("get_properties", "success")
async def test_get_properties_returns_json_and_etag(vg: Harness) -> None:
    out = await vg.ok("get_properties", path="Projects/Plan")
    assert out["path"] == "Projects/Plan.md"
    assert out["properties"] == {"status": "active", "priority": 2}
    assert out["obsidian_url"].startswith("obsidian://open?")
    assert len(out["etag"]) == 32


@pytest.mark.covers("set_properties", "success")
async def test_set_properties_merges_and_keeps_comments_order_and_quoting(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"N.md": ODD})) as vg:
        out = await vg.ok("set_properties", path="N", properties={"status": "done", "rating": 5})
        text = vg.read("N.md")
    assert out["changed"] is True
    assert out["properties"]["status"] == "done" and out["properties"]["rating"] == 5
    assert text == ODD.replace('status: "draft"', 'status: "done"').replace("---\n# Body", "rating: 5\n---\n# Body")
    assert [c["line"] for c in out["changes"]] == [4, 8]


async def test_set_properties_null_removes_a_key(vg: Harness) -> None:
    out = await vg.ok("set_properties", path="Projects/Plan.md", properties={"priority": None})
    assert out["properties"] == {"status": "active"}
    assert vg.read("Projects/Plan.md").startswith("---\nstatus: active\n---\n# Plan")


async def test_set_properties_creates_frontmatter_when_missing(vg: Harness) -> None:
    await vg.ok("set_properties", path="Projects/Notes/Idea.md", properties={"tags": ["x"], "n": 1})
    text = vg.read("Projects/Notes/Idea.md")
    assert text == "---\ntags:\n  - x\nn: 1\n---\n# Idea\n\nA small idea linking [[Welcome]].\n"


async def test_set_properties_same_values_writes_nothing(vg: Harness) -> None:
    before = vg.snapshot()
    out = await vg.ok("set_properties", path="Projects/Plan", properties={"status": "active"})
    assert out["changed"] is False and out["changes"] == []
    assert vg.snapshot() == before


async def test_set_properties_on_invalid_yaml_fails_and_changes_nothing(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"Bad.md": "---\na: [b\n---\nbody\n"})) as vg:
        before = vg.snapshot()
        error = await vg.err("set_properties", "validation_error", path="Bad", properties={"a": 1})
        assert error["details"]["reason"] == "invalid_frontmatter"
        got = await vg.ok("get_properties", path="Bad")
        assert got["frontmatter_error"] and got["properties"] == {}
        assert vg.snapshot() == before


@pytest.mark.covers("get_properties", "failure")
@pytest.mark.covers("set_properties", "failure")
@pytest.mark.covers("delete_property", "failure")
@pytest.mark.covers("add_tags", "failure")
async def test_property_edits_fail_cleanly_on_bad_paths_and_etags(vg: Harness) -> None:
    before = vg.snapshot()
    await vg.err("set_properties", "note_not_found", path="Nope.md", properties={"a": 1})
    await vg.err("set_properties", "path_invalid", path="../x.md", properties={"a": 1})
    await vg.err("set_properties", "conflict", path="Projects/Plan", properties={"a": 1}, expected_etag="0" * 32)
    await vg.err("delete_property", "note_not_found", path="Nope.md", key="a")
    await vg.err("add_tags", "validation_error", path="Welcome", tags=["not a tag"])
    await vg.err("get_properties", "note_not_found", path="Nope")
    assert vg.snapshot() == before


@pytest.mark.covers("delete_property", "success")
async def test_delete_property_removes_only_that_key(vg: Harness) -> None:
    out = await vg.ok("delete_property", path="Projects/Plan", key="status")
    assert out["properties"] == {"priority": 2}
    again = await vg.ok("delete_property", path="Projects/Plan", key="status")
    assert again["changed"] is False


@pytest.mark.covers("add_tags", "success")
async def test_add_tags_appends_without_duplicates_and_keeps_item_comments(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"N.md": ODD})) as vg:
        out = await vg.ok("add_tags", path="N", tags=["#one", "new", "proj/gamma"])
        text = vg.read("N.md")
    assert out["properties"]["tags"] == ["one", "proj/alpha", "new", "proj/gamma"]
    assert "  - one   # first\n  - proj/alpha\n  - new\n  - proj/gamma\n---" in text


@pytest.mark.covers("remove_tags", "success")
async def test_remove_tags_frontmatter_only_or_inline_too(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"N.md": ODD, "M.md": ODD})) as vg:
        await vg.ok("remove_tags", path="N", tags=["proj/alpha"])
        out = await vg.ok("remove_tags", path="M", tags=["proj", "one"], inline=True)
        n_text, m_text = vg.read("N.md"), vg.read("M.md")
    assert "proj/alpha" not in n_text and "#proj and" in n_text
    assert out["properties"]["tags"] == ["proj/alpha"]
    assert m_text.endswith("Text and #proj/beta and #other.\n")


@pytest.mark.covers("rename_tag", "success")
async def test_rename_tag_dry_run_previews_then_applies_nested(make_vault: Callable[..., Path]) -> None:
    files = {"N.md": ODD, "Other.md": "No tags #projx here.\n", "In.md": "- item #Proj/alpha/deep\n"}
    async with started(make_vault(files)) as vg:
        await vg.indexed()
        before = vg.snapshot()
        preview = await vg.ok("rename_tag", old="proj", new="work")
        assert preview["dry_run"] is True and vg.snapshot() == before
        assert sorted(i["path"] for i in preview["items"]) == ["In.md", "N.md"]
        lines = {c["line"] for i in preview["items"] if i["path"] == "N.md" for c in i["changes"]}
        assert lines == {7, 11}
        done = await vg.confirmed("rename_tag", old="proj", new="work", dry_run=False)
        assert done["files_changed"] == 2
        n_text = vg.read("N.md")
        assert "  - one   # first\n  - work/alpha\n" in n_text
        assert "Text #work and #work/beta and #other." in n_text
        assert vg.read("In.md") == "- item #work/alpha/deep\n"
        assert vg.read("Other.md") == files["Other.md"]


@pytest.mark.covers("rename_tag", "failure")
async def test_rename_tag_rejects_invalid_names_and_changes_nothing(vg: Harness) -> None:
    before = vg.snapshot()
    await vg.err("rename_tag", "validation_error", old="intro", new="bad tag", dry_run=False)
    assert vg.snapshot() == before


async def test_rename_tag_asks_confirmation_only_when_applying(vg: Harness) -> None:
    from service.tools.properties.tag_rename import RenameTagIn, confirm_rename_tag

    await vg.indexed()
    ctx = tool_context(vg)
    assert await confirm_rename_tag(ctx, RenameTagIn(old="intro", new="hello")) is None
    text = await confirm_rename_tag(ctx, RenameTagIn(old="intro", new="hello", dry_run=False))
    assert text is not None and "Welcome.md" in text.text() and text.files is not None and "Welcome.md" in text.files


async def test_tags_written_as_a_mapping_are_refused_not_rewritten_as_a_repr(make_vault: Callable[..., Path]) -> None:
    """A hand-written `tags: {a: 1}` (or a list holding a mapping) is no list of tags: add_tags and
    remove_tags answer validation_error and leave the note as it is; rename_tag still renames the
    note's inline tags and leaves that property alone (T1 s62 #2: it became `- "{'a': 1}"`)."""
    files = {
        "Map.md": "---\ntags: {a: 1}\n---\nbody #old\n",
        "Nested.md": "---\ntags:\n  - x\n  - {b: 2}\n---\nbody\n",
    }
    async with started(make_vault(files)) as vg:
        await vg.indexed()
        for path in ("Map", "Nested"):
            error = await vg.err("add_tags", "validation_error", path=path, tags=["t1"])
            assert error["details"]["reason"] == "tags_not_a_list"
            await vg.err("remove_tags", "validation_error", path=path, tags=["x"])
        assert vg.read("Map.md") == files["Map.md"] and vg.read("Nested.md") == files["Nested.md"]
        await vg.confirmed("rename_tag", old="old", new="new", dry_run=False)
        assert vg.read("Map.md") == "---\ntags: {a: 1}\n---\nbody #new\n"


async def test_set_properties_values_with_a_next_line_character_round_trip(make_vault: Callable[..., Path]) -> None:
    """U+0085 (NEL) is a line break to YAML: written raw, it came back folded into a space ('a b').
    Values (also in lists and maps) and keys holding it are written double-quoted, escaped (T1 s62 #10)."""
    props = {
        "nel": "a\u0085b",
        "edges": "\u0085lead and trail\u0085",
        "mixed": "x\r\n\u0085y\u2028z",
        "list": ["e\u0085f", "plain"],
        "map": {"k\u0085": "g\u0085h"},
        "key\u0085name": 1,
    }
    async with started(make_vault({"N.md": "---\nkeep: 1\n---\nbody\n"})) as vg:
        await vg.indexed()  # writes made while the first index is built reach it only at its end
        out = await vg.ok("set_properties", path="N", properties=props)
        assert out["properties"] == {"keep": 1, **props}
        assert (await vg.ok("get_properties", path="N"))["properties"] == {"keep": 1, **props}
        assert "\u0085" not in vg.read("N.md") and vg.read("N.md").endswith("---\nbody\n")
        again = await vg.ok("set_properties", path="N", properties=props)  # read back equal: nothing to write
        assert again["changed"] is False
        hits = await vg.ok("search_vault", mode="properties", filters=[{"key": "nel", "op": "==", "value": "a\u0085b"}])
        assert [i["path"] for i in hits["items"]] == ["N.md"]  # the index reads it as written too


async def test_rename_tag_reads_as_yaml_only_the_frontmatter_that_may_hold_the_tag(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every tagged note's frontmatter went through a YAML round trip (~10 ms a note): a tag
    written in 1,500 notes' bodies took 5.7-9.7 s to preview. A frontmatter without the tag's
    text (nor an escape that may spell it) is now left unread; the renames are the same."""
    from service.markdown import yaml_edit

    files = {
        "Body.md": "---\ntitle: Body\nstatus: draft\n---\nText #proj/alpha here.\n",
        "Front.md": "---\ntags: [Proj/beta, other]\n---\nNothing inline.\n",
        "Escaped.md": '---\ntags: ["\\x70roj"]\n---\nAn escaped tag.\n',
    }
    async with started(make_vault(files)) as vg:
        await vg.indexed()
        read: list[str] = []
        edit = yaml_edit.edit_frontmatter

        def counted(text: str, rel: str, mutate: Any) -> str:
            read.append(rel)
            return edit(text, rel, mutate)

        monkeypatch.setattr(yaml_edit, "edit_frontmatter", counted)
        done = await vg.confirmed("rename_tag", old="proj", new="work", dry_run=False)
        assert done["files_changed"] == 3 and sorted(set(read)) == ["Escaped.md", "Front.md"]
        assert vg.read("Body.md") == "---\ntitle: Body\nstatus: draft\n---\nText #work/alpha here.\n"
        assert vg.read("Front.md").startswith("---\ntags: [work/beta, other]\n---\n")
        assert "work" in vg.read("Escaped.md")
