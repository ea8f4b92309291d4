"""The notes domain through the full dispatch chain: happy paths and failure paths."""

from __future__ import annotations

import asyncio
import os
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from service.tools.notes import listing
from tests.conftest import Harness, started
from tests.real_vaults import VAULTS, needs, writable_copy

REAL_VAULT = VAULTS / "obsidian-help-en"


# -- reading -----------------------------------------------------------------------------------


async def test_read_note_returns_content_metadata_and_url(vg: Harness) -> None:
    out = await vg.ok("read_note", path="Projects/Plan")
    assert out["path"] == "Projects/Plan.md" and out["title"] == "Plan"
    assert out["properties"] == {"status": "active", "priority": 2}
    assert out["obsidian_url"].endswith("&file=Projects%2FPlan.md")
    assert len(out["etag"]) == 32 and out["size"] == len(vg.read("Projects/Plan.md").encode())


@pytest.mark.covers("read_note", "success")
async def test_read_note_by_heading_path_returns_the_nested_section(vg: Harness) -> None:
    out = await vg.ok("read_note", path="Projects/Plan.md", heading=["Plan", "Goals"])
    assert out["content"].startswith("## Goals") and "### Details" in out["content"]
    assert "## Risks" not in out["content"]
    assert out["start_line"] == 7


async def test_read_note_line_range_and_frontmatter_only(vg: Harness) -> None:
    lines = await vg.ok("read_note", path="Projects/Plan.md", start_line=5, end_line=6)
    assert lines["content"] == "# Plan\n\n"
    front = await vg.ok("read_note", path="Projects/Plan.md", part="frontmatter")
    assert front["content"] == "status: active\npriority: 2\n"


@pytest.mark.covers("read_note", "failure")
async def test_read_note_failures(vg: Harness) -> None:
    await vg.err("read_note", "note_not_found", path="Nope.md")
    await vg.err("read_note", "path_invalid", path="../../etc/passwd")
    await vg.err("read_note", "acl_denied", path=".obsidian/app.json")
    await vg.err("read_note", "validation_error", path="Projects/Plan.md", heading=["Missing"])
    await vg.err("read_note", "validation_error", path="Projects/Plan.md", heading=["Goals"], start_line=1)
    await vg.err("read_note", "validation_error", path="Projects/Plan.md", start_line=999)
    await vg.err("read_note", "validation_error", path="Projects/Plan.md", surprise=1)


@pytest.mark.covers("read_notes", "success")
@pytest.mark.covers("read_notes", "failure")
async def test_read_notes_reports_per_note_errors_and_paginates_under_the_budget(
    make_vault: Callable[..., Path],
) -> None:
    files = {f"n{i}.md": f"# N{i}\n" + "x" * 3000 + "\n" for i in range(6)}
    async with started(make_vault(files), governor={"max_response_bytes": 8192}) as h:
        out = await h.ok("read_notes", paths=["n0", "missing", "../x", "n1", "n2", "n3"])
        assert out["items"][1]["error"]["code"] == "note_not_found"
        assert out["items"][2]["error"]["code"] == "path_invalid"
        assert out["next_cursor"] is not None
        read = [i["path"] for i in out["items"] if i.get("content")]
        cursor = out["next_cursor"]
        while cursor:
            page = await h.ok("read_notes", paths=["n0", "missing", "../x", "n1", "n2", "n3"], cursor=cursor)
            read += [i["path"] for i in page["items"] if i.get("content")]
            cursor = page["next_cursor"]
        assert read == ["n0.md", "n1.md", "n2.md", "n3.md"]
        await h.err("read_notes", "validation_error", paths=["n0"], cursor="garbage!")
        await h.err("read_notes", "validation_error", paths=[])


@pytest.mark.covers("note_info", "success")
@pytest.mark.covers("note_info", "failure")
async def test_note_info_counts_links_from_the_index(vg: Harness) -> None:
    await vg.indexed()
    info = await vg.ok("note_info", path="Welcome")
    assert info["indexed"] is True and info["backlinks"] == 1 and info["outlinks"] == 1
    assert info["word_count"] > 0 and info["tags"] == ["start", "intro"]
    await vg.err("note_info", "note_not_found", path="Ghost")


