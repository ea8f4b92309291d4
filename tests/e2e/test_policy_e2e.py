"""Policy over real HTTP with the SDK client: confirmation through client elicitation (accept,
decline), the token path for clients without it (admin endpoint), and idempotent retries."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx2
import mcp_types as types
from mcp import Client

from tests.conftest import e2e

VAULT = {"A.md": "# A\n\nkeep me\n", "B.md": "# B\n"}


def answering(action: str, confirm: bool = True) -> Any:
    asked: list[str] = []

    async def callback(context: Any, params: Any) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action=action, content={"confirm": confirm} if action == "accept" else None)

    callback.asked = asked  # type: ignore[attr-defined]
    return callback


async def test_legacy_clients_are_asked_through_elicitation(make_vault: Callable[..., Path]) -> None:
    async with e2e(make_vault(VAULT)) as (url, harness):
        yes = answering("accept")
        async with Client(url, mode="legacy", elicitation_callback=yes) as client:
            out = await client.call_tool("delete_note", {"path": "A", "permanent": True})
            assert not out.is_error, out.structured_content
        assert yes.asked and "permanently delete A.md" in yes.asked[0]
        assert not (harness.root / "A.md").exists()
        no = answering("decline")
        before = harness.snapshot()
        async with Client(url, mode="legacy", elicitation_callback=no) as client:
            out = await client.call_tool("delete_note", {"path": "B", "permanent": True})
            assert out.is_error and out.structured_content is not None
            assert out.structured_content["error"]["code"] == "forbidden"
            assert out.structured_content["error"]["details"]["reason"] == "declined"
            unticked = answering("accept", confirm=False)
        async with Client(url, mode="legacy", elicitation_callback=unticked) as client:
            out = await client.call_tool("delete_note", {"path": "B", "permanent": True})
            assert out.structured_content is not None and out.structured_content["error"]["code"] == "forbidden"
        assert harness.snapshot() == before


async def test_clients_without_elicitation_use_a_token_from_the_admin_endpoint(
    make_vault: Callable[..., Path], mode: str
) -> None:
    local = {"confirmation": {"allow_local_http_confirm": True}}
    async with e2e(make_vault(VAULT), **local) as (url, harness), Client(url, mode=mode) as client:  # type: ignore[arg-type]
        args = {"path": "A", "content": "new\n", "mode": "overwrite"}
        first = await client.call_tool("write_note", args)
        assert first.is_error and first.structured_content is not None
        error = first.structured_content["error"]
        assert error["code"] == "elicit_required" and error["details"]["args_hash"]
        base = url.rsplit("/mcp", 1)[0]
        async with httpx2.AsyncClient() as http:
            minted = await http.post(f"{base}/admin/confirm", json={"args_hash": error["details"]["args_hash"]})
            assert minted.status_code == 200, minted.text
            body = minted.json()
            assert body["tool"] == "write_note" and body["vault"] == "main"
            missing = await http.post(f"{base}/admin/confirm", json={"args_hash": "0" * 32})
            assert missing.status_code == 404
            bad = await http.post(f"{base}/admin/confirm", content=b"nope")
            assert bad.status_code == 400
        done = await client.call_tool("write_note", {**args, "elicit_token": body["token"]})
        assert not done.is_error, done.structured_content
        assert harness.read("A.md") == "new\n"
        reused = await client.call_tool("write_note", {**args, "elicit_token": body["token"]})
        assert reused.structured_content is not None
        assert reused.structured_content["error"]["code"] == "elicit_required"


async def test_idempotent_retry_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault(VAULT)) as (url, harness), Client(url, mode=mode) as client:  # type: ignore[arg-type]
        args = {"path": "B", "content": "- entry\n", "idempotency_key": "retry-1"}
        one = await client.call_tool("append_note", args)
        two = await client.call_tool("append_note", args)
        assert one.structured_content == two.structured_content
        assert harness.read("B.md") == "# B\n- entry\n"


async def test_concurrent_keyed_calls_over_http_run_once(make_vault: Callable[..., Path]) -> None:
    async with e2e(make_vault(VAULT)) as (url, harness):
        args = {"path": "B", "content": "- once\n", "idempotency_key": "concurrent"}

        async def one() -> Any:
            async with Client(url, mode="legacy") as client:
                return await client.call_tool("append_note", args)

        results = await asyncio.gather(*(one() for _ in range(6)))
        assert harness.read("B.md") == "# B\n- once\n"
        codes = [r.structured_content["error"]["code"] if r.is_error else "ok" for r in results]
        assert "ok" in codes and set(codes) <= {"ok", "idempotency_in_flight"}


async def test_a_token_spent_concurrently_over_http_works_once(make_vault: Callable[..., Path]) -> None:
    async with e2e(make_vault(VAULT)) as (url, harness):
        args = {"path": "A", "content": "replaced\n", "mode": "overwrite"}
        token = await harness.token_for("write_note", **args)

        async def one() -> Any:
            async with Client(url, mode="auto") as client:
                return await client.call_tool("write_note", {**args, "elicit_token": token})

        results = await asyncio.gather(*(one() for _ in range(6)))
        codes = sorted(r.structured_content["error"]["code"] if r.is_error else "ok" for r in results)
        assert codes == ["elicit_required"] * 5 + ["ok"]
        assert harness.read("A.md") == "replaced\n"


async def test_modern_clients_are_asked_through_input_required(make_vault: Callable[..., Path]) -> None:
    async with e2e(make_vault(VAULT)) as (url, harness):
        yes = answering("accept")
        async with Client(url, mode="auto", elicitation_callback=yes) as client:
            out = await client.call_tool("delete_note", {"path": "A", "permanent": True})
            assert not out.is_error, out.structured_content
        assert yes.asked and "permanently delete A.md" in yes.asked[0]
        assert not (harness.root / "A.md").exists()
        before = harness.snapshot()
        no = answering("decline")
        async with Client(url, mode="auto", elicitation_callback=no) as client:
            out = await client.call_tool("delete_note", {"path": "B", "permanent": True})
            assert out.is_error and out.structured_content is not None
            assert out.structured_content["error"]["details"]["reason"] == "declined"
        async with Client(url, mode="auto") as client:  # no elicitation support: the token path
            out = await client.call_tool("delete_note", {"path": "B", "permanent": True})
            assert out.structured_content is not None
            assert out.structured_content["error"]["code"] == "elicit_required"
        assert harness.snapshot() == before


async def test_a_permanent_delete_token_does_not_delete_the_note_edited_after_it_over_http(
    make_vault: Callable[..., Path],
) -> None:
    """The human approved deleting the version shown (its size and etag in the preview); the note is
    edited before the agent retries: asked again, the edit kept; the new approval deletes (T1 s62 #8)."""
    local = {"confirmation": {"allow_local_http_confirm": True}}
    async with e2e(make_vault(VAULT), **local) as (url, harness), Client(url, mode="legacy") as client:
        base = url.rsplit("/mcp", 1)[0]
        args = {"path": "A", "permanent": True}

        async def approved() -> tuple[dict[str, Any], str]:
            asked = await client.call_tool("delete_note", {**args, **({"elicit_token": token} if token else {})})
            assert asked.is_error and asked.structured_content is not None
            error = asked.structured_content["error"]
            assert error["code"] == "elicit_required", error
            async with httpx2.AsyncClient() as http:
                minted = await http.post(f"{base}/admin/confirm", json={"args_hash": error["details"]["args_hash"]})
            assert minted.status_code == 200, minted.text
            return error["details"], str(minted.json()["token"])

        token = ""
        first, token = await approved()
        assert f"permanently delete A.md ({len(VAULT['A.md'])} bytes, etag " in first["preview"]
        (harness.root / "A.md").write_text("# A\n\nkeep me\n\nwritten after the approval\n")
        again, token = await approved()  # the old token is refused: the preview changed
        assert "no longer what the token approved" in again["reason"] and again["preview"] != first["preview"]
        assert harness.read("A.md").endswith("written after the approval\n")
        done = await client.call_tool("delete_note", {**args, "elicit_token": token})
        assert not done.is_error, done.structured_content
        assert not (harness.root / "A.md").exists()
