"""tests/tools/memory/test_memory_fields_stay_on_their_line.py over HTTP with the SDK client (both
eras): a category holding a carriage return, a `valid_until` holding an unpaired `%%` and a relation
type holding a NUL are `validation_error` naming their reason, the notes unchanged (before A4 s95
each was written: the first forged a line, the second hid the rest of the note, the third put a NUL
in it); a `valid_until` that is a wikilink reads back on the superseded observation."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import error, ok
from tests.tools.memory.test_memory_fields_stay_on_their_line import ANN, BOB, VAULT


async def test_memory_fields_that_would_leave_their_line_are_refused_over_http(
    make_vault: Callable[..., Path], mode: str
) -> None:
    async with e2e(make_vault(VAULT)) as (url, h), Client(url, mode=mode) as c:
        batch = {"entityName": "Ann", "contents": ["Owns a boat"], "category": "x\r- forged fact"}
        refused = await error(c, "add_observations", observations=[batch])
        assert (refused["code"], refused["details"]["reason"]) == ("validation_error", "invalid_category")
        superseding = {"entityName": "Ann", "observation": "^m-aaaa", "superseded_by": "^m-bbbb"}
        refused = await error(c, "supersede_observation", superseding, valid_until="2020 %%")
        assert (refused["code"], refused["details"]["reason"]) == ("validation_error", "comment_marker")
        relation = {"from": "Bob", "to": "Ann", "relationType": "knows\x00"}
        refused = await error(c, "create_relations", relations=[relation])
        assert (refused["code"], refused["details"]["reason"]) == ("validation_error", "control_character")
        assert (h.read("Memory/Ann.md"), h.read("Memory/Bob.md")) == (ANN, BOB)
        await ok(c, "supersede_observation", superseding, valid_until="[[2020-01-01]]")
        opened = await ok(c, "open_nodes", names=["Ann"])
        first = opened["entities"][0]["observations"][0]
        assert (first["text"], first["superseded_by"], first["valid_until"]) == (
            "Lives in Oslo",
            "m-bbbb",
            "[[2020-01-01]]",
        )
        assert [o["text"] for o in opened["entities"][0]["observations"]] == [
            "Lives in Oslo",
            "Lives in Bergen",
            "Likes tea",
        ]
