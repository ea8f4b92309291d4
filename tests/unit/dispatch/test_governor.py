"""The response governor and the paged change reports: an `overflow` always has a way forward,
and a completed change is never reported as an error."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.dispatch.context import CallContext, ToolResult
from service.dispatch.governor import Governor
from service.settings import GovernorSettings
from service.types import Principal
from tests.conftest import Harness, started

TAGGED = {f"Notes/N{i:02}.md": f"# N{i:02}\n\nSome text #old and more.\n" for i in range(60)}
LINKED = {"Target.md": "# T\n", "New.md": "# New\n"} | {
    f"Refs/R{i:02}.md": f"# R{i:02}\n\nSee [[Target]] here.\n" for i in range(60)
}
SMALL = {"governor": {"max_response_bytes": 2048}, "throttle": {"enabled": False}}


async def _pages(vg: Harness, tool: str, **args: Any) -> tuple[list[str], dict[str, Any]]:
    """Follow next_cursor to the end; every page fits; returns every listed path and the last page."""
    paths: list[str] = []
    out = await vg.ok(tool, **args)
    while True:
        paths += [item["path"] for item in out["items"]]
        if out["next_cursor"] is None:
            return paths, out
        assert out["truncated"] is True
        out = await vg.ok(tool, **args, cursor=out["next_cursor"])


async def test_a_confirmed_rename_tag_over_many_notes_succeeds_within_the_budget(
    make_vault: Callable[..., Path],
) -> None:
    async with started(make_vault(TAGGED), **SMALL) as vg:
        await vg.indexed()
        # the preview is too big at the default page size: overflow says what page size fits
        error = await vg.err("rename_tag", "overflow", old="old", new="fresh")
        limit = error["details"]["suggested_limit"]
        assert 1 <= limit < 50 and f"limit={limit}" in error["hint"]
        paths, last = await _pages(vg, "rename_tag", old="old", new="fresh", limit=limit)
        assert sorted(paths) == sorted(TAGGED) and last["files_changed"] == 60
        assert all("#old" in vg.read(p) for p in TAGGED)  # dry runs changed nothing
        # applying: every file changes, the answer is a success with totals and a capped list
        done = await vg.confirmed("rename_tag", old="old", new="fresh", dry_run=False, limit=5)
        assert done["files_changed"] == 60 and done["lines_changed"] == 60
        assert len(done["items"]) == 5 and done["truncated"] is True and done["next_cursor"] is None
        assert all("#fresh" in vg.read(p) and "#old" not in vg.read(p) for p in TAGGED)


async def test_an_applied_change_too_big_for_the_budget_is_trimmed_not_an_error(
    make_vault: Callable[..., Path],
) -> None:
    async with started(make_vault(TAGGED), **SMALL) as vg:
        await vg.indexed()
        result = await vg.call(
            "rename_tag",
            old="old",
            new="fresh",
            dry_run=False,
            limit=60,
            elicit_token=await vg.token_for("rename_tag", old="old", new="fresh", dry_run=False, limit=60),
        )
        assert not result.is_error and result.structured is not None, result.structured
        assert result.size <= 2048 and "completed" in result.text
        out = result.structured
        assert out["files_changed"] == 60 and out["truncated"] is True and len(out["items"]) < 60
        assert all("#fresh" in vg.read(p) for p in TAGGED)


async def test_rewrite_links_and_moves_page_their_previews_and_cap_applied_reports(
    make_vault: Callable[..., Path],
) -> None:
    async with started(make_vault(LINKED), **SMALL) as vg:
        await vg.indexed()
        paths, last = await _pages(vg, "rewrite_links", old_target="Target", new_target="New", limit=4)
        assert sorted(paths) == sorted(p for p in LINKED if p.startswith("Refs/"))
        assert last["files_changed"] == 60 and last["links_rewritten"] == 60
        # a cursor belongs to its own call, and never to an applying one
        first = await vg.ok("rewrite_links", old_target="Target", new_target="New", limit=4)
        await vg.err("rewrite_links", "validation_error", old_target="Target", new_target="Refs/R00", limit=4,
                     cursor=first["next_cursor"])  # fmt: skip
        before = vg.snapshot()
        await vg.err("rewrite_links", "validation_error", old_target="Target", new_target="New", limit=4,
                     cursor=first["next_cursor"], dry_run=False)  # fmt: skip
        assert vg.snapshot() == before
        # a folder move: preview pages over moved files too; the applied report is capped
        moves, last = await _pages(vg, "move_note", path="Refs", new_path="Archive/Refs", dry_run=True, limit=7)
        assert last["files_moved"] == 60 and last["moved"] and last["truncated"] is True
        moved = await vg.confirmed("move_note", path="Refs", new_path="Archive/Refs", limit=3)
        assert moved["files_moved"] == 60 and len(moved["moved"]) == 3 and moved["truncated"] is True
        assert (vg.root / "Archive/Refs/R59.md").exists() and not (vg.root / "Refs").exists()


@pytest.mark.covers("find_capability", "success")
@pytest.mark.covers("find_capability", "failure")
async def test_find_capability_pages_with_a_cursor(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"A.md": "a\n"})) as vg:
        everything = await vg.ok("find_capability", query="note", limit=50)
        names: list[str] = []
        out = await vg.ok("find_capability", query="note", limit=3)
        while True:
            assert len(out["items"]) <= 3
            names += [i["name"] for i in out["items"]]
            if out["next_cursor"] is None:
                break
            out = await vg.ok("find_capability", query="note", limit=3, cursor=out["next_cursor"])
        # pages of 3 give the same order as one page of 50 (more than 50 tools mention notes)
        assert names[:50] == [i["name"] for i in everything["items"]] and len(names) > 3
        assert len(names) == len(set(names))
        await vg.err("find_capability", "validation_error", query="tag", cursor=everything["next_cursor"] or "x")


def _call() -> CallContext:
    return CallContext(tool="t", raw_args={}, principal=Principal.local(), transport="inproc")


async def test_governor_trims_a_completed_change_and_keeps_its_counts() -> None:
    payload = {"items": [{"path": f"p{i}", "changes": ["x" * 50] * 5} for i in range(200)], "total": 200}
    payload["truncated"] = False

    async def applied(call: CallContext) -> ToolResult:
        return ToolResult(structured=payload, text="{}", applied=True)

    call = _call()
    result = await Governor(GovernorSettings(max_response_bytes=2048))(call, applied)
    assert not result.is_error and result.size <= 2048 and result.applied
    assert result.structured is not None and result.structured["total"] == 200
    assert result.structured["truncated"] is True and 0 < len(result.structured["items"]) < 200
    assert call.notes["overflow_bytes"] > 2048 and call.notes["trimmed"] is True
    assert len(payload["items"]) == 200  # the handler's own object is not mutated


async def test_an_overflow_hint_names_only_what_the_tool_takes(make_vault: Callable[..., Path]) -> None:
    """The hint of an overflow names the arguments of that tool that ask for less. It was one
    sentence for every tool ('... a heading or line range) or paginate with limit/cursor'), which
    sent read_canvas, which takes neither, to arguments it refuses (U7, s74)."""
    nodes = ",".join(
        f'{{"id":"n{i}","type":"text","text":"{"x" * 40}","x":{i},"y":0,"width":10,"height":10}}' for i in range(60)
    )
    vault = {"Big.canvas": f'{{"nodes":[{nodes}],"edges":[]}}', "Long.md": "# Long\n" + "words here\n" * 400}
    async with started(make_vault(vault), **SMALL) as vg:
        await vg.indexed()
        canvas = await vg.err("read_canvas", "overflow", path="Big.canvas")
        assert "next_cursor" not in canvas["hint"] and "line range" not in canvas["hint"]
        assert "read_canvas answers whole" in canvas["hint"] and "max_response_bytes" in canvas["hint"]
        note = await vg.err("read_note", "overflow", path="Long")
        assert "line range" in note["hint"] and "next_cursor" not in note["hint"]  # read_note's own hint
        part = await vg.ok("read_note", path="Long", start_line=1, end_line=20)  # what the hint says fits
        assert part["content"].startswith("# Long\n")