@pytest.mark.covers("list_notes", "success")
@pytest.mark.covers("list_notes", "failure")
async def test_list_notes_filters_sorts_and_paginates(vg: Harness) -> None:
    out = await vg.ok("list_notes", folder="Projects", limit=1)
    assert out["total"] == 2 and len(out["items"]) == 1 and out["next_cursor"]
    nxt = await vg.ok("list_notes", folder="Projects", limit=1, cursor=out["next_cursor"])
    assert {out["items"][0]["path"], nxt["items"][0]["path"]} == {"Projects/Plan.md", "Projects/Notes/Idea.md"}
    flat = await vg.ok("list_notes", folder="Projects", recursive=False)
    assert [i["path"] for i in flat["items"]] == ["Projects/Plan.md"]
    globbed = await vg.ok("list_notes", glob="**/Idea.md")
    assert [i["path"] for i in globbed["items"]] == ["Projects/Notes/Idea.md"]
    everything = await vg.ok("list_notes", sort="size", order="desc")
    assert all(not i["path"].startswith(".obsidian") for i in everything["items"])
    sizes = [i["size"] for i in everything["items"]]
    assert sizes == sorted(sizes, reverse=True)
    await vg.err("list_notes", "note_not_found", folder="Nowhere")
    await vg.err("list_notes", "validation_error", folder="Projects", cursor=globbed["next_cursor"] or "bad")
    await vg.err("list_notes", "acl_denied", folder=".obsidian")


@pytest.mark.covers("list_notes", "success")
async def test_list_notes_by_path_stats_the_page_it_returns(vg: Harness) -> None:
    """Sorted by path only the page is stat'ed: its sizes and times are the files' own, the total
    counts every match, and the descending order is the ascending one reversed."""
    for i in range(5):
        (vg.root / "Many").mkdir(exist_ok=True)
        (vg.root / "Many" / f"n{i}.md").write_text("x" * (10 + i))
        os.utime(vg.root / "Many" / f"n{i}.md", (1_700_000_000 + i, 1_700_000_000 + i))
    page = await vg.ok("list_notes", folder="Many", limit=2)
    assert page["total"] == 5 and [i["path"] for i in page["items"]] == ["Many/n0.md", "Many/n1.md"]
    assert [(i["size"], i["mtime"]) for i in page["items"]] == [(10, 1_700_000_000), (11, 1_700_000_001)]
    desc = await vg.ok("list_notes", folder="Many", order="desc")
    assert [i["path"] for i in desc["items"]] == [f"Many/n{i}.md" for i in range(4, -1, -1)]
    assert [i["size"] for i in desc["items"]] == [14, 13, 12, 11, 10]
    newest = await vg.ok("list_notes", folder="Many", sort="mtime", order="desc", limit=1)
    assert newest["items"][0]["path"] == "Many/n4.md" and newest["total"] == 5


def test_a_file_gone_between_the_walk_and_its_stat_is_left_out(tmp_path: Path) -> None:
    for name in ("a.md", "b.md"):
        (tmp_path / name).write_text(name)
    entries = sorted(((e.name, e) for e in os.scandir(tmp_path)), key=lambda row: row[0])
    (tmp_path / "a.md").unlink()
    assert [(rel, size) for rel, size, _ in listing._stat_rows(entries)] == [("b.md", 4)]


