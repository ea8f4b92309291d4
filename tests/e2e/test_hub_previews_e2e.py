"""A hub note's rename over a real server (uvicorn, the SDK client over Streamable HTTP): the
dry run pages through every backlink with its cursor and the same totals on each page, another
client's calls are answered while the rename is planned (the planning runs in a worker thread,
not on the event loop), and the applied rename is what a second client then sees."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from service.graph import moves as graph_moves
from service.graph.rewrite import rewrite_note
from service.indexer import apply
from tests.conftest import e2e
from tests.e2e.calls import ok

N = 300
AFTER = "See [[Centre]] and [m](../Centre.md)."


def _vault() -> dict[str, str]:
    files = {f"Notes/n{i:03}.md": f"# Note {i}\n\nSee [[Hub]] and [m](../Hub.md).\n" for i in range(N)}
    files["Hub.md"] = "# Hub\n"
    files["Other.md"] = "# Other\n"
    return files


async def test_a_hub_rename_pages_its_preview_and_leaves_other_clients_answered(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    planning, answered = threading.Event(), threading.Event()
    waited: list[bool] = []

    def held(text: str, **kwargs: Any) -> Any:
        """The first note's rewrite waits until another client's call is answered (at most 20 s:
        on the event loop, which would answer it, it waits out the 20 s and says so)."""
        if not planning.is_set():
            planning.set()
            waited.append(answered.wait(20))
        return rewrite_note(text, **kwargs)

    async with e2e(make_vault(_vault())) as (url, harness):
        await harness.indexed()
        async with Client(url, mode="legacy") as first, Client(url, mode="legacy") as second:
            monkeypatch.setattr(graph_moves, "rewrite_note", held)
            args = {"path": "Hub", "new_path": "Centre", "dry_run": True, "limit": 40}
            async with anyio.create_task_group() as tg:
                pages: list[dict[str, Any]] = []

                async def preview() -> None:
                    pages.append(await ok(first, "rename_note", args))

                tg.start_soon(preview)
                await anyio.to_thread.run_sync(planning.wait)
                other = await ok(second, "read_note", {"path": "Other"})
                answered.set()
            assert waited == [True] and "# Other" in other["content"]
            monkeypatch.setattr(graph_moves, "rewrite_note", rewrite_note)
            while pages[-1]["next_cursor"]:
                pages.append(await ok(first, "rename_note", {**args, "cursor": pages[-1]["next_cursor"]}))
            assert len(pages) == N // 40 + 1 and {p["notes_rewritten"] for p in pages} == {N}
            assert {p["links_rewritten"] for p in pages} == {N}  # one line per note
            items = [i for p in pages for i in p["items"]]
            assert [i["path"] for i in items] == [f"Notes/n{i:03}.md" for i in range(N)]
            assert items[7]["changes"] == [
                {
                    "line": 3,
                    "before": "See [[Hub]] and [m](../Hub.md).",
                    "after": "See [[Centre]] and [m](../Centre.md).",
                }
            ]
            assert harness.read("Notes/n007.md").startswith("# Note 7\n\nSee [[Hub]]")  # a preview changes nothing
            done = await ok(first, "rename_note", {"path": "Hub", "new_path": "Centre"})
            assert done["notes_rewritten"] == N and len(done["items"]) == 50 and done["truncated"] is True
            note = await ok(second, "read_note", {"path": "Notes/n299"})
            assert AFTER in note["content"]
            seen: set[str] = set()
            # the renaming client's own writes are indexed before its reads (the other client's reads
            # may come before the rename's index batch is applied)
            page = await ok(first, "get_backlinks", {"path": "Centre", "limit": 200})
            seen.update(b["path"] for b in page["items"])
            while page["next_cursor"]:
                page = await ok(first, "get_backlinks", {"path": "Centre", "limit": 200, "cursor": page["next_cursor"]})
                seen.update(b["path"] for b in page["items"])
            assert seen == {f"Notes/n{i:03}.md" for i in range(N)}


async def test_an_applied_hub_rename_indexed_in_parts_is_seen_whole(make_vault: Callable[..., Path]) -> None:
    """More notes rewritten than one index part holds (`apply.CHUNK`): the index applies them in
    parts, and a client then finds every one of them by the new link (backlinks, text and regex
    search), as after one batch."""
    n = apply.CHUNK + 120
    files = {f"Notes/n{i:04}.md": f"# Note {i}\n\nSee [[Hub]] about zircon{i}.\n" for i in range(n)}
    files["Hub.md"] = "# Hub\n"
    async with e2e(make_vault(files)) as (url, harness):
        await harness.indexed()
        async with Client(url, mode="legacy") as client:
            done = await ok(client, "rename_note", {"path": "Hub", "new_path": "Centre"})
            assert done["notes_rewritten"] == n
            await harness.settled()
            seen: set[str] = set()
            page = await ok(client, "get_backlinks", {"path": "Centre", "limit": 200})
            seen.update(b["path"] for b in page["items"])
            while page["next_cursor"]:
                page = await ok(
                    client, "get_backlinks", {"path": "Centre", "limit": 200, "cursor": page["next_cursor"]}
                )
                seen.update(b["path"] for b in page["items"])
            assert seen == {f"Notes/n{i:04}.md" for i in range(n)}
            for i in (0, n - 1):  # a note of the first part and one of the last
                hits = await ok(client, "search_text", {"query": f"zircon{i}"})
                assert [h["path"] for h in hits["items"]] == [f"Notes/n{i:04}.md"]
            regex = await ok(client, "search_regex", {"pattern": r"\[\[Centre\]\] about zircon", "limit": 1})
            assert regex["items"] and regex["items"][0]["path"].startswith("Notes/")
