"""A small vault about unrelated subjects, for searches by meaning (queries share no words with
the note that answers them), and helpers to start the app with the builtin model."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from service.embeddings import builtin
from service.semantic.job import EmbeddingJob
from tests.conftest import Harness, started

if TYPE_CHECKING:
    import numpy as np

    from service.semantic.engine import Searchable, SemanticEngine
    from service.semantic.search import NoteFilter

VAULT: dict[str, str] = {
    "Baking/Sourdough.md": "---\ntags: [food]\n---\n# Sourdough\n\n## Starter\n"
    "Feed the wild yeast culture with flour and water every day until it bubbles.\n\n"
    "## Loaf\nKnead the dough, let it rise overnight, then bake in a hot dutch oven.\n",
    "Finance/Taxes.md": "# Taxes\n\nFile the annual income declaration before April; keep receipts for deductions.\n",
    "Pets/Cats.md": "---\ntags: [animals]\n---\n# Cats\n\n"
    "A kitten needs vaccinations, a litter box and toys to scratch.\n",
    "Travel/Japan.md": "# Japan trip\n\nTokyo temples in spring, then the bullet train to Kyoto for cherry blossoms.\n",
    "Private/Diary.md": "# Diary\n\nMy kitten chewed the sofa again today; the vet visit is next week.\n",
    "Empty.md": "---\naliases: [Nothing here]\ntags: [misc]\n---\n",
}


def job_of(h: Harness, vault: str | None = None) -> EmbeddingJob:
    engine = h.app.semantic
    return engine.jobs[vault or next(iter(h.app.vaults))]


async def settled(h: Harness) -> None:
    await h.indexed()
    for job in h.app.semantic.jobs.values():
        await job.wait_settled()


_derived: list[str] = []


async def model_ready() -> None:
    """Derive the built-in model's int8 file (once per test run, in the models folder the run's
    xdist workers share: tests/model_share.py) before a server needs it, so that a test's wait for
    its embedding job does not include it."""
    if not _derived:
        _derived.append((await asyncio.to_thread(builtin.model_path))[0])


@contextlib.asynccontextmanager
async def semantic(root: Path, **overrides: Any) -> AsyncIterator[Harness]:
    overrides.setdefault("embeddings", {"provider": "builtin", "debounce_ms": 0})
    await model_ready()
    async with started(root, **overrides) as h:
        await settled(h)
        yield h


def halves_meet(monkeypatch: pytest.MonkeyPatch, text_half: str) -> None:
    """Make a hybrid ranking's two halves wait for each other: `service.semantic.search`'s
    `text_half` (the BM25 side the tool calls) and `nearest` each wait at one barrier (bounded,
    10 s) until the other has started, so a tool running them one after the other fails."""
    import threading

    from service.semantic import search as sem

    both = threading.Barrier(2, timeout=10)

    def meeting(real: Callable[..., Any]) -> Callable[..., Any]:
        def met(*args: Any, **kwargs: Any) -> Any:
            both.wait()
            return real(*args, **kwargs)

        return met

    for name in (text_half, "nearest"):
        monkeypatch.setattr(sem, name, meeting(getattr(sem, name)))


async def ranking_inputs(
    h: Harness, question: str
) -> tuple[SemanticEngine, str, Searchable, np.ndarray[Any, Any], NoteFilter]:
    """What a hybrid ranking of `question` takes in the harness's first vault: the engine, the
    vault id, the searchable model, the query's vector and a filter that keeps every note."""
    from service.semantic.search import NoteFilter

    engine = h.app.semantic
    vid = next(iter(h.app.vaults))
    use = await engine.searchable(vid)
    vector = await engine.query_vector(question, use.embedder)
    return engine, vid, use, vector, NoteFilter(can_read=lambda _path: True)
