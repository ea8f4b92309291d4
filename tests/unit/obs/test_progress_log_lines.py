"""The operator's log says when a vault's index is complete, when its embeddings are complete
(once after start and after an embeddings reindex, not per edit) and how HTTP callers are authenticated."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

import pytest

from service.settings import AuthSettings
from service.settings.auth import auth_line
from tests.conftest import started
from tests.semantic.helpers import VAULT, semantic, settled


def _messages(caplog: pytest.LogCaptureFixture, prefix: str) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == logging.INFO and r.getMessage().startswith(prefix)]


async def test_the_index_and_the_auth_mode_are_logged_at_start(
    make_vault: Callable[..., Path], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    async with started(make_vault({"A.md": "# A\n", "B.md": "# B\n"})) as vg:
        await vg.indexed()
    [index] = _messages(caplog, "index of vault main complete")
    assert "2 files, 2 parsed, 0 removed" in index
    [auth] = _messages(caplog, "auth: ")
    assert auth.startswith("auth: none")


def test_the_auth_line_names_the_key_source_never_the_secret() -> None:
    secret = "a-secret-that-is-long-enough-for-hs256-0123456789"
    line = auth_line(AuthSettings(mode="jwt", jwt_secret=secret, issuer="https://idp.example"))  # type: ignore[arg-type]
    assert line.startswith("jwt bearer tokens (HS256 shared secret, issuer 'https://idp.example')")
    assert secret not in line


async def test_embeddings_complete_is_logged_once_after_start_and_after_a_reindex(
    make_vault: Callable[..., Path], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    async with semantic(make_vault(VAULT)) as h:
        [first] = _messages(caplog, "embeddings of vault main complete")
        assert " chunks (" in first
        await h.ok("append_note", path="Pets/Cats", content="Cats sleep a lot.\n")
        await h.settled()
        await settled(h)
        assert len(_messages(caplog, "embeddings of vault main complete")) == 1  # an edit logs nothing
        await h.ok("reindex", wait=True)  # sync: the index line again; embeddings only follow the edits
        await h.ok("reindex", mode="embeddings", wait=True)
        await settled(h)
    assert len(_messages(caplog, "embeddings of vault main complete")) == 2
    assert _messages(caplog, "index of vault main complete (reindex sync")