@pytest.mark.covers("list_folders", "success")
@pytest.mark.covers("create_folder", "success")
@pytest.mark.covers("create_folder", "failure")
async def test_list_folders_and_create_folder(vg: Harness) -> None:
    out = await vg.ok("list_folders")
    url = "obsidian://open?vault=" + vg.root.name + "&file="
    assert {"path": "Projects", "obsidian_url": url + "Projects", "notes": 1} in out["items"]
    assert {"path": "Projects/Notes", "obsidian_url": url + "Projects%2FNotes", "notes": 1} in out["items"]
    assert all(not i["path"].startswith(".") for i in out["items"])
    made = await vg.ok("create_folder", path="Inbox/Later")
    assert made == {"path": "Inbox/Later", "obsidian_url": url + "Inbox%2FLater", "created": True}
    again = await vg.ok("create_folder", path="Inbox/Later")
    assert again["created"] is False and again["obsidian_url"] == made["obsidian_url"]
    before = vg.snapshot()
    await vg.err("create_folder", "already_exists", path="Welcome.md")
    await vg.err("create_folder", "path_invalid", path="Welcome.md/Sub")
    await vg.err("create_folder", "path_invalid", path="../outside")
    await vg.err("create_folder", "acl_denied", path=".obsidian/plugins")
    assert vg.snapshot() == before


# -- writing -----------------------------------------------------------------------------------


@pytest.mark.covers("create_note", "success")
@pytest.mark.covers("create_note", "failure")
async def test_create_note_with_frontmatter_and_already_exists(vg: Harness) -> None:
    out = await vg.ok("create_note", path="Inbox/New", content="# New\n", frontmatter={"tags": ["a"], "n": 1})
    assert out["path"] == "Inbox/New.md" and out["created"] is True and out["title"] == "New"
    assert vg.read("Inbox/New.md") == "---\ntags:\n  - a\nn: 1\n---\n# New\n"  # as Obsidian writes a list
    before = vg.snapshot()
    await vg.err("create_note", "already_exists", path="Inbox/New.md", content="x")
    await vg.err("create_note", "path_invalid", path="/abs.md", content="x")
    await vg.err("create_note", "acl_denied", path=".trash/x.md", content="x")
    await vg.err("create_note", "validation_error", path="Inbox/Y.md", content="---\na: 1\n---\n", frontmatter={"b": 2})
    assert vg.snapshot() == before


async def test_create_note_if_exists_unique_picks_the_next_free_number(vg: Harness) -> None:
    first = await vg.ok("create_note", path="Projects/Plan", content="second plan\n", if_exists="unique")
    assert first["path"] == "Projects/Plan 1.md" and first["created"] is True
    second = await vg.ok("create_note", path="Projects/Plan.md", content="third plan\n", if_exists="unique")
    assert second["path"] == "Projects/Plan 2.md" and second["obsidian_url"].endswith("Plan%202.md")
    assert vg.read("Projects/Plan 2.md") == "third plan\n" and "status: active" in vg.read("Projects/Plan.md")
    fresh = await vg.ok("create_note", path="Brand new", if_exists="unique")
    assert fresh["path"] == "Brand new.md"


async def test_create_note_if_exists_overwrite_follows_write_note_rules(vg: Harness) -> None:
    before = vg.snapshot()
    await vg.err("create_note", "elicit_required", path="Welcome", content="x", if_exists="overwrite")
    await vg.err("create_note", "conflict", path="Welcome", content="x", if_exists="overwrite", expected_etag="0")
    await vg.err("create_note", "validation_error", path="Welcome", content="x", expected_etag="0")
    await vg.err("create_note", "validation_error", path="Welcome", content="x", if_exists="replace")
    assert vg.snapshot() == before
    etag = (await vg.ok("read_note", path="Welcome"))["etag"]
    out = await vg.ok("create_note", path="Welcome", content="new\n", if_exists="overwrite", expected_etag=etag)
    assert out["created"] is False and vg.read("Welcome.md") == "new\n"
    await vg.confirmed("create_note", path="Welcome", content="newer\n", if_exists="overwrite")
    assert vg.read("Welcome.md") == "newer\n"
    made = await vg.ok("create_note", path="Nowhere/New", content="n\n", if_exists="overwrite")
    assert made["created"] is True


