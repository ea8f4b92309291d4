"""Each bridge failure says which bridge and what to do. With the certificate pinned by its
fingerprint (the setup docs/bridges.md shows), Obsidian closed was `plugin_unreachable` without
the bridge's `url`, the route or any hint, where the same failure with `cert_file` had all three
(the pin's check failed before the request was built); a plugin's 500 and an answer that is no
JSON had no hint either (B2 s84). Through the dispatch chain against the stand-in; over HTTP in
tests/e2e/test_bridge_closed_e2e.py."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from starlette.requests import Request
from starlette.responses import Response

from tests.tools.bridges.standin import Obsidian, closed_port
from tests.tools.bridges.test_bridge_tools import api_key, bridged

__all__ = ["api_key"]  # the autouse fixture that sets the API key


class Failing(Obsidian):
    """GET /commands/ fails with a 500 page; GET /active/ answers no JSON."""

    async def list_commands(self, request: Request) -> Response:
        if (refused := await self._seen(request)) is not None:
            return refused
        return Response(b"<html>Internal Server Error</html>", status_code=500, media_type="text/html")

    async def get_active(self, request: Request) -> Response:
        if (refused := await self._seen(request)) is not None:
            return refused
        return Response(b"{not json", media_type="application/vnd.olrapi.note+json")


async def test_obsidian_closed_with_a_pinned_certificate_names_the_bridge_and_what_to_do(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    url = f"https://127.0.0.1:{closed_port()}"
    async with bridged(make_vault, tmp_path, url=url) as (vg, _):  # trusted by its fingerprint
        err = await vg.err("list_commands", "plugin_unreachable")
        assert err["details"]["reason"] == "connect_failed" and err["retryable"] is True
        assert err["details"]["url"] == url and err["details"]["route"] == "/commands/", err
        assert "Start Obsidian" in err["hint"], err
        await vg.ok("read_note", path="Index")  # the vault's other tools are untouched


async def test_a_failing_or_garbled_answer_says_what_to_do(make_vault: Callable[..., Path], tmp_path: Path) -> None:
    async with bridged(make_vault, tmp_path, Failing()) as (vg, _):
        failed = await vg.err("list_commands", "plugin_unreachable")
        assert failed["details"]["reason"] == "plugin_error" and "console" in failed["hint"], failed
        garbled = await vg.err("get_active_note", "plugin_incompatible")
        assert garbled["details"]["reason"] == "bad_answer" and "url" in garbled["hint"], garbled
        assert garbled["details"]["url"].startswith("https://127.0.0.1:")
