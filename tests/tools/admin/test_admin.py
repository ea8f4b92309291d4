"""Admin tools: health, redacted config, metrics summary, audit log, vaults, reload, cache reset."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from service.indexer.runner import VaultIndexer, indexer_of
from service.types import Principal
from tests.conftest import Harness, snapshot, started

SECRET = "s3cret-value-that-must-never-leak-0123456789"


@pytest.mark.covers("server_health", "success")
async def test_server_health_reports_versions_backends_and_index_state(vg: Harness) -> None:
    await vg.indexed()
    out = await vg.ok("server_health")
    assert set(out["versions"]) == {"vaultgate", "python", "sqlite", "mcp"}
    assert out["versions"]["python"].startswith("3.") and out["versions"]["mcp"]
    assert out["backends"]["fts5"] is True
    assert out["embedding_model"] is None and out["bridge"] == "none configured"
    assert out["vaults"] == [
        {"vault": "main", "state": "ready", "ready": True, "backlog": 0, "skipped_files": 0, "fallback_encoding": 0}
    ]
    assert out["status"] == "ok"


@pytest.mark.covers("get_server_config", "success")
async def test_server_config_never_contains_a_secret(make_vault: Callable[..., Path]) -> None:
    overrides = {
        "auth": {"mode": "jwt", "jwt_secret": SECRET},
        "otel": {"headers": {"x-api-key": SECRET}},
        "events": {"push_url": f"http://user:{SECRET}@127.0.0.1:9/events", "spool": False},
    }
    async with started(make_vault({".obsidian/plugins/dataview/manifest.json": "{}"}), **overrides) as vg:
        out = await vg.ok("get_server_config")
    dump = json.dumps(out)
    assert SECRET not in dump
    assert out["config"]["auth"]["mode"] == "jwt" and out["config"]["otel"]["headers"] == {"x-api-key": "**********"}
    assert out["plugins"] == ["dataview"]


async def test_server_config_reveals_no_absolute_host_path(make_vault: Callable[..., Path], tmp_path: Path) -> None:
    root = make_vault({"A.md": "# A\n"}, name="My Vault")
    config = tmp_path / "conf" / "vaultgate.toml"
    config.parent.mkdir()
    jwks = tmp_path / "elsewhere" / "keys.json"
    jwks.parent.mkdir()
    jwks.write_text('{"keys": []}')
    config.write_text(
        f'[[vaults]]\nid = "main"\npath = "{root.as_posix()}"\n\n[storage]\ncache_dir = "cache"\n'
        f'data_dir = "{(tmp_path / "kept" / "data").as_posix()}"\n\n'
        f'[events]\nspool_dir = "{(root / "spool").as_posix()}"\n\n[auth]\njwks_file = "{jwks.as_posix()}"\n'
    )
    async with started(config) as vg:
        out = await vg.ok("get_server_config")
    dump = json.dumps(out)
    assert str(tmp_path) not in dump and str(root) not in dump
    assert out["config"]["vaults"][0]["path"] == "My Vault"
    assert out["config"]["storage"]["cache_dir"] == "<config dir>/cache"
    assert out["config"]["storage"]["data_dir"] == "<outside the config dir>/data"
    assert out["config"]["events"]["spool_dir"] == "<vault main>/spool"
    assert out["config"]["auth"]["jwks_file"] == "<outside the config dir>/keys.json"


@pytest.mark.covers("get_server_config", "failure")
async def test_get_server_config_needs_the_admin_scope(vg: Harness) -> None:
    vg.principal = Principal(subject="reader", scopes=frozenset({"read:vault"}), authenticated=True)
    await vg.err("get_server_config", "forbidden")
    assert (await vg.ok("server_health"))["status"] in ("ok", "degraded")


@pytest.mark.covers("get_metrics", "success")
async def test_get_metrics_summarises_calls_per_tool_with_errors(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"A.md": "# A\n"})) as vg:
        await vg.ok("read_note", path="A")
        await vg.ok("read_note", path="A")
        await vg.err("read_note", "note_not_found", path="Nope")
        out = await vg.ok("get_metrics")
    [read] = [i for i in out["items"] if i["tool"] == "read_note"]
    assert read["vault"] == "main" and read["calls"] == 3 and read["errors"] == 1
    assert read["by_status"] == {"ok": 2, "note_not_found": 1} and read["mean_ms"] > 0


async def test_audit_log_filters_and_pages_newest_first(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"A.md": "# A\n"})) as vg:
        for _ in range(3):
            await vg.ok("read_note", path="A")
        await vg.err("read_note", "note_not_found", path="Nope")
        first = await vg.ok("get_audit_log", tool="read_note", limit=2)
        second = await vg.ok("get_audit_log", tool="read_note", limit=2, cursor=first["next_cursor"])
        failed = await vg.ok("get_audit_log", status="note_not_found")
        errors = await vg.ok("get_audit_log", status="error", tool="read_note")
    ids = [r["id"] for r in first["items"] + second["items"]]
    assert len(ids) == 4 and ids == sorted(ids, reverse=True) and second["next_cursor"] is None
    assert first["items"][0]["error_code"] == "note_not_found"
    assert [r["error_code"] for r in failed["items"]] == ["note_not_found"]
    assert len(errors["items"]) == 1 and "Nope" not in json.dumps(errors)


@pytest.mark.covers("get_audit_log", "success")
@pytest.mark.covers("get_audit_log", "failure")
async def test_audit_log_rejects_a_cursor_from_another_filter(vg: Harness) -> None:
    for _ in range(2):
        await vg.ok("list_notes")
    page = await vg.ok("get_audit_log", limit=1)
    await vg.err("get_audit_log", "validation_error", tool="list_notes", limit=1, cursor=page["next_cursor"])


@pytest.mark.covers("list_vaults", "success")
@pytest.mark.covers("list_vaults", "failure")
async def test_list_vaults_shows_ids_names_and_note_counts(make_vault: Callable[..., Path]) -> None:
    main, other = make_vault({"A.md": "# A\n", "B.md": "# B\n"}, name="one"), make_vault({"C.md": "# C\n"}, name="two")
    vaults = [{"id": "main", "path": main, "name": "Main"}, {"id": "other", "path": other}]
    async with started(main, vaults=vaults) as vg:
        await vg.indexed()
        out = await vg.ok("list_vaults")
        vg.principal = Principal(subject="bound", scopes=frozenset({"read:vault"}), vault="other", authenticated=True)
        bound = await vg.ok("list_vaults", vault="other")
        health = await vg.ok("server_health", vault="other")
        await vg.err("list_vaults", "forbidden", vault="main")
        vg.principal = Principal(subject="claimless", scopes=frozenset({"read:vault"}), vault=None, authenticated=True)
        claimless = await vg.ok("list_vaults")
    assert [v["id"] for v in claimless["items"]] == ["main"]  # no claim, several vaults: the default one only
    assert out["items"] == [
        {"id": "main", "name": "Main", "default": True, "read_only": False, "notes": 2},
        {"id": "other", "name": "two", "default": False, "read_only": False, "notes": 1},
    ]
    assert [v["id"] for v in bound["items"]] == ["other"]  # a vault-bound token sees only its vault
    assert [v["vault"] for v in health["vaults"]] == ["other"]


@pytest.mark.covers("reload_vault", "success")
async def test_reload_vault_reports_added_and_changed_vaults(tmp_path: Path, make_vault: Callable[..., Path]) -> None:
    main, extra = make_vault({"A.md": "# A\n"}, name="one"), make_vault(name="two")
    config = tmp_path / "vaultgate.toml"
    config.write_text(f'[[vaults]]\nid = "main"\npath = "{main}"\n', encoding="utf-8")
    async with started(config) as vg:
        before = snapshot(main)
        same = await vg.ok("reload_vault")
        config.write_text(
            f'[[vaults]]\nid = "main"\npath = "{main}"\nname = "Renamed"\n[[vaults]]\nid = "extra"\npath = "{extra}"\n',
            encoding="utf-8",
        )
        diff = await vg.ok("reload_vault")
        config.write_text("[[vaults]\nbroken", encoding="utf-8")
        broken = await vg.ok("reload_vault")
        assert snapshot(main) == before
    assert same == {"valid": True, "error": None, "added": [], "removed": [], "changed": {}, "applied": []}
    assert diff["added"] == ["extra"] and diff["changed"] == {"main": ["name"]} and diff["valid"] is True
    assert broken["valid"] is False and "TOML" in broken["error"]


async def test_reset_vault_cache_needs_confirmation_and_changes_nothing_until_confirmed(
    make_vault: Callable[..., Path],
) -> None:
    async with started(make_vault({"A.md": "# A\n#tag\n"})) as vg:
        await vg.indexed()
        before = vg.snapshot()
        await vg.err("reset_vault_cache", "elicit_required")
        count = await vg.app.services.db.fetchone("SELECT count(*) FROM notes")
        assert count[0] == 1 and vg.snapshot() == before


@pytest.mark.covers("reset_vault_cache", "success")
@pytest.mark.covers("reset_vault_cache", "failure")
async def test_reset_vault_cache_drops_and_rebuilds_the_index(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"A.md": "# A\n#tag\n", "B.md": "[[A]]\n"})) as vg:
        await vg.indexed()
        before = vg.snapshot()
        await vg.app.services.db.run_write(lambda c: c.execute("UPDATE notes SET title = 'stale'"))
        out = await vg.confirmed("reset_vault_cache")
        titles = await vg.app.services.db.fetchall("SELECT title FROM notes ORDER BY path")
        assert vg.snapshot() == before
    assert out["dropped_notes"] == 2 and out["reindexed"] == 2
    assert [t[0] for t in titles] == ["A", "B"]


@pytest.mark.covers("reset_vault_cache", "failure")
async def test_reset_vault_cache_refuses_while_a_reindex_runs(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"A.md": "# A\n"})) as vg:
        await vg.indexed()
        token = await vg.token_for("reset_vault_cache")
        jobs = vg.app.index_jobs
        indexer = next(c for c in vg.app.components if isinstance(c, VaultIndexer))
        async with indexer._apply_lock:  # holds the launched reindex before it can finish
            job, _, task = await jobs.launch(indexer, "full")
            await vg.err("reset_vault_cache", "conflict", elicit_token=token)
            count = await vg.app.services.db.fetchone("SELECT count(*) FROM notes")
        await task
        assert count[0] == 1 and job.status == "done"


async def test_audit_log_of_all_vaults_includes_server_events(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"A.md": "# A\n"})) as vg:
        await vg.ok("read_note", path="A")
        await vg.app.maintenance.sweep_once()
        own = await vg.ok("get_audit_log")
        everything = await vg.ok("get_audit_log", all_vaults=True)
    assert [r["tool"] for r in own["items"]] == ["read_note"]
    assert [(r["tool"], r["vault"]) for r in everything["items"]][:3] == [
        ("get_audit_log", "main"),
        ("maintenance", None),
        ("read_note", "main"),
    ]


async def test_reload_vault_can_serve_an_added_vault_with_its_own_acl(
    tmp_path: Path, make_vault: Callable[..., Path]
) -> None:
    main, extra = (
        make_vault({"A.md": "# A\n"}, name="one"),
        make_vault({"Open.md": "# O\n", "Secret/S.md": "# S\n"}, name="two"),
    )
    config = tmp_path / "vaultgate.toml"
    config.write_text(f'[[vaults]]\nid = "main"\npath = "{main}"\n', encoding="utf-8")
    async with started(config) as vg:
        await vg.err("read_note", "vault_not_found", vault="extra", path="Open")
        config.write_text(
            f'[[vaults]]\nid = "main"\npath = "{main}"\n'
            f'[[vaults]]\nid = "extra"\npath = "{extra}"\n'
            '[[vaults.acl.prefix_rules]]\npath = "Secret"\nread = "deny"\n',
            encoding="utf-8",
        )
        out = await vg.ok("reload_vault", apply=True)
        note = await vg.ok("read_note", vault="extra", path="Open")
        await vg.err("read_note", "acl_denied", vault="extra", path="Secret/S")
        await vg.ok("read_note", path="A")
        indexer = indexer_of(vg.app.vaults["extra"])
        assert indexer is not None
        await indexer.wait_ready(60)
        listed = await vg.ok("list_vaults")
        again = await vg.ok("reload_vault", apply=True)
    assert out["added"] == ["extra"] and out["applied"] == ["extra"]
    assert note["path"] == "Open.md"
    assert [(v["id"], v["notes"]) for v in listed["items"]] == [("main", 1), ("extra", 1)]
    assert again["added"] == [] and again["applied"] == []
