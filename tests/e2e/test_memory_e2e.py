"""The memory graph over real HTTP and stdio with the SDK client (both protocol eras), driven by a script
written against the official MCP memory server's tool shapes: create entities, relate them, add
observations, open and search them, delete — unchanged argument shapes, vaultgate's notes; then
a conversation stored turn by turn, searched by its neighbours' words and by the days named."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from mcp import Client, StdioServerParameters

from tests.conftest import e2e
from tests.e2e.calls import error, ok


async def memory_server_script(client: Client, read: Callable[[str], str]) -> None:
    """What an agent written for the official memory server does, with its argument shapes."""
    await ok(
        client,
        "create_entities",
        entities=[
            {"name": "John_Smith", "entityType": "person", "observations": ["Speaks fluent Spanish"]},
            {"name": "Anthropic", "entityType": "organization", "observations": []},
        ],
    )
    await ok(
        client, "create_relations", relations=[{"from": "John_Smith", "to": "Anthropic", "relationType": "works_at"}]
    )
    await ok(client, "add_observations", observations=[{"entityName": "John_Smith", "contents": ["Graduated in 2019"]}])
    opened = await ok(client, "open_nodes", names=["John_Smith"])
    found = await ok(client, "search_memory", query="spanish speaker")
    graph = await ok(client, "read_memory_graph")
    await ok(
        client, "delete_observations", deletions=[{"entityName": "John_Smith", "observations": ["Graduated in 2019"]}]
    )
    await ok(
        client, "delete_relations", relations=[{"from": "John_Smith", "to": "Anthropic", "relationType": "works_at"}]
    )
    unknown = await error(client, "add_observations", observations=[{"entityName": "Nobody", "contents": ["x"]}])
    note = read("Memory/John_Smith.md")
    assert [o["text"] for o in opened["entities"][0]["observations"]] == ["Speaks fluent Spanish", "Graduated in 2019"]
    assert opened["relations"] == [{"from": "John_Smith", "to": "Anthropic", "relationType": "works_at"}]
    assert found["items"][0]["entity"] == "John_Smith" and graph["total"] == 2
    assert "Graduated" not in note and "[[Memory/Anthropic]]" not in note and "Speaks fluent Spanish" in note
    assert unknown["code"] == "note_not_found"


async def conversation_recall(client: Client) -> None:
    """A conversation stored one turn per item, one entity per speaker: a turn is found by the
    turn recorded before it (in the other speaker's note), and a day the question names picks
    the turns of that day."""
    await ok(client, "create_entities", entities=[{"name": n, "entityType": "person"} for n in ("Caroline", "Mel")])
    turns = [
        ("Caroline", "What did you paint at the lake last weekend?", "8 May, 2023"),
        ("Mel", "A sunrise, it took me all morning", "8 May, 2023"),
        ("Caroline", "I baked bread for the street party", "20 July, 2023"),
        ("Mel", "I baked bread with my kids", "1:56 pm on 9 August, 2023"),
    ]
    await ok(
        client,
        "add_observations",
        observations=[{"entityName": who, "contents": [text], "date": day} for who, text, day in turns],
    )
    painted = await ok(client, "search_memory", query="What did Mel paint at the lake?", limit=3)
    assert "A sunrise, it took me all morning" in [i["text"] for i in painted["items"]]
    baked = await ok(client, "search_memory", query="Who baked bread on 20 July, 2023?", limit=2)
    assert baked["items"][0]["text"] == "I baked bread for the street party"
    august = await ok(client, "search_memory", query="baked bread", since="2023-08", until="2023-08-31")
    assert [i["text"] for i in august["items"]] == ["I baked bread with my kids"]


async def test_a_memory_server_script_runs_unchanged_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault({"Home.md": "# Home\n"})) as (url, harness), Client(url, mode=mode) as client:  # type: ignore[arg-type]
        await memory_server_script(client, harness.read)
        await conversation_recall(client)


async def test_a_memory_server_script_runs_unchanged_over_stdio(make_vault: Callable[..., Path], mode: str) -> None:
    root = make_vault({"Home.md": "# Home\n"})
    params = StdioServerParameters(command=sys.executable, args=["-m", "service", "stdio", str(root)])
    async with Client(params, mode=mode) as client:  # type: ignore[arg-type]
        await memory_server_script(client, lambda rel: (root / rel).read_text(encoding="utf-8"))
        await conversation_recall(client)