@pytest.mark.covers("write_note", "success")
@pytest.mark.covers("write_note", "failure")
async def test_write_note_modes_and_etag_conflict(vg: Harness) -> None:
    created = await vg.ok("write_note", path="W.md", content="one\n", mode="create")
    await vg.err("write_note", "already_exists", path="W.md", content="two\n", mode="create")
    over = await vg.ok("write_note", path="W.md", content="two\n", mode="overwrite", expected_etag=created["etag"])
    assert vg.read("W.md") == "two\n" and over["created"] is False
    await vg.ok("write_note", path="W.md", content="three", mode="append")
    assert vg.read("W.md") == "two\nthree"
    before = vg.snapshot()
    error = await vg.err(
        "write_note", "conflict", path="W.md", content="x", mode="overwrite", expected_etag=over["etag"]
    )
    assert error["details"]["current_etag"] != over["etag"]
    await vg.err("write_note", "validation_error", path="W.md", content="x", mode="replace")
    await vg.err("write_note", "note_not_found", path="Missing.md", content="x", mode="append", expected_etag="0" * 32)
    await vg.err(
        "write_note", "note_not_found", path="Missing.md", content="x", mode="overwrite", expected_etag="0" * 32
    )
    await vg.err("write_note", "path_invalid", path="../W.md", content="x", mode="overwrite")
    assert vg.snapshot() == before


async def test_write_note_asks_for_confirmation_only_for_blind_overwrites(vg: Harness) -> None:
    from service.tools.context import ToolContext
    from service.tools.notes.write import WriteNoteIn, write_note_confirm

    spec = vg.app.registry.get("write_note")
    assert spec is not None and spec.confirm == "conditional"
    ctx = ToolContext(principal=vg.principal, vault=vg.app.vaults["main"], services=vg.app.services)
    note = await vg.ok("read_note", path="Welcome.md")
    blind = await write_note_confirm(ctx, WriteNoteIn(path="Welcome.md", content="x", mode="overwrite"))
    assert blind is not None and "Welcome.md" in blind.text() and blind.files == ("Welcome.md",)
    assert (
        await write_note_confirm(
            ctx, WriteNoteIn(path="Welcome.md", content="x", mode="overwrite", expected_etag=note["etag"])
        )
        is None
    )
    assert await write_note_confirm(ctx, WriteNoteIn(path="New.md", content="x", mode="overwrite")) is None


@pytest.mark.covers("append_note", "success")
@pytest.mark.covers("append_note", "failure")
@pytest.mark.covers("prepend_note", "success")
async def test_append_and_prepend(vg: Harness) -> None:
    await vg.ok("append_note", path="Welcome", content="Appended.\n")
    assert vg.read("Welcome.md").endswith("[[Projects/Plan]].\nAppended.\n")
    await vg.ok("prepend_note", path="Welcome", content="First line")
    assert vg.read("Welcome.md").startswith("---\ntags: [start]\n---\nFirst line\n# Welcome")
    before = vg.snapshot()
    await vg.err("append_note", "note_not_found", path="Missing", content="x")
    await vg.err("append_note", "note_not_found", path="Missing", content="x", expected_etag="0" * 32)
    await vg.err(
        "append_note", "note_not_found", path="Missing", content="x", create_if_missing=True, expected_etag="0"
    )
    await vg.err("append_note", "conflict", path="Welcome", content="x", expected_etag="0" * 32)
    await vg.err("append_note", "path_invalid", path="../Welcome", content="x")
    await vg.err("append_note", "acl_denied", path=".obsidian/app.json", content="x")
    await vg.err("append_note", "validation_error", path="Welcome")
    await vg.err(
        "prepend_note", "note_not_found", path="Missing", content="x", create_if_missing=True, expected_etag="0"
    )
    assert vg.snapshot() == before
    made = await vg.ok("append_note", path="Log", content="entry\n", create_if_missing=True)
    assert made["created"] is True and vg.read("Log.md") == "entry\n"


@pytest.mark.covers("patch_note", "success")
async def test_patch_note_by_heading_block_and_anchor(vg: Harness) -> None:
    await vg.ok("patch_note", path="Projects/Plan", heading=["Plan", "Risks"], position="append", content="- new risk")
    assert "None yet.\n\n- new risk\n" in vg.read("Projects/Plan.md")
    await vg.ok("patch_note", path="Projects/Plan", block="^goal-1", position="replace", content="Ship it now.")
    assert "Ship it now. ^goal-1" in vg.read("Projects/Plan.md")
    await vg.ok("patch_note", path="Projects/Plan", anchor="More.", position="replace", content="Much more.")
    assert "Much more." in vg.read("Projects/Plan.md")
    await vg.ok(
        "patch_note", path="Projects/Plan", heading=["Goals"], position="before", content="## Context\n\nWhy.\n"
    )
    assert "## Context\n\nWhy.\n\n## Goals" in vg.read("Projects/Plan.md")


