"""The memory and consolidation-plane writers under a folder<->symlink swap (U1, session 80).

Earlier passes raced the note tools against their folder being exchanged with a symlink to a
folder outside the vault (tests/tools/notes/test_boundary_race.py, tests/reliability/
test_boundary_race.py). The memory tools write one note per entity into their own folder and the
capture inbox, and the plane's digest writes into `Digests/`: while a thread keeps exchanging
that folder with a symlink to a folder outside the vault holding notes of the same names, every
memory write (create_entities, add_observations, create_relations, delete_observations,
delete_entities, capture) and every applied digest changes nothing outside, and every answer is
a success or a structured error. Through the dispatch chain.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Harness, snapshot, started
from tests.tools.notes.test_boundary_race import _exchange_fn

ROUNDS = 12
EXPECTED = {"path_invalid", "note_not_found", "already_exists", "conflict", "validation_error", "stale_etag"}


@contextmanager
def flipping(root: Path, folder: str, outside: Path) -> Iterator[list[int]]:
    """A thread that keeps exchanging `root/folder` (a folder) with a symlink to `outside`."""
    exchange = _exchange_fn()
    if exchange is None:
        pytest.skip("renameat2 is not available")
    link = root / ".flip"
    os.symlink(outside, link)
    try:
        exchange(root / folder, link)
        exchange(root / folder, link)
    except OSError as exc:
        pytest.skip(f"this file system cannot exchange names: {exc}")
    stop = threading.Event()
    flips = [0]

    def run() -> None:
        while not stop.is_set():
            exchange(root / folder, link)
            flips[0] += 1

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        yield flips
    finally:
        stop.set()
        thread.join(timeout=60)
        if os.path.islink(root / folder):
            exchange(root / folder, link)  # leave the real folder in place


def entity(name: str, *observations: str) -> str:
    lines = "".join(f"- {o}\n" for o in observations)
    return f"---\nname: {name}\ntype: person\n---\n# {name}\n\n## Observations\n{lines}\n## Relations\n"


def codes_of(results: list[Any]) -> list[str]:
    codes: list[str] = []
    for result in results:
        if result.is_error:
            assert result.structured is not None, result
            codes.append(result.structured["error"]["code"])
    return codes


async def memory_round(vg: Harness, i: int, token: str) -> list[str]:
    calls = [
        vg.call("create_entities", entities=[{"name": f"New {i}", "entityType": "person", "observations": ["new"]}]),
        vg.call("add_observations", observations=[{"entityName": "Ann", "contents": [f"fact {i}"]}]),
        vg.call("create_relations", relations=[{"from": "Ann", "to": "Bob", "relationType": f"knows{i}"}]),
        vg.call("delete_observations", deletions=[{"entityName": "Bob", "observations": ["likes tea"]}]),
        vg.call("delete_entities", entityNames=[f"Gone {i}"], elicit_token=token),
        vg.call("capture", text=f"idea {i}"),
    ]
    return codes_of(list(await asyncio.gather(*calls)))


async def test_no_memory_write_escapes_while_the_memory_folder_flips_to_a_symlink(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    names = {"Ann": entity("Ann", "inside"), "Bob": entity("Bob", "likes tea", "inside")}
    names |= {f"Gone {i}": entity(f"Gone {i}", "inside") for i in range(ROUNDS)}
    root = make_vault({**{f"Race/{n}.md": text for n, text in names.items()}, "Home.md": "# Home\n"})
    outside = tmp_path / "outside"
    outside.mkdir()
    for n, text in names.items():
        (outside / f"{n}.md").write_text(text.replace("inside", "outside"), encoding="utf-8")
    (outside / "Inbox.md").write_text("# Inbox\n\n- outside\n", encoding="utf-8")
    before = snapshot(outside)
    codes: list[str] = []
    memory = {"folder": "Race", "inbox": "Race/Inbox.md"}
    async with started(root, memory=memory, index={"watch": False}, throttle={"enabled": False}) as vg:
        # delete_entities needs a human: confirmed before the race (the deletion itself races)
        tokens = [await vg.token_for("delete_entities", entityNames=[f"Gone {i}"]) for i in range(ROUNDS)]
        with flipping(root, "Race", outside) as flips:
            for i in range(ROUNDS):
                codes += await memory_round(vg, i, tokens[i])
        assert flips[0] > 0
        assert snapshot(outside) == before
        assert "internal_error" not in codes and set(codes) <= EXPECTED, codes
        # with the folder in place again, the memory is whole and readable
        assert (await vg.ok("open_nodes", names=["Ann"]))["entities"][0]["name"] == "Ann"
    assert snapshot(outside) == before


async def test_no_applied_digest_escapes_while_its_folder_flips_to_a_symlink(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    root = make_vault({"Home.md": "# Home\n\nSee [[Other]].\n", "Other.md": "# Other\n", "Digests/Old.md": "# old\n"})
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "Old.md").write_text("# outside\n", encoding="utf-8")
    before = snapshot(outside)
    codes: list[str] = []
    async with started(root, throttle={"enabled": False}) as vg:
        await vg.indexed()
        with flipping(root, "Digests", outside) as flips:
            for i in range(4):
                (root / f"Changed {i}.md").write_text(f"# Changed {i}\n\nA change.\n", encoding="utf-8")
                await vg.indexed()
                run = await vg.call("run_consolidation", wait=True, jobs=["digest"])
                codes += codes_of([run])
                listed = await vg.call("list_findings", kind="digest")
                codes += codes_of([listed])
                for found in (listed.structured or {}).get("items", []):
                    applied = await vg.call("apply_finding", finding_id=found["id"])
                    codes += codes_of([applied])
                    if not applied.is_error:
                        assert applied.structured is not None
                        assert applied.structured["run"]["status"] in {"done", "failed", "rolled_back"}, applied
        assert flips[0] > 0
    assert snapshot(outside) == before
    assert "internal_error" not in codes and set(codes) <= EXPECTED, codes
