"""search_vault and search_notes take the date filters of the other search tools
(`modified_after` / `modified_before`) in every mode, and their items carry the `sensitive` flag
(T5 #9): here the modes that need no embeddings; tests/semantic/test_search_modes_by_meaning.py
has the semantic and hybrid modes."""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import started

KEY = "sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c"
NOTES = {
    "Old/Alpha.md": "---\ntags: [project]\nstatus: active\n---\n# Alpha\n\nThe rocket launch plan for the moon.\n",
    "New/Beta.md": "---\ntags: [project]\nstatus: active\n---\n# Beta\n\nThe rocket engine test on the stand.\n",
    "Keys.md": f"---\ntags: [project]\nstatus: active\n---\n# Keys\n\nThe rocket console key is {KEY} today.\n",
}
OLD = dt.datetime(2020, 1, 1, tzinfo=dt.UTC).timestamp()
MID = dt.datetime(2026, 6, 1, tzinfo=dt.UTC).timestamp()
WINDOW = {"modified_after": "2025-01-01", "modified_before": "2026-07-01"}  # Beta only


def dated_vault(make_vault: Callable[..., Path]) -> Path:
    root = make_vault(NOTES)
    os.utime(root / "Old/Alpha.md", (OLD, OLD))
    os.utime(root / "New/Beta.md", (MID, MID))
    return root  # Keys.md: modified now (after the window)


def paths(out: dict[str, Any]) -> list[str]:
    return sorted(i["path"] for i in out["items"])


async def test_search_vault_takes_the_date_filters_in_every_mode(make_vault: Callable[..., Path]) -> None:
    async with started(dated_vault(make_vault)) as h:
        await h.indexed()
        cases: list[dict[str, Any]] = [
            {"mode": "text", "query": "rocket"},
            {"mode": "regex", "query": "/rock(et)/i"},
            {"mode": "tags", "tags": ["project"]},
            {"mode": "properties", "filters": [{"key": "status", "op": "==", "value": "active"}]},
            {"mode": "jsonlogic", "logic": {"in": ["project", {"var": "tags"}]}},
            {"mode": "hybrid", "query": "rocket", "tags": ["project"]},
        ]
        for args in cases:
            every = await h.ok("search_vault", **args)
            assert paths(every) == ["Keys.md", "New/Beta.md", "Old/Alpha.md"], args
            assert paths(await h.ok("search_vault", **args, **WINDOW)) == ["New/Beta.md"], args
            after = await h.ok("search_vault", **args, modified_after="2025-01-01T00:00:00Z")
            assert paths(after) == ["Keys.md", "New/Beta.md"], args
            before = await h.ok("search_vault", **args, modified_before=dt.date(2026, 6, 1).isoformat())
            assert paths(before) == ["Old/Alpha.md"], args  # before: Beta's mtime is the bound itself
        # pages of a dated search hold only notes of the window, and a cursor keeps it
        page = await h.ok("search_vault", mode="text", query="rocket", modified_after="2025-01-01", limit=1)
        rest = await h.ok(
            "search_vault", mode="text", query="rocket", modified_after="2025-01-01", cursor=page["next_cursor"]
        )
        assert sorted(paths(page) + paths(rest)) == ["Keys.md", "New/Beta.md"]
        await h.err("search_vault", "validation_error", mode="text", query="rocket", cursor=page["next_cursor"])
        await h.err("search_vault", "validation_error", mode="text", query="rocket", modified_after="yesterday")


async def test_search_vault_items_flag_a_note_holding_a_secret_in_every_mode(make_vault: Callable[..., Path]) -> None:
    async with started(dated_vault(make_vault)) as h:
        await h.indexed()
        for args in (
            {"mode": "text", "query": "rocket console"},
            {"mode": "regex", "query": "/console key/"},
            {"mode": "tags", "tags": ["project"]},
            {"mode": "jsonlogic", "logic": {"in": ["project", {"var": "tags"}]}},
            {"mode": "hybrid", "query": "rocket", "tags": ["project"]},
        ):
            out = await h.ok("search_vault", **args)
            flagged = {i["path"]: i["sensitive"] for i in out["items"]}
            assert flagged["Keys.md"] is True, (args, out["items"])
            assert not any(v for p, v in flagged.items() if p != "Keys.md"), (args, flagged)
            assert KEY not in str(out), args  # the snippet shows the secret redacted


async def test_search_notes_takes_the_date_filters_and_flags_secrets(make_vault: Callable[..., Path]) -> None:
    async with started(dated_vault(make_vault)) as h:
        await h.indexed()
        for args in (
            {"mode": "full_text", "query": "rocket"},
            {"mode": "tags", "tags": ["project"]},
            {"mode": "properties", "properties": {"status": "active"}},
            {"mode": "hybrid", "query": "rocket"},
        ):
            every = await h.ok("search_notes", **args)
            assert every["total"] == 3, args
            assert {i["path"]: i["sensitive"] for i in every["items"]} == {
                "Keys.md": True,
                "New/Beta.md": False,
                "Old/Alpha.md": False,
            }, args
            assert KEY not in str(every), args
            dated = await h.ok("search_notes", **args, **WINDOW)
            assert paths(dated) == ["New/Beta.md"] and dated["total"] == 1, args
        first = await h.ok("search_notes", mode="full_text", query="rocket", modified_after="2025-01-01", limit=1)
        assert first["total"] == 2 and first["next_cursor"]
        await h.err("search_notes", "validation_error", mode="full_text", query="rocket", modified_before="soon")
