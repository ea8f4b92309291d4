"""A long entity note saved in UTF-8 with one byte that is not (a Latin-1 `é` past the first
64 KiB) is one note to the index and the memory tools: the index decodes it whole as cp1252, and
the name lookup decided from its first 64 KiB, which are UTF-8, so read_memory_graph listed
`ZoÃ©` that open_nodes could not find and delete_entities did not delete (review R3 s63 #9).
The lookup now decides the encoding from the whole note, as the index does. Through the dispatch
chain, and over HTTP with the SDK client."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e, started
from tests.e2e.calls import ok

HEAD = "---\nname: Zoé\nentityType: person\n---\n## Observations\n- keeps bees\n\n## Journal\n".encode()
NOTE = HEAD + b"A day of notes.\n" * 5000 + b"Caf\xe9 au lait.\n"  # the cp1252 byte is past the first 64 KiB


def _vault(make_vault: Callable[..., Path]) -> Path:
    root = make_vault({"Home.md": "# Home\n"})
    (root / "Memory").mkdir()
    (root / "Memory/Zoe.md").write_bytes(NOTE)
    return root


async def test_a_long_note_with_one_latin1_byte_has_one_name(make_vault: Callable[..., Path]) -> None:
    root = _vault(make_vault)
    async with started(root) as vg:
        [listed] = [e["name"] for e in (await vg.ok("read_memory_graph"))["entities"]]
        opened = await vg.ok("open_nodes", names=[listed])
        assert opened["missing"] == [] and [e["name"] for e in opened["entities"]] == [listed], opened
        token = await vg.token_for("delete_entities", entityNames=[listed])
        await vg.ok("delete_entities", entityNames=[listed], elicit_token=token)
    assert not (root / "Memory/Zoe.md").exists()


async def test_over_http_the_listed_name_opens_the_note(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(_vault(make_vault)) as (url, _), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        [listed] = [e["name"] for e in (await ok(c, "read_memory_graph"))["entities"]]
        opened = await ok(c, "open_nodes", names=[listed])
        assert opened["missing"] == [] and [e["name"] for e in opened["entities"]] == [listed], opened
