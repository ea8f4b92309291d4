"""The answer tools end to end: a real server with the builtin model, the SDK client over
Streamable HTTP; context_for_query stays inside its budget with citations, graphrag_query follows
links with their paths, and a note the caller may not read is nowhere in either."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok as _ok
from tests.semantic.helpers import VAULT, settled

NOTES = {
    **VAULT,
    "Pets/Cats.md": "# Cats\n\nA kitten needs vaccinations, a litter box and toys. Ask [[Clinic]] or [[Diary]].\n",
    "Pets/Clinic.md": "# Clinic\n\nDr. Okafor, Elm Street 4, open weekdays from eight.\n",
}


async def test_context_and_graphrag_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    embeddings = {"provider": "builtin", "debounce_ms": 0}
    acl = {"prefix_rules": [{"path": "Private", "read": "deny", "write": "deny"}]}
    async with e2e(make_vault(NOTES), embeddings=embeddings, acl=acl) as (url, harness):
        await settled(harness)
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            question = "what does a young cat need?"
            ctx = await _ok(client, "context_for_query", {"query": question, "max_tokens": 60})
            assert 0 < ctx["used"] <= 60 and ctx["passages"][0]["path"] == "Pets/Cats.md"
            assert ctx["passages"][0]["lines"] == {"start": 3, "end": 3}
            assert "Private" not in str(ctx)
            rag = await _ok(client, "graphrag_query", {"query": question, "seeds": 1, "hops": 1})
            clinic = next(i for i in rag["items"] if i["path"] == "Pets/Clinic.md")
            assert clinic["link_path"] == [
                {"source": "Pets/Cats.md", "target": "Pets/Clinic.md", "direction": "outlink"}
            ]
            assert "Private" not in str(rag)
