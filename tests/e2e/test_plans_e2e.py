"""Action plans end to end: real uvicorn, the SDK's Streamable HTTP client, both protocol eras.

validate_plan, execute_plan with progress notifications (one per call), get_plan_run, a
background run, and undo_last_plan confirmed with a token a human minted — back to the same bytes.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import mcp_types as types
from mcp import Client

from tests.conftest import e2e, snapshot
from tests.e2e.calls import error, ok
from tests.long_changes import assert_progress


def _plan(n: int) -> dict[str, object]:
    return {
        "goal": "tag and file the notes",
        "params": [{"name": "tag", "type": "string", "description": "Tag to add."}],
        "steps": [
            {"id": "find", "tool": "list_notes", "args": {"folder": "In"}},
            {
                "id": "tag",
                "tool": "add_tags",
                "foreach": "$steps.find.items[*].path",
                "args": {"path": "$item", "tags": ["${tag}"]},
            },
            {
                "id": "log",
                "tool": "create_note",
                "args": {"path": "Log", "content": "tagged ${tag}\n"},
                "dependsOn": ["tag"],
            },
        ],
    }


async def test_plan_validate_execute_progress_undo_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    n = 8
    async with e2e(make_vault({f"In/i{i}.md": f"# i{i}\n" for i in range(n)})) as (url, h):
        await h.indexed()
        before = snapshot(h.root)
        async with Client(url, mode=mode) as c:  # type: ignore[arg-type]
            checked = await ok(c, "validate_plan", plan=_plan(n), params={"tag": "filed"})
            assert checked["valid"] and checked["effects"]["estimated_steps"] == 1 + n + 1
            assert checked["effects"]["files_created"] == ["Log.md"] and len(checked["effects"]["files_modified"]) == n
            bad = await error(c, "execute_plan", plan=_plan(n))  # the parameter has no default
            assert bad["code"] == "validation_error"
            seen: list[tuple[float, float | None, str | None]] = []

            async def on_progress(done: float, total: float | None, message: str | None) -> None:
                seen.append((done, total, message))

            result = await c.call_tool(
                "execute_plan", {"plan": _plan(n), "params": {"tag": "filed"}}, progress_callback=on_progress
            )
            run = result.structured_content
            assert not result.is_error and run is not None and run["status"] == "done", run
            assert_progress(seen)
            assert len(seen) == n + 2 and "filed" in h.read("In/i3.md")
            got = await ok(c, "get_plan_run", run_id=run["run_id"])
            assert got["status"] == "done" and got["calls_done"] == n + 2
            ask = await error(c, "undo_last_plan")
            assert ask["code"] == "elicit_required"
            # The harness mints the token as a local admin caller: it names the run (another caller's).
            token = await h.token_for("undo_last_plan", run_id=run["run_id"])
            undone = await ok(c, "undo_last_plan", run_id=run["run_id"], elicit_token=token)
            assert undone["run_id"] == run["run_id"]
            assert snapshot(h.root) == before
            background = await ok(c, "execute_plan", plan=_plan(n), params={"tag": "later"}, background=True)
            await h.app.plans.wait(background["run_id"])
            finished = await ok(c, "get_plan_run", run_id=background["run_id"])
            assert finished["status"] == "done" and "later" in h.read("Log.md")


async def test_saved_macros_are_listed_as_prompts(make_vault: Callable[..., Path]) -> None:
    macro = {
        "goal": "add a tag",
        "params": [
            {"name": "tag", "type": "string", "description": "Tag."},
            {"name": "n", "type": "integer", "default": 1},
        ],
        "steps": [{"id": "t", "tool": "add_tags", "args": {"path": "In/i0", "tags": ["${tag}"]}}],
    }
    async with e2e(make_vault({"In/i0.md": "# i0\n"})) as (url, _h), Client(url) as c:
        await ok(c, "save_macro", name="tagger", description="Tag i0.", plan=macro)
        prompts = {p.name: p for p in (await c.list_prompts()).prompts}
        assert "summarize_note" in prompts
        tagger = prompts["macro:tagger"]
        assert [(a.name, a.required) for a in tagger.arguments or []] == [("tag", True), ("n", False)]
        got = await c.get_prompt("macro:tagger", {"tag": "x", "n": "3"})
        text = got.messages[0].content
        assert isinstance(text, types.TextContent) and '"params": {"tag": "x", "n": 3}' in text.text
