"""A write is found by `search_text` while the embedding model is still loading.

A note's word-index update is the write's own group-commit round (`service.indexer.group`); the
embedding job follows the index afterwards and loads the model on its first pass, off the event
loop (`service.embeddings.builtin`). So the text side of a write never waits for the model to
load nor for the note to be embedded: here the model's load is held (bounded) until the write has
been searched for, and the search still finds it.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.embeddings import builtin
from tests.conftest import started
from tests.semantic.helpers import VAULT, job_of, model_ready, settled

HOLD_S = 60.0  # the held load gives up after this, so a broken test cannot hang the run
WITHIN_S = 10.0  # the write, and then its search, each answer within this (the load is held longer)


async def test_a_write_is_found_by_text_search_while_the_model_is_still_loading(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    await model_ready()
    loading, release = threading.Event(), threading.Event()
    load = builtin._session

    def held(threads: int, stop: threading.Event | None = None) -> tuple[Any, str]:
        loading.set()
        release.wait(HOLD_S)
        return load(threads, stop)

    monkeypatch.setattr(builtin, "_session", held)
    monkeypatch.setattr(builtin, "_sessions", {})  # as in a fresh process: no model loaded yet
    async with started(make_vault(VAULT), embeddings={"provider": "builtin", "debounce_ms": 0}) as h:
        job = job_of(h)
        try:
            await h.indexed()
            await asyncio.wait_for(asyncio.to_thread(loading.wait, HOLD_S), HOLD_S)  # the first pass loads
            note = "# Groves\n\nZanthoxylum hedges on dry hills.\n"
            await asyncio.wait_for(h.ok("create_note", path="Groves.md", content=note), WITHIN_S)
            found = await asyncio.wait_for(h.ok("search_text", query="zanthoxylum"), WITHIN_S)
            assert [item["path"] for item in found["items"]] == ["Groves.md"]
            assert job.state == "embedding" and not release.is_set()  # the model is still loading
        finally:
            release.set()
        await settled(h)
        assert job.embedded_total > 0 and job.state == "idle"  # the held load then went on
