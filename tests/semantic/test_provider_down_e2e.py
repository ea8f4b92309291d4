"""A remote embedding provider that stays down, over real HTTP with the SDK client: the first
semantic call waits through its retries and answers `embedding_unavailable`; the calls of the next
`DOWN_S` seconds answer it at once (`details.attempts` 0, `retry_after_seconds`) without asking the
provider again — each of them waited through the retries before (1.75 s with the defaults for a
refused connection, up to four `timeout_seconds` for one that never answers), which
docs/semantic.md called "at once". Text search goes on; the provider's next answer ends it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from service.embeddings import remote
from tests.conftest import e2e
from tests.e2e.calls import error, ok
from tests.semantic.helpers import settled
from tests.semantic.standin import stand_in


async def test_queries_while_the_provider_is_down_answer_at_once(make_vault: Callable[..., Path]) -> None:
    vault = {"Pets/Cats.md": "# Cats\n\nKitten vaccinations and care.\n"}
    async with stand_in() as server:
        cfg = {"provider": "ollama", "base_url": server.url, "debounce_ms": 0, "retries": 1}
        async with e2e(make_vault(vault), embeddings=cfg) as (url, h), Client(url) as client:
            await settled(h)
            server.fail_next = 1_000  # the provider goes down
            asked = len(server.requests)
            first = await error(client, "search_semantic", query="kitten")
            assert first["code"] == "embedding_unavailable" and first["details"]["attempts"] == 2
            assert len(server.requests) == asked + 2
            again = await error(client, "search_semantic", query="kitten care")
            assert again["code"] == "embedding_unavailable" and again["retryable"] is True
            assert again["details"]["attempts"] == 0
            assert 0 < again["details"]["retry_after_seconds"] <= remote.DOWN_S
            assert len(server.requests) == asked + 2  # not asked again
            text = await ok(client, "search_text", query="kitten")
            assert [i["path"] for i in text["items"]] == ["Pets/Cats.md"]
            server.fail_next = 0  # it comes back: the next batch it answers (a note saved) ends the outage
            await ok(client, "append_note", path="Pets/Cats.md", content="\nKittens sleep a lot.\n")
            await h.indexed()
            for job in h.app.semantic.jobs.values():
                job.kick()
                await job.wait_settled()
            assert len(server.requests) > asked + 2  # the note's new chunk went to the provider
            back = await ok(client, "search_semantic", query="kitten", limit=1)
            assert back["items"][0]["path"] == "Pets/Cats.md"


async def test_hybrid_rankings_go_by_words_while_the_provider_is_down(make_vault: Callable[..., Path]) -> None:
    """search_hybrid and graphrag_query answer while the provider is down: their text half ranks the
    notes, and the answer says meaning took no part (`by_meaning: false`); graphrag_query then
    follows the links as always. They answered embedding_unavailable, an agent then asking
    search_text for what the call could have answered itself."""
    vault = {
        "Pets/Cats.md": "# Cats\n\nKitten vaccinations and kitten care. See [[Vets]].\n",
        "Pets/Dogs.md": "# Dogs\n\nPuppy training and one kitten.\n",
        "Pets/Vets.md": "# Vets\n\nOpening hours.\n",
        "Work/Plan.md": "# Plan\n\nQuarterly goals.\n",
    }
    async with stand_in() as server:
        cfg = {"provider": "ollama", "base_url": server.url, "debounce_ms": 0, "retries": 0}
        async with e2e(make_vault(vault), embeddings=cfg) as (url, h), Client(url) as client:
            await settled(h)
            up = await ok(client, "search_hybrid", query="kitten care")
            assert up["by_meaning"] is True and up["items"], up
            server.fail_next = 1_000  # the provider goes down
            for query in ("kitten vaccinations", "kitten"):  # the first waits for the provider, the next not
                down = await ok(client, "search_hybrid", query=query)
                assert down["by_meaning"] is False, down
                assert [i["path"] for i in down["items"]] == ["Pets/Cats.md", "Pets/Dogs.md"], down
                assert all(i["chunk"] is None for i in down["items"]), down
            rag = await ok(client, "graphrag_query", query="kitten vaccinations")
            assert rag["by_meaning"] is False and rag["seeds"][0] == "Pets/Cats.md", rag
            assert "Pets/Vets.md" in [i["path"] for i in rag["items"]], rag  # reached through the link
            semantic = await error(client, "search_semantic", query="kitten")  # no words to fall back on
            assert semantic["code"] == "embedding_unavailable"
