"""Secrets never leak through a snippet, a chunk or a bundle while redaction is on, and notes
holding one are left out of semantic results under `exclude` (seed 003's sensitive guard)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.semantic.helpers import VAULT, semantic, settled

KEY_LINE = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7"
SECRETS = ["hunter2pass", "AKIAIOSFODNN7EXAMPLE", "IOSFODNN7", KEY_LINE, "4111 1111 1111 1111", "4111-1111"]
LEAKY = {
    **VAULT,
    "Ops/Servers.md": "---\npassword: hunter2pass\ntags: [ops]\n---\n# Backup server\n\n"
    "The backup server uploads nightly archives to cloud storage with key AKIAIOSFODNN7EXAMPLE.\n\n"
    f"## Deploy key\n-----BEGIN PRIVATE KEY-----\n{KEY_LINE}\nq83kdl2k\n-----END PRIVATE KEY-----\n",
    "Ops/Card.md": "# Hosting card\n\nThe company card 4111 1111 1111 1111 pays the backup server hosting invoices.\n",
}


def assert_clean(result: dict[str, Any]) -> None:
    shown = {k: v for k, v in result.items() if k != "query"}  # search_text echoes the caller's own query
    dumped = json.dumps(shown, ensure_ascii=False)
    for secret in SECRETS:
        assert secret not in dumped, (secret, dumped[:2000])


def paths_of(result: dict[str, Any]) -> set[str]:
    items = result.get("items") or result.get("results") or result.get("entries") or []
    return {i.get("path") or i.get("source_file") for i in items}


CALLS: list[tuple[str, dict[str, Any]]] = [
    ("search_text", {"query": "backup server"}),
    ("search_text", {"query": "AKIAIOSFODNN7EXAMPLE"}),
    ("search_text", {"query": KEY_LINE}),
    ("search_text", {"query": "company card"}),
    ("search_regex", {"pattern": r"AKIA\w+"}),
    ("search_regex", {"pattern": r"^MIIE"}),
    ("search_regex", {"pattern": r"card \d"}),
    ("search_notes", {"query": "backup server"}),
    ("search_notes", {"query": "backup server", "mode": "hybrid"}),
    ("search_notes", {"query": "ops", "mode": "tags"}),
    ("search_vault", {"query": "backup server"}),
    ("search_vault", {"query": "backup archives", "mode": "semantic"}),
    ("search_vault", {"query": "backup server", "mode": "hybrid"}),
    ("search_hybrid", {"query": "where do the backups go"}),
    ("search_semantic", {"query": "nightly archives uploaded to the cloud"}),
    ("search_semantic", {"query": "paying for hosting with a credit card"}),
    ("find_similar", {"path": "Ops/Card.md"}),
    ("rag_search", {"query": "backup server deploy key", "max_results": 10}),
    ("rag_search", {"query": "company card number", "max_results": 10}),
    ("graphrag_query", {"query": "where do the backups go"}),
    ("graphrag_query", {"query": "paying for hosting with a credit card"}),
    ("bundle_folder", {"folder": "Ops"}),
    ("bundle_folder", {"folder": "Ops", "max_bytes": 300}),
    ("bundle_files", {"paths": ["Ops/Servers.md"], "mode": "frontmatter"}),
]


async def test_no_secret_leaks_through_snippets_chunks_or_bundles(make_vault: Callable[..., Path]) -> None:
    async with semantic(make_vault(LEAKY)) as h:
        found: set[str] = set()
        for tool, args in CALLS:
            out = await h.ok(tool, **args)
            assert_clean(out)
            found |= paths_of(out)
        assert {"Ops/Servers.md", "Ops/Card.md"} <= found  # the notes are found, their secrets hidden
        rag = await h.ok("rag_search", query="backup server deploy key", max_results=10)
        ops = [r for r in rag["results"] if r["source_file"] == "Ops/Servers.md"]
        assert ops and all(r["sensitive"] for r in ops) and rag["sensitive_detected"]
        assert any("[REDACTED:" in r["chunk_text"] for r in ops)
        hybrid = await h.ok("search_hybrid", query="nightly archives uploaded to the cloud")
        flags = {i["path"]: i["sensitive"] for i in hybrid["items"]}
        assert flags["Ops/Servers.md"] is True and flags.get("Travel/Japan.md", False) is False
        notes = await h.ok("search_notes", query="ops", mode="tags")
        assert notes["items"][0]["properties"]["password"] == "[REDACTED:secret_value]"
        text = await h.ok("search_text", query="AKIAIOSFODNN7EXAMPLE")
        assert text["items"][0]["highlights"] == [] and "[REDACTED" in text["items"][0]["snippet"]


async def test_exclude_mode_leaves_secret_notes_out_of_semantic_results(make_vault: Callable[..., Path]) -> None:
    async with semantic(make_vault(LEAKY), sensitive={"mode": "exclude"}) as h:
        for tool, args in CALLS:
            out = await h.ok(tool, **args)
            assert_clean(out)
            by_meaning = tool in ("search_hybrid", "search_semantic", "find_similar", "rag_search", "graphrag_query")
            if by_meaning or args.get("mode") in ("hybrid", "semantic"):
                assert not paths_of(out) & {"Ops/Servers.md", "Ops/Card.md"}, (tool, args, out)
        text = await h.ok("search_text", query="backup server")
        assert "Ops/Servers.md" in paths_of(text)  # text search still finds it, redacted


RUNBOOK = {**LEAKY, "Ops/Runbook.md": "# Runbook\n\nThe nightly backup routine: see [[Servers]], paid by [[Card]].\n"}


def graph_paths(out: dict[str, Any]) -> set[str]:
    """Every note a graphrag_query answer names: results, seeds and the hops of link paths."""
    hops = {s[end] for i in out["items"] for s in i["link_path"] for end in ("source", "target")}
    return {i["path"] for i in out["items"]} | set(out["seeds"]) | hops


async def test_graphrag_redacts_and_flags_secret_notes_it_reaches(make_vault: Callable[..., Path]) -> None:
    """graphrag_query shows chunks as search_hybrid does: secrets redacted, `sensitive` set on a
    note holding one, whether the note is a hybrid hit or reached along a link."""
    async with semantic(make_vault(RUNBOOK)) as h:
        out = await h.ok("graphrag_query", query="nightly backup routine", limit=20)
        assert_clean(out)
        flags = {i["path"]: i["sensitive"] for i in out["items"]}
        assert flags["Ops/Servers.md"] is True and flags["Ops/Card.md"] is True
        assert flags.get("Travel/Japan.md", False) is False
        servers = next(i for i in out["items"] if i["path"] == "Ops/Servers.md")
        assert servers["chunk"] is None or "AKIA" not in servers["chunk"]


async def test_graphrag_under_exclude_never_reaches_a_secret_note(make_vault: Callable[..., Path]) -> None:
    """Under `exclude` a note holding a secret is no seed, no hop and no result of graphrag_query,
    even when a clean hit links to it (its place goes to the next neighbour)."""
    async with semantic(make_vault(RUNBOOK), sensitive={"mode": "exclude"}) as h:
        for query in ("nightly backup routine", "backup server archives", "hosting card invoices"):
            out = await h.ok("graphrag_query", query=query, limit=20, hops=2)
            assert_clean(out)
            assert "Ops/Runbook.md" in graph_paths(out), out
            assert not graph_paths(out) & {"Ops/Servers.md", "Ops/Card.md"}, (query, out)


ANTHROPIC = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ"
HEADED = {
    **VAULT,
    "Ops/Tokens.md": f"# Tokens\n\n## Token {ANTHROPIC}\n\nThis section is about the deploy token for the pipeline.\n",
    "Ops/Config.md": "---\npassword: hunter2pass\napi_key: zq9xv8wu7ts6\n---\n",
    "Ops/Setup.md": "# Setup\n\nThe deploy pipeline config:\n\n```yaml\npassword: hunter2pass\n```\n",
}


async def test_a_secret_in_a_heading_is_redacted_in_headings_and_links(make_vault: Callable[..., Path]) -> None:
    """A heading is shown text too: every tool by meaning redacts a secret in it (`heading`,
    `section`, left-out passages) and links to the note, not to the heading that holds it."""
    q = "deploy token for the pipeline"
    async with semantic(make_vault(HEADED)) as h:
        for tool, args in (
            ("search_semantic", {"query": q}),
            ("search_hybrid", {"query": q}),
            ("rag_search", {"query": q, "max_results": 10}),
            ("context_for_query", {"query": q, "max_tokens": 60}),
            ("search_vault", {"query": q, "mode": "semantic"}),
            ("graphrag_query", {"query": q}),
            ("find_similar", {"path": "Ops/Setup.md"}),
        ):
            out = await h.ok(tool, **args)
            dumped = json.dumps(out)
            for secret in (ANTHROPIC, ANTHROPIC.replace("-", "%2D"), "hunter2pass", "zq9xv8wu7ts6"):
                assert secret not in dumped, (tool, secret, dumped[:3000])
            items = out.get("items") or out.get("results") or out.get("passages") or []
            tokens = [i for i in items if i["path"] == "Ops/Tokens.md"]
            assert tokens, (tool, out)
            shown = [i.get("heading") or i.get("section") for i in tokens]
            if tool != "search_vault":  # its items name no heading
                assert any(s and "[REDACTED:anthropic_key]" in s for s in shown), (tool, tokens)
            assert all("%23" not in i["obsidian_url"] for i in tokens), (tool, tokens)


async def test_a_note_edited_to_hold_a_secret_is_scanned_again(make_vault: Callable[..., Path]) -> None:
    """The guard remembers each note's verdict per version (etag): a note that gains a secret
    after a search has seen it clean is redacted at the next search, not served from memory."""
    async with semantic(make_vault({**VAULT, "Ops/Later.md": "# Later\n\nThe backup server runs nightly.\n"})) as h:
        first = await h.ok("find_similar", path="Ops/Later.md")
        later = await h.ok("search_text", query="backup server")
        assert "Ops/Later.md" in paths_of(later) and first
        await h.ok("append_note", path="Ops/Later.md", content="\nIts key is AKIAIOSFODNN7EXAMPLE now.\n")
        await settled(h)
        for tool, args in (
            ("search_text", {"query": "backup server"}),
            ("search_semantic", {"query": "nightly archives uploaded to the cloud"}),
            ("find_similar", {"path": "Ops/Later.md"}),
        ):
            out = await h.ok(tool, **args)
            assert "AKIAIOSFODNN7EXAMPLE" not in json.dumps(out), (tool, out)
        rag = await h.ok("rag_search", query="backup server key", max_results=10)
        assert all(r["sensitive"] for r in rag["results"] if r["source_file"] == "Ops/Later.md")
        assert any(r["source_file"] == "Ops/Later.md" for r in rag["results"])


async def test_searches_by_meaning_scan_only_the_notes_of_their_page(make_vault: Callable[..., Path]) -> None:
    """A page of one note reads and scans for secrets that note only, not every note of the
    ranking (64 chunks for search_semantic, the fused list and its spares for search_hybrid).
    The verdicts stored in the background are dropped first: a search then scans what it shows."""
    from service.tools.sensitive import guard_for

    many = {f"Zoo/Animal {n}.md": f"# Animal {n}\n\nThe animal number {n} eats leaves at the zoo.\n" for n in range(12)}
    async with semantic(make_vault(many)) as h:
        vault = next(iter(h.app.vaults.values()))
        guard = guard_for(h.app.services.settings, vault)
        await _verdicts_dropped(h)
        for tool in ("search_semantic", "search_hybrid"):
            guard.verdicts.clear()
            out = await h.ok(tool, query="what do zoo animals eat", limit=1)
            assert len(out["items"]) == 1 and out["next_cursor"], tool
            assert len(guard.verdicts) == 1, tool
            page2 = await h.ok(tool, query="what do zoo animals eat", limit=1, cursor=out["next_cursor"])
            assert page2["items"][0]["path"] != out["items"][0]["path"], tool


async def _verdicts_dropped(h: Any) -> None:
    """Once the background has stored a verdict for every note, drop them all (it stores again
    only after the index changes)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + 60
    count = "SELECT (SELECT count(*) FROM notes) - (SELECT count(*) FROM secret_verdicts)"
    while (await h.app.db.run_read(lambda c: c.execute(count).fetchone()))[0] > 0:
        assert loop.time() < end, "the verdicts were not stored"
        await asyncio.sleep(0.02)
    await h.app.db.run_write(lambda c: c.execute("DELETE FROM secret_verdicts"))
