"""query_base over real HTTP with the SDK client, in both protocol eras: a view with groups and
summaries, a .base file edited on disk while the server runs, and a syntax error's location."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from service.indexer.runner import indexer_of
from tests.conftest import e2e
from tests.e2e.calls import error, ok
from tests.tools.obsidian.bases_vault import BASES_VAULT


async def test_query_base_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault(BASES_VAULT)) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            out = await ok(client, "query_base", path="Library.base", view="By genre")
            assert [g["key"]["value"] for g in out["groups"]] == ["classic", "scifi", None]
            assert out["summaries"]["read"]["value"]["value"] == 2
            assert out["rows"][0]["obsidian_url"].startswith("obsidian://open")
            err = await error(client, "query_base", yaml="filters:\n  - and: [x\n")
            assert err["code"] == "bases_syntax_error" and err["details"]["line"] >= 2
            # A note added on disk shows up once the watcher indexed it (the snapshot follows the index).
            indexer = indexer_of(next(iter(harness.app.vaults.values())))
            assert indexer is not None
            (harness.root / "Books" / "Ubik.md").write_text("---\ntype: book\nrating: 2\ntags: [book]\n---\n")
            for _ in range(50):
                generation = indexer.generation
                again = await ok(client, "query_base", path="Library.base")
                if "Books/Ubik.md" in [r["path"] for r in again["rows"]]:
                    break
                await indexer.wait_for(lambda g=generation: indexer.generation > g, within=60)  # type: ignore[misc]
            assert [r["path"] for r in again["rows"]][3] == "Books/Ubik.md"  # rating 2 sorts after 3


async def test_a_number_as_a_bases_filter_is_a_syntax_error_over_http(
    make_vault: Callable[..., Path], mode: str
) -> None:
    """`filters: 12` in a .base file (a YAML number, which the Bases syntax does not take as a
    filter) answers bases_syntax_error at its line; it was read as true for every note."""
    files = {**BASES_VAULT, "Numbers.base": "views:\n  - name: v\n    filters: 12\n"}
    async with e2e(make_vault(files)) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            err = await error(client, "query_base", path="Numbers.base")
            assert err["code"] == "bases_syntax_error"
            assert (err["details"]["at"], err["details"]["found"], err["details"]["line"]) == (
                "views[0].filters", "a number", 3)  # fmt: skip
            out = await ok(client, "query_base", yaml="filters: '12'\n")
            assert out["total"] > 0
