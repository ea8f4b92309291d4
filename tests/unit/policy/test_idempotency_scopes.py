"""A replayed result is never less restricted than the same call without the key (T4 item 3)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started
from tests.sec_vault import caller

VAULT = {"Welcome.md": "# Welcome\nsecret welcome text\n", "Projects/Plan.md": "# Plan\n"}


async def test_a_narrowed_token_of_the_same_subject_does_not_get_a_replay_past_its_acl(
    make_vault: Callable[..., Path],
) -> None:
    async with started(make_vault(VAULT)) as vg:
        vg.principal = caller("read:vault")
        first = await vg.ok("read_note", path="Welcome.md", idempotency_key="k-1")
        assert "secret welcome text" in first["content"]
        vg.principal = caller("read:vault/Projects/**")  # same subject, narrowed to one folder
        await vg.err("read_note", "acl_denied", path="Welcome.md")
        await vg.err("read_note", "acl_denied", path="Welcome.md", idempotency_key="k-1")
        vg.principal = caller("read:vault")  # the original grant still replays its own result
        assert await vg.ok("read_note", path="Welcome.md", idempotency_key="k-1") == first


async def test_a_write_key_of_a_full_token_is_not_replayed_to_a_read_only_token(
    make_vault: Callable[..., Path],
) -> None:
    async with started(make_vault({"Log.md": "# Log\n"})) as vg:
        vg.principal = caller("read:vault write:vault")
        await vg.ok("append_note", path="Log", content="- one\n", idempotency_key="w")
        vg.principal = caller("read:vault")  # same subject, may not write: a fresh run, refused
        await vg.err("append_note", "forbidden", path="Log", content="- one\n", idempotency_key="w")
        assert vg.read("Log.md") == "# Log\n- one\n"