async def test_patch_after_a_heading_goes_past_its_nested_sections_and_keeps_blocks_apart(vg: Harness) -> None:
    await vg.ok("patch_note", path="Projects/Plan", heading=["Plan", "Goals"], position="after", content="After goals.")
    text = vg.read("Projects/Plan.md")
    assert "### Details\n\nMore.\n\nAfter goals.\n\n## Risks" in text
    await vg.ok("patch_note", path="Projects/Plan", block="^goal-1", position="after", content="Right after.")
    assert "Ship it. ^goal-1\n\nRight after.\n\n### Details" in vg.read("Projects/Plan.md")
    await vg.ok("patch_note", path="Projects/Plan", block="goal-1", position="before", content="Right before.")
    assert "## Goals\n\nRight before.\n\nShip it. ^goal-1\n" in vg.read("Projects/Plan.md")
    heading_after = await vg.ok(
        "patch_note", path="Projects/Plan", heading=["Plan", "Goals"], position="after", content="## Next\n\nSoon."
    )
    assert heading_after["etag"]
    assert "After goals.\n\n## Next\n\nSoon.\n\n## Risks" in vg.read("Projects/Plan.md")


@pytest.mark.covers("patch_note", "failure")
async def test_patch_note_failures_change_nothing(vg: Harness) -> None:
    before = vg.snapshot()
    await vg.err("patch_note", "validation_error", path="Projects/Plan", heading=["Nope"], content="x")
    await vg.err("patch_note", "validation_error", path="Projects/Plan", block="missing", content="x")
    await vg.err("patch_note", "validation_error", path="Projects/Plan", anchor="e", content="x")
    await vg.err("patch_note", "validation_error", path="Projects/Plan", content="x")
    await vg.err("patch_note", "validation_error", path="Projects/Plan", heading=["Goals"], anchor="x", content="x")
    await vg.err("patch_note", "note_not_found", path="Ghost", heading=["Goals"], content="x")
    await vg.err("patch_note", "conflict", path="Projects/Plan", heading=["Goals"], content="x", expected_etag="0" * 32)
    assert vg.snapshot() == before


@pytest.mark.covers("delete_note", "success")
@pytest.mark.covers("delete_note", "failure")
async def test_delete_goes_to_trash_and_permanent_really_deletes(vg: Harness) -> None:
    out = await vg.ok("delete_note", path="Projects/Notes/Idea")
    assert out["trash_path"] == ".trash/Projects/Notes/Idea.md" and not (vg.root / "Projects/Notes/Idea.md").exists()
    assert out["title"] == "Idea" and out["obsidian_url"].endswith("&file=Projects%2FNotes%2FIdea.md")
    assert (vg.root / ".trash/Projects/Notes/Idea.md").exists()
    await vg.confirmed("delete_note", path="Daily/2024-01-01", permanent=True)
    assert not (vg.root / "Daily/2024-01-01.md").exists()
    assert not (vg.root / ".trash/Daily").exists()
    before = vg.snapshot()
    await vg.err("delete_note", "note_not_found", path="Projects/Notes/Idea")
    await vg.err("delete_note", "conflict", path="Welcome", expected_etag="f" * 32)
    await vg.err("delete_note", "note_not_found", path="Gone", expected_etag="f" * 32)
    await vg.err("delete_note", "path_invalid", path="../Welcome")
    await vg.err("delete_note", "acl_denied", path=".obsidian/app.json")
    await vg.err("delete_note", "not_a_note", path="Projects")
    assert vg.snapshot() == before
    spec = vg.app.registry.get("delete_note")
    assert spec is not None and spec.confirm == "conditional" and spec.scope_class == "delete"


