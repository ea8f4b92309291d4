"""A broken or hostile Obsidian side of the Local REST API bridge, end to end (real uvicorn, the SDK
client) against the HTTPS stand-in (A5, session 95). Each was found over this path:

- a note in a folder the caller may read that is a symlink to a denied note: Obsidian shows it at
  the link's path with the target's text, and get_active_note showed it (read_note refuses it);
- a command whose connection broke after it was sent (the plugin ran it, then reset) was
  `plugin_unreachable`, retryable: a retry ran it again. Now `may_have_run`, not retryable;
- a program on the port that echoes the request put the API key in the error the agent read, and
  an error message of 30 MB in a 30 MB answer;
- an answer of a million values (3 MB of `{},`; 64 MiB is 21 million objects, 3 GB and five
  minutes of the event loop in one run) was parsed whole before anything looked at it;
- a `stat` whose time is an integer past float's range was an `internal_error`;
- a QuickAdd choice (or a template) that ran, answered with a 5xx, was `plugin_unreachable`,
  retryable: a retry ran it again;
- every call asking Obsidian had its own request in flight, each buffering up to 64 MiB (some
  220 MB at its peak for a 60 MB note: 6 agents at once, 1.2 GB); now at most 4 per bridge;
- a probe answer of megabytes (a version string, routes, plugins) was kept whole in the report
  every server_health answer carries: server_health was an `overflow` from then on;
- a companion answering execute_template with an existing note's path (the template's, another
  note's) had that note journaled as made by the plan: undo_last_plan deleted it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse

from tests.conftest import e2e
from tests.e2e.calls import error, ok
from tests.e2e.test_bridge_confirm_e2e import ENV, answering, bridged_vault
from tests.tools.bridges.standin import KEY, NOTE_JSON, Obsidian, make_cert, serving

FILES = {
    "Private/Secret.md": "secret\n",
    "Projects/Plan.md": "# Plan\n",
    "Index.md": "# Index\n",
    "Templates/Meeting.md": "# Meeting\n",
}
DENY_PRIVATE = {"prefix_rules": [{"path": "Private", "read": "deny", "write": "deny"}]}


@dataclass
class Hostile(Obsidian):
    """The stand-in, answering `GET /active/` with `answer` (bytes as they are) and, with
    `reset_after_run`, breaking the connection of `POST /commands/{id}/` once the command ran."""

    answer: Any = None
    status: int = 200
    headers: dict[str, str] | None = None
    reset_after_run: bool = False
    made: str | None = None  # the path Templater's route answers, whatever it made
    slow_s: float = 0.0  # how long each GET /active/ takes
    in_flight: int = 0
    most_in_flight: int = 0
    failing_after_run: bool = False  # quickadd/execute runs the choice, then the plugin answers 502
    sprawling: bool = False  # a probe of megabytes: a version of 2 MB, 1,000 routes and plugins

    async def companion_route(self, request: Request) -> Response:
        answer = await super().companion_route(request)
        if self.failing_after_run and request.url.path.endswith("/quickadd/execute/") and self.quickadd_runs:
            return Response(b"Bad Gateway", status_code=502)
        return answer

    async def root(self, request: Request) -> Response:
        if not self.sprawling:
            return await super().root(request)
        await self._seen(request)
        versions = {"obsidian": "1.8.10", "self": "3." * 1_000_000}
        return JSONResponse({"status": "OK", "versions": versions, "authenticated": True})

    async def probe(self, request: Request) -> Response:
        if not self.sprawling:
            return await super().probe(request)
        if (refused := await self._seen(request)) is not None:
            return refused
        plugins = {f"plugin-{i}": {"installed": True, "version": "1"} for i in range(1_000)}
        routes = [f"get /vaultgate/v1/route-{i}/" for i in range(1_000)]
        return JSONResponse({"companion": {"version": "0.1.0"}, "plugins": plugins, "routes": routes})

    def templater_path(self, body: dict[str, Any]) -> str:
        return self.made if self.made is not None else super().templater_path(body)

    async def get_active(self, request: Request) -> Response:
        if (refused := await self._seen(request)) is not None:
            return refused
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            await asyncio.sleep(self.slow_s)
            return await self._active(request)
        finally:
            self.in_flight -= 1

    async def _active(self, request: Request) -> Response:
        if self.answer is None:
            return await super().get_active(request)  # records the request a second time
        if isinstance(self.answer, bytes):
            return Response(self.answer, status_code=self.status, media_type=NOTE_JSON, headers=self.headers)
        if callable(self.answer):
            return JSONResponse(self.answer(request), status_code=self.status, headers=self.headers)
        return JSONResponse(self.answer, status_code=self.status, media_type=NOTE_JSON, headers=self.headers)

    async def execute(self, request: Request) -> Response:
        if not self.reset_after_run:
            return await super().execute(request)
        if (refused := await self._seen(request)) is not None:
            return refused
        self.executed.append(request.path_params["command_id"])

        async def cut() -> AsyncIterator[bytes]:
            yield b"{"
            raise ConnectionResetError("the plugin's connection reset mid-answer")

        return StreamingResponse(cut(), headers={"content-length": "100"})


@contextlib.asynccontextmanager
async def _served(
    make_vault: Callable[..., Path], tmp_path: Path, obsidian: Obsidian
) -> AsyncIterator[tuple[Client, Path]]:
    root = make_vault(FILES)
    cert = make_cert(tmp_path / "tls")
    async with serving(obsidian, cert) as url:
        vault = bridged_vault(root, url, cert.fingerprint) | {"acl": DENY_PRIVATE}
        async with (
            e2e(root, vaults=[vault]) as (mcp_url, _),
            Client(mcp_url, mode="auto", elicitation_callback=answering("accept", [])) as client,
        ):
            yield client, root


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV, KEY)


def note(path: str, content: str = "x", stat: Any = None) -> dict[str, Any]:
    return {"path": path, "content": content, "frontmatter": {}, "tags": [], "stat": stat}


async def test_an_active_note_linked_to_a_denied_note_is_not_shown(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    obsidian = Hostile(answer=note("Projects/Link.md", "secret\n"))
    async with _served(make_vault, tmp_path, obsidian) as (client, root):
        (root / "Projects/Link.md").symlink_to("../Private/Secret.md")
        denied = await error(client, "read_note", path="Projects/Link.md")
        assert denied["code"] == "acl_denied", denied
        shown = await ok(client, "get_active_note")
        assert shown["active"] is False and shown["content"] is None, shown
        obsidian.answer = note("Projects/Plan.md", "# Plan\n")  # a plain note there is shown
        assert (await ok(client, "get_active_note"))["content"] == "# Plan\n"


async def test_a_command_whose_connection_breaks_after_it_ran_is_not_retryable(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    obsidian = Hostile(reset_after_run=True)
    async with _served(make_vault, tmp_path, obsidian) as (client, _):
        cut = await error(client, "execute_command", command_id="graph:open")
        assert cut["code"] == "plugin_unreachable" and cut["retryable"] is False, cut
        assert cut["details"]["may_have_run"] is True, cut
    assert obsidian.executed == ["graph:open"]


async def test_an_answer_echoing_the_key_or_a_huge_message_is_cut(
    make_vault: Callable[..., Path], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    echo = {"message": "bad header: Authorization: Bearer " + KEY, "errorCode": 40000}
    obsidian = Hostile(answer=echo, status=400)
    async with _served(make_vault, tmp_path, obsidian) as (client, _):
        refused = await client.call_tool("get_active_note", {})
        assert refused.is_error and refused.structured_content is not None
        assert KEY not in str(refused.structured_content) and KEY not in str(refused.content), refused
        assert "[api key]" in refused.structured_content["error"]["details"]["plugin_message"]
        obsidian.answer = {"message": "x" * 30_000_000, "errorCode": 50000}
        obsidian.status = 503
        huge = await error(client, "get_active_note")
        assert huge["code"] == "plugin_unreachable" and len(huge["details"]["plugin_message"]) <= 501, len(str(huge))
        assert len(huge["message"]) < 1000
    assert KEY not in caplog.text


async def test_an_answer_of_a_million_values_is_refused_before_it_is_read(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    many = b'{"path": "Index.md", "content": "x", "frontmatter": {"a": [' + b"{}," * 1_000_000 + b'{}]}, "tags": []}'
    obsidian = Hostile(answer=many)
    async with _served(make_vault, tmp_path, obsidian) as (client, _):
        refused = await error(client, "get_active_note")
        assert refused["code"] == "plugin_incompatible", refused
        assert refused["details"]["reason"] == "answer_too_large", refused
        # a note of a million commas (a CSV) the plugin names in Content-Location: its path only
        csv = b'{"path": "Index.md", "content": "' + b"1," * 1_000_001 + b'", "frontmatter": {}, "tags": []}'
        obsidian.answer, obsidian.headers = csv, {"Content-Location": "Index.md"}
        named = await ok(client, "get_active_note")
        assert named["path"] == "Index.md" and named["content"] is None, str(named)[:300]


async def test_a_stat_past_floats_range_is_no_internal_error(make_vault: Callable[..., Path], tmp_path: Path) -> None:
    body = b'{"path": "Index.md", "content": "# Index\\n", "frontmatter": {}, "tags": [], "stat": {"ctime": 1'
    obsidian = Hostile(answer=body + b"0" * 400 + b', "mtime": 1, "size": 8}}')
    async with _served(make_vault, tmp_path, obsidian) as (client, _):
        shown = await ok(client, "get_active_note")
        assert shown["path"] == "Index.md" and shown["stat"] is None, shown


async def test_an_existing_note_the_companion_names_as_made_survives_the_undo(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    obsidian = Hostile(made="Index.md")  # a broken companion: not the note Templater made
    async with _served(make_vault, tmp_path, obsidian) as (client, root):
        make = {"template": "Templates/Meeting.md", "folder": "Projects", "filename": "Kickoff"}
        steps = [
            {"id": "s0", "tool": "execute_template", "args": make},
            {"id": "s1", "tool": "create_note", "args": {"path": "Projects/Agenda.md", "content": "# Agenda\n"}},
        ]
        run = await ok(client, "execute_plan", plan={"goal": "a meeting note", "steps": steps})
        assert run["status"] == "done", run
        await ok(client, "undo_last_plan")
        assert not (root / "Projects/Agenda.md").exists()  # the plan's own note is undone
        assert (root / "Index.md").read_text(encoding="utf-8") == "# Index\n"
    assert [c["template"] for c in obsidian.created] == ["Templates/Meeting.md"]


async def test_a_sprawling_probe_answer_leaves_server_health_readable(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    obsidian = Hostile(sprawling=True)
    async with _served(make_vault, tmp_path, obsidian) as (client, _):
        [report] = (await ok(client, "server_health", probe_bridges=True))["bridges"]
        assert report["state"] == "ready" and report["companion"] is True, str(report)[:300]
        assert len(report["plugin_version"]) <= 501 and report["obsidian_version"] == "1.8.10"
        assert len(report["companion_routes"]) == 100 and len(report["community_plugins"]) == 100
        assert (await ok(client, "server_health"))["bridges"][0]["state"] == "ready"


async def test_an_acting_companion_route_that_fails_with_a_5xx_is_not_retryable(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    obsidian = Hostile(failing_after_run=True)
    async with _served(make_vault, tmp_path, obsidian) as (client, _):
        failed = await error(client, "trigger_quickadd", choice="Log")
        assert failed["code"] == "plugin_unreachable" and failed["retryable"] is False, failed
        assert failed["details"]["may_have_run"] is True and failed["details"]["status"] == 502, failed
    assert [run["choice"] for run in obsidian.quickadd_runs] == ["Log"]


async def test_calls_at_once_keep_at_most_four_requests_in_flight(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    obsidian = Hostile(answer=note("Index.md", "# Index\n"), slow_s=0.3)
    async with _served(make_vault, tmp_path, obsidian) as (client, _):
        answers = await asyncio.gather(*(ok(client, "get_active_note") for _ in range(10)))
        assert all(a["path"] == "Index.md" for a in answers)
    assert obsidian.most_in_flight == 4, obsidian.most_in_flight


async def test_a_short_key_is_not_scrubbed_out_of_a_notes_text(
    make_vault: Callable[..., Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A key of a few characters (the plugin makes 64 hex digits; a person may set another) would be
    found in ordinary text: it is not looked for, so the note's text stays as it is."""
    monkeypatch.setenv(ENV, "k1")
    obsidian = Hostile(key="k1", answer=note("Index.md", "k1 and k1\n"))
    async with _served(make_vault, tmp_path, obsidian) as (client, _):
        assert (await ok(client, "get_active_note"))["content"] == "k1 and k1\n"
