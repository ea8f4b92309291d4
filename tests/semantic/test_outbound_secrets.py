"""What leaves the machine for a remote embedding provider: chunk texts with their secrets
redacted when the vault's `[sensitive]` mode redacts (issue 15 "never leaks"; the reranker's rule),
through a real server and its embedding job against a local stand-in of the provider's API."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started
from tests.semantic.helpers import settled
from tests.semantic.standin import stand_in

KEY = "AKIAIOSFODNN7EXAMPLE"
NOTES = {
    "Ops/Keys.md": f"# Keys\n\nThe photo bucket uses AWS key {KEY}.\n",
    "Ops/Vault.md": "---\npassword: hunter2-horse-battery\n---\n",
    "Ops/Other.md": "# Other\n\nGardening tips.\n",
}


def sent_texts(requests: list[tuple[str, dict[str, object], dict[str, str]]]) -> list[str]:
    return [str(t) for _, body, _ in requests for t in body.get("input", []) or []]  # type: ignore[attr-defined]


@pytest.mark.parametrize("mode", ["redact", "exclude"])
async def test_a_remote_provider_never_receives_a_secret(make_vault: Callable[..., Path], mode: str) -> None:
    async with stand_in() as server:
        cfg = {"provider": "ollama", "base_url": server.url, "debounce_ms": 0, "retries": 0}
        async with started(make_vault(NOTES), embeddings=cfg, sensitive={"mode": mode}) as h:
            await settled(h)
            texts = sent_texts(server.requests)
            assert any("photo bucket" in t for t in texts)  # the note was embedded ...
            assert not [t for t in texts if KEY in t or "hunter2" in t]  # ... without its secrets
            assert any("[REDACTED:aws_access_key]" in t for t in texts)
            if mode == "redact":  # and it is found by meaning, its chunk redacted as before
                out = await h.ok("search_semantic", query="photo bucket AWS key", limit=1)
                assert out["items"][0]["path"] == "Ops/Keys.md"
                assert KEY not in str(out)


async def test_flag_mode_sends_the_text_as_it_is(make_vault: Callable[..., Path]) -> None:
    async with stand_in() as server:
        cfg = {"provider": "ollama", "base_url": server.url, "debounce_ms": 0, "retries": 0}
        async with started(make_vault(NOTES), embeddings=cfg, sensitive={"mode": "flag"}) as h:
            await settled(h)
            assert any(KEY in t for t in sent_texts(server.requests))