@pytest.mark.covers("copy_note", "success")
@pytest.mark.covers("copy_note", "failure")
async def test_copy_note(vg: Harness) -> None:
    out = await vg.ok("copy_note", path="Welcome", new_path="Copies/Welcome copy")
    assert out["path"] == "Copies/Welcome copy.md" and vg.read("Copies/Welcome copy.md") == vg.read("Welcome.md")
    before = vg.snapshot()
    await vg.err("copy_note", "already_exists", path="Welcome", new_path="Copies/Welcome copy")
    await vg.err("copy_note", "note_not_found", path="Ghost", new_path="X")
    await vg.err("copy_note", "validation_error", path="Welcome", new_path="Welcome.md")
    await vg.err("copy_note", "path_invalid", path="Welcome", new_path="../Escape")
    await vg.err("copy_note", "acl_denied", path="Welcome", new_path=".obsidian/Welcome")
    await vg.err(
        "copy_note", "conflict", path="Welcome", new_path="Copies/Welcome copy", overwrite=True, expected_etag="0"
    )
    await vg.err(
        "copy_note", "note_not_found", path="Welcome", new_path="Copies/New", overwrite=True, expected_etag="0"
    )
    assert vg.snapshot() == before


async def test_copy_over_an_existing_note_needs_its_etag_or_a_confirmation(vg: Harness) -> None:
    before = vg.snapshot()
    asked = await vg.err("copy_note", "elicit_required", path="Welcome", new_path="Projects/Plan", overwrite=True)
    assert "Projects/Plan.md" in asked["message"] or "Projects/Plan.md" in str(asked["details"])
    assert vg.snapshot() == before
    plan = await vg.ok("read_note", path="Projects/Plan")
    out = await vg.ok("copy_note", path="Welcome", new_path="Projects/Plan", overwrite=True, expected_etag=plan["etag"])
    assert out["created"] is False and vg.read("Projects/Plan.md") == vg.read("Welcome.md")
    await vg.confirmed("copy_note", path="Projects/Notes/Idea", new_path="Projects/Plan", overwrite=True)
    assert vg.read("Projects/Plan.md") == vg.read("Projects/Notes/Idea.md")
    (vg.root / "Empty.md").write_text("")
    await vg.ok("copy_note", path="Welcome", new_path="Empty", overwrite=True)  # nothing to lose: no question
    await vg.ok("copy_note", path="Welcome", new_path="Fresh", overwrite=True)


@pytest.mark.covers("bulk_create_notes", "success")
@pytest.mark.covers("bulk_create_notes", "failure")
async def test_bulk_create_is_all_or_nothing(vg: Harness) -> None:
    out = await vg.ok("bulk_create_notes", notes=[{"path": "B/1", "content": "# One\n"}, {"path": "B/2"}])
    assert [i["path"] for i in out["items"]] == ["B/1.md", "B/2.md"]
    before = vg.snapshot()
    await vg.err("bulk_create_notes", "already_exists", notes=[{"path": "B/3"}, {"path": "B/1"}])
    await vg.err("bulk_create_notes", "path_invalid", notes=[{"path": "B/4"}, {"path": "../x"}])
    await vg.err("bulk_create_notes", "validation_error", notes=[{"path": "B/5"}, {"path": "B/5.md"}])
    assert vg.snapshot() == before


async def test_bulk_create_failing_midway_rolls_back_notes_and_the_folders_it_made(vg: Harness) -> None:
    before = vg.snapshot()
    # The third note cannot be written (its parent is a file), after two writes and a new folder tree.
    notes = [{"path": "NewDir/Deep/a", "content": "a"}, {"path": "Other/b"}, {"path": "Welcome.md/c"}]
    await vg.err("bulk_create_notes", "path_invalid", notes=notes)
    assert vg.snapshot() == before
    assert not (vg.root / "NewDir").exists() and not (vg.root / "Other").exists()
    await vg.ok("create_folder", path="Keep")
    kept = vg.snapshot()
    await vg.err("bulk_create_notes", "path_invalid", notes=[{"path": "Keep/x"}, {"path": "Welcome.md/c"}])
    assert vg.snapshot() == kept  # a folder that existed before the call stays


