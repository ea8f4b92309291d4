"""The bridge tools through the whole dispatch chain, against a stand-in for Obsidian's Local REST
API plugin served over real HTTPS with a self-signed certificate (tests/tools/bridges/standin.py:
it follows the plugin's published OpenAPI and its real behaviour, and the companion's probe
route as deploy/obsidian-plugin serves it).

Covered: each tool's success; a refused key (401), a time-out and a closed Obsidian as
structured errors; the companion missing, seen by the probe and server_health; a certificate
that is not the pinned one refused before any request; safe_commands refusing before anyone is
asked; execute_command asking a human; a path outside the vault sending nothing; the API key in
no result and no log line.
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Harness, started
from tests.tools.bridges.standin import KEY, Obsidian, SelfSigned, closed_port, make_cert, serving

ENV = "VG_TEST_OBSIDIAN_KEY"
FILES = {
    "Daily notes/Café 100%.md": "# Café\n",
    "Board.canvas": '{"nodes": [], "edges": []}',
    "Private/Secret.md": "secret\n",
    "Index.md": "# Index\n",
    "Templates/Daily.md": "# <% tp.date.now() %>\n",
    "Templates/Meeting.md": "# Meeting\n",
    "Projects/Plan.md": "# Plan\n",
}
ACTIVE = {
    "path": "Daily notes/Café 100%.md",
    "content": "---\nmood: good\n---\n# Café\nunsaved edit #coffee\n",
    "frontmatter": {"mood": "good"},
    "tags": ["coffee"],
    "stat": {"ctime": 1732780800000, "mtime": 1732784400000, "size": 52},
}


@contextlib.asynccontextmanager
async def bridged(
    make_vault: Callable[..., Path],
    tmp_path: Path,
    obsidian: Obsidian | None = None,
    *,
    trust: str = "fingerprint",
    url: str | None = None,
    cert: SelfSigned | None = None,
    facade: str = "flat",
    files: dict[str, str | bytes] | None = None,
    **bridge: Any,
) -> AsyncIterator[tuple[Harness, Obsidian]]:
    """The app with one vault (`FILES`, or `files`) bridged to a running stand-in (trusted by its
    fingerprint by default)."""
    obsidian = obsidian or Obsidian()
    cert = cert or make_cert(tmp_path / "tls")
    root = make_vault(files if files is not None else FILES)
    async with serving(obsidian, cert) as standin_url:
        config: dict[str, Any] = {"url": url or standin_url, "api_key_env": ENV, "probe_at_start": False, **bridge}
        if trust == "fingerprint":
            config.setdefault("cert_fingerprint", cert.fingerprint)
        elif trust == "file":
            config.setdefault("cert_file", cert.cert_file)
        acl = {"prefix_rules": [{"path": "Private", "read": "deny", "write": "deny"}]}
        vault = {"id": "main", "path": root, "bridge": config, "acl": acl}
        async with started(root, vaults=[vault], tool_facade={"mode": facade}) as vg:
            yield vg, obsidian


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV, KEY)


# -- open_in_obsidian -----------------------------------------------------------------------


@pytest.mark.covers("open_in_obsidian", "success")
async def test_open_in_obsidian_posts_the_path_encoded_once(make_vault: Callable[..., Path], tmp_path: Path) -> None:
    async with bridged(make_vault, tmp_path) as (vg, obsidian):
        out = await vg.ok("open_in_obsidian", path="Café 100%", new_leaf=True)
        assert out["path"] == "Daily notes/Café 100%.md" and out["opened"] is True and out["title"] == "Café 100%"
        canvas = await vg.ok("open_in_obsidian", path="Board.canvas")
        assert canvas["path"] == "Board.canvas"
    opens = [s for s in obsidian.sent if s.method == "POST"]
    assert [s.raw_path for s in opens] == ["/open/Daily%20notes/Caf%C3%A9%20100%25.md", "/open/Board.canvas"]
    assert opens[0].query == "newLeaf=true" and opens[1].query == ""
    assert obsidian.opened[0][0] == "Daily notes/Café 100%.md"  # the plugin decodes exactly what was meant


async def test_open_in_obsidian_opens_a_base_a_canvas_or_an_image_as_a_link_names_it(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    """Obsidian opens a base, a canvas or an image like a note; open_in_obsidian answered
    not_a_note for 'Bases/Books.base' and note_not_found for 'Books.base' or 'Flow.canvas' by
    name (as `![[Books.base]]` names it), where get_backlinks & co take them (f1f0d245, s74 U7/H2)."""
    files = {**FILES, "Bases/Books.base": "views:\n  - type: table\n    name: All\n", "Maps/Flow.canvas": "{}"}
    files["Attachments/cover.png"] = "png"
    async with bridged(make_vault, tmp_path, files=files) as (vg, obsidian):
        for address, path in [
            ("Bases/Books.base", "Bases/Books.base"),
            ("Books.base", "Bases/Books.base"),
            ("[[Flow.canvas]]", "Maps/Flow.canvas"),
            ("cover.png", "Attachments/cover.png"),
        ]:
            out = await vg.ok("open_in_obsidian", path=address)
            assert out["path"] == path and out["opened"] is True, address
        missing = await vg.err("open_in_obsidian", "note_not_found", path="Missing.base")  # no such base
        assert missing["details"]["kind"] == "base"
        await vg.err("open_in_obsidian", "not_a_note", path="Bases")  # a folder stays refused
    assert [o[0] for o in obsidian.opened] == [
        "Bases/Books.base",
        "Bases/Books.base",
        "Maps/Flow.canvas",
        "Attachments/cover.png",
    ]


@pytest.mark.covers("open_in_obsidian", "failure")
async def test_open_in_obsidian_sends_nothing_for_a_path_outside_the_vault_or_the_acl(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    async with bridged(make_vault, tmp_path) as (vg, obsidian):
        await vg.err("open_in_obsidian", "path_invalid", path="../outside.md")
        await vg.err("open_in_obsidian", "path_invalid", path="/etc/passwd")
        await vg.err("open_in_obsidian", "acl_denied", path="Private/Secret.md")
        await vg.err("open_in_obsidian", "note_not_found", path="Nowhere/New note")  # the plugin would create it
    assert obsidian.sent == []


# -- get_active_note ------------------------------------------------------------------------


@pytest.mark.covers("get_active_note", "success")
async def test_get_active_note_returns_path_content_and_metadata(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    async with bridged(make_vault, tmp_path, Obsidian(active=dict(ACTIVE))) as (vg, obsidian):
        out = await vg.ok("get_active_note")
        assert out["active"] is True and out["path"] == "Daily notes/Café 100%.md" and out["title"] == "Café 100%"
        assert out["content"] == ACTIVE["content"] and out["frontmatter"] == {"mood": "good"}
        assert out["tags"] == ["coffee"] and out["stat"]["size"] == 52
        assert out["obsidian_url"].startswith("obsidian://open?")
        assert (await vg.ok("get_active_note", include_content=False))["content"] is None
        obsidian.active = None
        none = await vg.ok("get_active_note")
        assert none["active"] is False and none["path"] is None
        obsidian.active = dict(ACTIVE, path="Private/Secret.md", content="secret\n")
        hidden = await vg.ok("get_active_note")  # a file the caller may not read is not shown
        assert hidden["active"] is False and hidden["content"] is None
    gets = [s for s in obsidian.sent if s.raw_path == "/active/"]
    assert len(gets) == 4 and all(s.authorization == f"Bearer {KEY}" for s in gets)


@pytest.mark.covers("get_active_note", "failure")
async def test_get_active_note_with_obsidian_closed_is_plugin_unreachable(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    async with bridged(make_vault, tmp_path, url=f"https://127.0.0.1:{closed_port()}") as (vg, _):
        err = await vg.err("get_active_note", "plugin_unreachable")
        assert err["retryable"] is True and err["details"]["plugin"] == "obsidian-local-rest-api"


async def test_a_plugin_that_never_answers_is_plugin_unreachable_after_the_timeout(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    async with bridged(make_vault, tmp_path, Obsidian(hold=True), timeout_s=0.5) as (vg, _):
        err = await vg.err("get_active_note", "plugin_unreachable")
        assert err["details"]["reason"] == "timeout" and err["retryable"] is True


async def test_a_refused_key_is_a_structured_error_naming_the_variable(
    make_vault: Callable[..., Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV, "wrong-key")
    async with bridged(make_vault, tmp_path) as (vg, _):
        err = await vg.err("get_active_note", "plugin_incompatible")
        assert err["details"]["reason"] == "unauthorized" and err["details"]["status"] == 401
        assert err["details"]["error_code"] == 40101 and err["details"]["api_key_env"] == ENV
        assert "wrong-key" not in json.dumps(err)
    monkeypatch.delenv(ENV)
    async with bridged(make_vault, tmp_path / "again") as (vg, obsidian):
        err = await vg.err("list_commands", "plugin_incompatible")
        assert err["details"]["reason"] == "api_key_missing"
    assert obsidian.sent == []  # no key: nothing was sent


async def test_a_vault_without_a_bridge_answers_plugin_missing(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES)) as vg:
        err = await vg.err("get_active_note", "plugin_missing")
        assert err["details"]["plugin"] == "obsidian-local-rest-api" and err["details"]["reason"] == "not_configured"
        health = await vg.ok("server_health")
        assert health["bridge"] == "none configured" and health["bridges"] == []


# -- trust ----------------------------------------------------------------------------------


async def test_a_certificate_that_is_not_the_pinned_one_is_refused_before_any_request(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    other = make_cert(tmp_path / "other", "other")
    pin = ":".join(other.fingerprint[i : i + 2] for i in range(0, 64, 2)).upper()  # as openssl prints it
    async with bridged(make_vault, tmp_path, cert_fingerprint=pin) as (vg, obsidian):
        err = await vg.err("list_commands", "plugin_incompatible")
        assert err["details"]["reason"] == "certificate_mismatch"
        assert err["details"]["expected_fingerprint"].replace(":", "").lower() == other.fingerprint
        report = (await vg.ok("server_health", probe_bridges=True))["bridges"][0]
        assert report["state"] == "incompatible" and report["error"]["reason"] == "certificate_mismatch"
    assert obsidian.sent == []  # not even GET /


async def test_cert_file_trusts_the_plugin_and_another_file_does_not(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    async with bridged(make_vault, tmp_path, trust="file") as (vg, _):
        assert (await vg.ok("list_commands"))["total"] == 3
    other = make_cert(tmp_path / "other", "other")
    async with bridged(make_vault, tmp_path / "b", trust="file", cert_file=other.cert_file) as (vg, obsidian):
        err = await vg.err("list_commands", "plugin_incompatible")
        assert err["details"]["reason"] == "certificate_untrusted"
    async with bridged(make_vault, tmp_path / "c", trust="system") as (vg, _):  # the system store knows it not
        err = await vg.err("list_commands", "plugin_incompatible")
        assert err["details"]["reason"] == "certificate_untrusted"
    assert obsidian.sent == []


# -- list_commands / execute_command --------------------------------------------------------


@pytest.mark.covers("list_commands", "success")
async def test_list_commands_lists_pages_and_marks_the_safe_ones(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    async with bridged(make_vault, tmp_path, safe_commands=["editor:save-file"]) as (vg, _):
        out = await vg.ok("list_commands")
        assert [(c["id"], c["safe"]) for c in out["items"]] == [
            ("editor:save-file", True),
            ("graph:open", False),
            ("app:delete-file", False),
        ]
        page = await vg.ok("list_commands", limit=2)
        assert len(page["items"]) == 2 and page["next_cursor"] is not None
        rest = await vg.ok("list_commands", limit=2, cursor=page["next_cursor"])
        assert [c["id"] for c in rest["items"]] == ["app:delete-file"]
        found = await vg.ok("list_commands", query="GRAPH view")
        assert [c["id"] for c in found["items"]] == ["graph:open"] and found["total"] == 1


@pytest.mark.covers("list_commands", "failure")
async def test_list_commands_with_a_refused_key_is_plugin_incompatible(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    async with bridged(make_vault, tmp_path, Obsidian(key="another-key")) as (vg, _):
        err = await vg.err("list_commands", "plugin_incompatible")
        assert err["details"]["reason"] == "unauthorized"


@pytest.mark.covers("execute_command", "success")
async def test_execute_command_runs_a_safe_command_once_a_human_confirms(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    async with bridged(make_vault, tmp_path, safe_commands=["editor:save-file"]) as (vg, obsidian):
        token = await vg.token_for("execute_command", command_id="editor:save-file")  # asked first
        assert obsidian.executed == [] and not [s for s in obsidian.sent if s.method == "POST"]
        out = await vg.ok("execute_command", command_id="editor:save-file", elicit_token=token)
        assert out == {"command_id": "editor:save-file", "executed": True}
    assert obsidian.executed == ["editor:save-file"]
    [post] = [s for s in obsidian.sent if s.method == "POST"]
    assert post.raw_path == "/commands/editor%3Asave-file/"


@pytest.mark.covers("execute_command", "failure")
async def test_execute_command_refuses_an_unlisted_command_before_anyone_is_asked(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    async with bridged(make_vault, tmp_path, safe_commands=["editor:save-file"]) as (vg, obsidian):
        err = await vg.err("execute_command", "forbidden", command_id="app:delete-file")
        assert err["details"]["reason"] == "not_in_safe_commands"
        assert await vg.app.state.fetchall("SELECT tool FROM confirmation_requests", []) == []
    async with bridged(make_vault, tmp_path / "none") as (vg, _):  # empty safe_commands: nothing may run
        err = await vg.err("execute_command", "forbidden", command_id="editor:save-file")
        assert err["details"]["safe_commands"] == []
    assert obsidian.sent == [] and obsidian.executed == []


async def test_execute_command_needs_the_execute_scope(make_vault: Callable[..., Path], tmp_path: Path) -> None:
    from service.types import Principal

    async with bridged(make_vault, tmp_path, safe_commands=["editor:save-file"]) as (vg, obsidian):
        vg.principal = Principal("reader", frozenset({"read:vault", "write:vault"}))
        await vg.err("execute_command", "forbidden", command_id="editor:save-file")
        assert (await vg.ok("list_commands"))["total"] == 3  # reading the palette needs no more
    assert obsidian.executed == []


async def test_an_unknown_command_is_a_validation_error(make_vault: Callable[..., Path], tmp_path: Path) -> None:
    async with bridged(make_vault, tmp_path, safe_commands=["no-such:command"]) as (vg, _):
        # refused before anyone is asked: the precheck reads Obsidian's palette first
        err = await vg.err("execute_command", "validation_error", command_id="no-such:command")
        assert err["details"]["reason"] == "unknown_command"


# -- probe and server_health ----------------------------------------------------------------


async def test_server_health_shows_the_probe_at_start_with_the_companion(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    async with bridged(make_vault, tmp_path, probe_at_start=True) as (vg, _):
        await vg.app.services.bridges.settled()
        health = await vg.ok("server_health")
        [report] = health["bridges"]
        assert health["bridge"] == "1 of 1 ready"
        assert report["state"] == "ready" and report["authenticated"] is True
        assert report["plugin_version"] == "3.2.0" and report["obsidian_version"] == "1.8.10"
        assert report["companion"] is True and report["companion_version"] == "0.1.0"
        assert "get /vaultgate/v1/probe/" in report["companion_routes"]
        plugins = {p["id"]: p for p in report["community_plugins"]}
        assert plugins["templater-obsidian"] == {"id": "templater-obsidian", "installed": True, "version": "2.11.1"}
        assert plugins["quickadd"]["installed"] is False


async def test_the_probe_reports_a_missing_companion_and_a_closed_obsidian(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    async with bridged(make_vault, tmp_path, Obsidian(companion=False)) as (vg, _):
        before = (await vg.ok("server_health"))["bridges"][0]
        assert before["state"] == "not_probed" and before["checked_at"] is None
        report = (await vg.ok("server_health", probe_bridges=True))["bridges"][0]
        assert report["state"] == "ready" and report["companion"] is False and report["companion_routes"] == []
    async with bridged(make_vault, tmp_path / "closed", url=f"https://127.0.0.1:{closed_port()}") as (vg, _):
        health = await vg.ok("server_health", probe_bridges=True)
        assert health["bridge"] == "0 of 1 ready"
        report = health["bridges"][0]
        assert report["state"] == "unreachable" and report["error"]["code"] == "plugin_unreachable"
        assert report["companion"] is None


async def test_the_probe_reports_a_refused_key(
    make_vault: Callable[..., Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV, "wrong-key")
    async with bridged(make_vault, tmp_path) as (vg, _):
        report = (await vg.ok("server_health", probe_bridges=True))["bridges"][0]
        assert report["state"] == "unauthorized" and report["authenticated"] is False
        assert report["plugin_version"] == "3.2.0" and report["error"]["reason"] == "unauthorized"


# -- the key stays secret -------------------------------------------------------------------


async def test_the_api_key_is_in_no_result_and_no_log_line(
    make_vault: Callable[..., Path], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    obsidian = Obsidian(active=dict(ACTIVE), key="another-key")
    results: list[Any] = []
    async with bridged(make_vault, tmp_path, obsidian, safe_commands=["editor:save-file"], probe_at_start=True) as (
        vg,
        _,
    ):
        await vg.app.services.bridges.settled()
        for tool, args in [
            ("get_active_note", {}),
            ("list_commands", {}),
            ("open_in_obsidian", {"path": "Index"}),
            ("execute_command", {"command_id": "editor:save-file"}),
            ("server_health", {"probe_bridges": True}),
            ("get_server_config", {}),
        ]:
            results.append((await vg.call(tool, **args)).structured)
        obsidian.key = KEY
        results.append(await vg.ok("get_active_note"))
    assert any(s.authorization == f"Bearer {KEY}" for s in obsidian.sent)  # the key did travel, to the plugin only
    assert KEY not in json.dumps(results, default=str)
    assert caplog.records and KEY not in caplog.text  # every record, every level


# -- the domain meta-tool -------------------------------------------------------------------


@pytest.mark.covers("bridges", "success")
@pytest.mark.covers("bridges", "failure")
async def test_bridges_meta_tool_runs_and_fails_like_the_inner_tool(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    async with bridged(make_vault, tmp_path, facade="domain") as (vg, _):
        out = await vg.ok("bridges", operation="list_commands", arguments={"limit": 1})
        assert out["tool"] == "list_commands" and out["result"]["total"] == 3
        err = await vg.err("bridges", "forbidden", operation="execute_command", arguments={"command_id": "graph:open"})
        assert err["details"]["reason"] == "not_in_safe_commands"
