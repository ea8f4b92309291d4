"""add_observations whose report is over `[governor] max_response_bytes` (T1 s63 #7): it answered
`{"results": []}` (the governor halves the biggest list, and `results` holds everything), so a
client read "nothing added" while every observation was written. Now the texts it echoes go first,
then the block ids; each entity's name and counts stay, with `truncated` set. Through the
dispatch chain with a small limit, and over real HTTP with the SDK client."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e, started
from tests.e2e.calls import ok

LIMIT = {"max_response_bytes": 16_384}


def _texts(n: int) -> list[str]:
    return [f"item {i} " + " ".join(f"tok{i}x{j}" for j in range(40)) for i in range(n)]


async def _entities(call: Callable[..., object]) -> None:
    for name in ("Big", "Small"):
        await call("create_entities", entities=[{"name": name, "entityType": "t", "observations": ["seed"]}])


async def test_the_shortened_report_keeps_names_counts_and_block_ids(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({}), governor=LIMIT) as vg:
        await _entities(vg.ok)
        out = await vg.ok(
            "add_observations",
            observations=[
                {"entityName": "Big", "contents": [*_texts(60), "seed"]},
                {"entityName": "Small", "contents": ["one more", "seed"]},
            ],
        )
        assert out["truncated"] is True
        big, small = out["results"]
        assert (big["entityName"], big["added"], big["skipped"]) == ("Big", 60, 1)
        assert (small["entityName"], small["added"], small["skipped"]) == ("Small", 1, 1)
        assert big["addedObservations"] == [] and small["addedObservations"] == []  # the echoed texts go first
        assert len(big["block_ids"]) == 60 and len(small["block_ids"]) == 1  # they fit: kept
        note = vg.read("Memory/Big.md")
        assert all(f"^{b}" in note for b in big["block_ids"]) and note.count("- item ") == 60
        many = await vg.ok("add_observations", observations=[{"entityName": "Big", "contents": _texts(700)[60:]}])
        [result] = many["results"]
        assert many["truncated"] is True and (result["entityName"], result["added"]) == ("Big", 640)
        assert result["block_ids"] == []  # 640 ids (~11 KB) do not fit half of 16 KiB: left out last
        assert vg.read("Memory/Big.md").count("- item ") == 700
        small_call = await vg.ok("add_observations", observations=[{"entityName": "Small", "contents": ["x y"]}])
        assert small_call["truncated"] is False and small_call["results"][0]["addedObservations"] == ["x y"]


async def test_the_shortened_report_reaches_the_sdk_client(make_vault: Callable[..., Path]) -> None:
    async with (
        e2e(make_vault({}), throttle={"enabled": False}, governor=LIMIT) as (url, harness),
        Client(url, mode="legacy") as client,
    ):
        await ok(client, "create_entities", {"entities": [{"name": "Big", "entityType": "t", "observations": ["s"]}]})
        out = await ok(client, "add_observations", {"observations": [{"entityName": "Big", "contents": _texts(80)}]})
        assert out["truncated"] is True and out["results"][0]["entityName"] == "Big"
        assert out["results"][0]["added"] == 80 and len(out["results"][0]["block_ids"]) == 80
        assert harness.read("Memory/Big.md").count("- item ") == 80


async def test_a_report_of_non_ascii_texts_fits_by_bytes(make_vault: Callable[..., Path]) -> None:
    """The report is fitted by bytes, as the limit counts them: 600 CJK characters are 1,800
    bytes, and a report fitted by characters was still over the limit (review R3 s63 #7)."""
    async with started(make_vault({}), governor={"max_response_bytes": 16_384}) as vg:
        await vg.ok("create_entities", entities=[{"name": "Big", "entityType": "t", "observations": []}])
        texts = [f"{n} " + "".join(chr(0x4E00 + (n * 97 + k) % 20000) for k in range(600)) for n in range(11)]
        out = await vg.ok("add_observations", observations=[{"entityName": "Big", "contents": texts}])
        assert out["results"][0]["entityName"] == "Big" and out["results"][0]["added"] == 11