async def test_bulk_overwrite_needs_etags_or_a_confirmation_and_checks_them(vg: Harness) -> None:
    welcome = await vg.ok("read_note", path="Welcome")
    before = vg.snapshot()
    asked = await vg.err(
        "bulk_create_notes", "elicit_required", notes=[{"path": "Welcome", "content": "x"}], overwrite=True
    )
    assert "Welcome.md" in asked["message"] or "Welcome.md" in str(asked["details"])
    await vg.err(
        "bulk_create_notes",
        "conflict",
        notes=[{"path": "N1", "content": "n"}, {"path": "Welcome", "content": "x", "expected_etag": "0" * 32}],
        overwrite=True,
    )
    await vg.err(
        "bulk_create_notes", "note_not_found", notes=[{"path": "Ghost", "expected_etag": "0" * 32}], overwrite=True
    )
    assert vg.snapshot() == before
    out = await vg.ok(
        "bulk_create_notes",
        notes=[{"path": "N1", "content": "n"}, {"path": "Welcome", "content": "x", "expected_etag": welcome["etag"]}],
        overwrite=True,
    )
    assert [i["created"] for i in out["items"]] == [True, False] and vg.read("Welcome.md") == "x"


async def test_concurrent_appends_all_land_and_etag_races_have_one_winner(vg: Harness) -> None:
    await asyncio.gather(*(vg.ok("append_note", path="Welcome", content=f"line {i}\n") for i in range(20)))
    text = vg.read("Welcome.md")
    assert all(f"line {i}\n" in text for i in range(20))
    etag = (await vg.ok("read_note", path="Welcome"))["etag"]
    results = await asyncio.gather(
        *(
            vg.call("write_note", path="Welcome", content=f"writer {i}\n", mode="overwrite", expected_etag=etag)
            for i in range(5)
        )
    )
    winners = [r for r in results if not r.is_error]
    assert len(winners) == 1
    assert all(r.error_code == "conflict" for r in results if r.is_error)


async def test_writes_are_in_the_index_before_the_call_returns(vg: Harness) -> None:
    await vg.indexed()
    await vg.ok("create_note", path="Fresh.md", content="# Fresh\nlinks to [[Welcome]] #newtag\n")
    row = await vg.app.db.fetchone("SELECT title, tags FROM notes WHERE vault_id='main' AND path='Fresh.md'")
    assert row is not None and row[0] == "Fresh" and "newtag" in row[1]
    await vg.ok("delete_note", path="Fresh.md")
    assert await vg.app.db.fetchone("SELECT 1 FROM notes WHERE path='Fresh.md'") is None


@needs(REAL_VAULT)
async def test_real_vault_sections_read_and_patch(tmp_path: Path) -> None:
    root = tmp_path / "help"
    writable_copy(REAL_VAULT, root)
    async with started(root) as h:
        notes = await h.ok("list_notes", limit=1000)
        assert notes["total"] > 100
        note = next(
            p
            for p in ("Getting started/Link notes.md", "Linking notes and files/Internal links.md")
            if (root / p).exists()
        )
        first = await h.ok("read_note", path=note)
        heading = next(line.lstrip("#").strip() for line in first["content"].split("\n") if line.startswith("## "))
        section = await h.ok("read_note", path=note, heading=[heading])
        assert section["content"].startswith("## ") and len(section["content"]) < len(first["content"])
        await h.ok("patch_note", path=note, heading=[heading], position="append", content="Added by a test.")
        assert "Added by a test." in (await h.ok("read_note", path=note, heading=[heading]))["content"]


@pytest.mark.covers("list_folders", "failure")
@pytest.mark.covers("prepend_note", "failure")
async def test_prepend_note_and_list_folders_failures_change_nothing(vg: Harness) -> None:
    before = vg.snapshot()
    await vg.err("prepend_note", "note_not_found", path="Missing", content="x")
    await vg.err("prepend_note", "path_invalid", path="../Welcome.md", content="x")
    await vg.err("prepend_note", "acl_denied", path=".obsidian/app.json", content="x")
    await vg.err("prepend_note", "conflict", path="Welcome", content="x", expected_etag="stale")
    await vg.err("prepend_note", "validation_error", path="Welcome")
    await vg.err("list_folders", "path_invalid", folder="../up")
    await vg.err("list_folders", "acl_denied", folder=".git")
    await vg.err("list_folders", "validation_error", folder="Projects", cursor="not-a-cursor")
    assert vg.snapshot() == before


# -- file modes and symlinks -------------------------------------------------------------------


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


async def test_new_notes_get_the_default_mode_and_overwrites_keep_the_existing_one(vg: Harness) -> None:
    umask = os.umask(0o022)
    os.umask(umask)
    await vg.ok("create_note", path="Fresh", content="x\n")
    assert _mode(vg.root / "Fresh.md") == 0o666 & ~umask
    await vg.ok("bulk_create_notes", notes=[{"path": "Bulk/One"}])
    assert _mode(vg.root / "Bulk/One.md") == 0o666 & ~umask
    (vg.root / "Welcome.md").chmod(0o640)
    await vg.confirmed("write_note", path="Welcome", content="over\n", mode="overwrite")
    assert _mode(vg.root / "Welcome.md") == 0o640
    await vg.ok("append_note", path="Welcome", content="more\n")
    await vg.ok("patch_note", path="Welcome", anchor="over", position="replace", content="under")
    assert _mode(vg.root / "Welcome.md") == 0o640 and vg.read("Welcome.md") == "under\nmore\n"
    (vg.root / "Projects/Plan.md").chmod(0o604)
    await vg.confirmed("copy_note", path="Welcome", new_path="Projects/Plan", overwrite=True)
    assert _mode(vg.root / "Projects/Plan.md") == 0o604
    assert not list(vg.root.rglob("*.vgtmp"))


async def test_writing_through_an_in_vault_symlink_updates_its_target_and_keeps_the_link(vg: Harness) -> None:
    link = vg.root / "Shortcut.md"
    link.symlink_to("Projects/Plan.md")
    read = await vg.ok("read_note", path="Shortcut")
    await vg.ok("write_note", path="Shortcut", content="via link\n", mode="overwrite", expected_etag=read["etag"])
    assert link.is_symlink() and vg.read("Projects/Plan.md") == "via link\n"
    await vg.ok("append_note", path="Shortcut", content="appended\n")
    await vg.ok("patch_note", path="Shortcut", anchor="via link", position="replace", content="patched")
    assert link.is_symlink() and vg.read("Projects/Plan.md") == "patched\nappended\n"
    await vg.confirmed("copy_note", path="Welcome", new_path="Shortcut", overwrite=True)
    assert link.is_symlink() and vg.read("Projects/Plan.md") == vg.read("Welcome.md")
    folder_link = vg.root / "P"
    folder_link.symlink_to("Projects", target_is_directory=True)
    await vg.ok("create_note", path="P/Via folder link", content="x\n")
    assert folder_link.is_symlink() and (vg.root / "Projects/Via folder link.md").read_text() == "x\n"


async def test_writes_onto_a_folder_named_like_a_note_are_refused(vg: Harness) -> None:
    (vg.root / "Folder.md").mkdir()
    before = vg.snapshot()
    await vg.err("create_note", "path_invalid", path="Folder.md", content="x")
    await vg.err("write_note", "not_a_note", path="Folder.md", content="x", mode="overwrite")
    await vg.err("copy_note", "path_invalid", path="Welcome", new_path="Folder.md")
    await vg.err("bulk_create_notes", "path_invalid", notes=[{"path": "Folder.md"}])
    assert vg.snapshot() == before


async def test_a_symlink_out_of_the_vault_is_never_written_through(vg: Harness, tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("secret\n")
    (vg.root / "Out.md").symlink_to(outside)
    before = vg.snapshot()
    await vg.err("write_note", "path_invalid", path="Out", content="x", mode="overwrite")
    await vg.err("append_note", "path_invalid", path="Out", content="x")
    assert outside.read_text() == "secret\n" and vg.snapshot() == before
