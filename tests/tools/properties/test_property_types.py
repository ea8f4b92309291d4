"""Property types from `.obsidian/types.json`: set_properties writes a value as the type the vault
gives its name (as Obsidian's Properties view stores it), refuses what cannot be that type, and
list_properties says which type Obsidian shows."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

TYPES = {
    "types": {
        "genre": "multitext",
        "rating": "number",
        "owned": "checkbox",
        "created": "date",
        "started": "datetime",
        "model": "text",
        "odd": "spreadsheet",  # no Obsidian type: left out
    }
}
MOVIE = "---\ngenre:\n  - drama\nrating: 3\n---\n# Movie\n"
FILES: dict[str, str | bytes] = {"Movie.md": MOVIE, "Blank.md": "# Blank\n", ".obsidian/types.json": json.dumps(TYPES)}


async def test_values_are_written_as_the_declared_type(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES)) as vg:
        out = await vg.ok(
            "set_properties",
            path="Blank",
            properties={
                "Genre": "thriller",  # a list type, named in another letter case
                "rating": "4.5",
                "owned": "TRUE",
                "created": "2024-02-29",
                "started": "2024-03-01T09:30",
                "model": 42,
                "aliases": "The Film",
                "tags": "cinema",
                "free": "7",  # undeclared: as given
            },
        )
        props = out["properties"]
        assert props["Genre"] == ["thriller"] and props["rating"] == 4.5 and props["owned"] is True
        assert props["created"] == "2024-02-29" and props["started"] == "2024-03-01T09:30"
        assert props["model"] == 42 and props["aliases"] == ["The Film"] and props["tags"] == ["cinema"]
        assert props["free"] == "7"
        text = vg.read("Blank.md")
        assert "rating: 4.5\n" in text and "owned: true\n" in text and "Genre:\n  - thriller\n" in text
        same = await vg.ok("set_properties", path="Movie", properties={"genre": "drama"})
        assert same["properties"]["genre"] == ["drama"] and not same["changed"]  # already that list
        removed = await vg.ok("set_properties", path="Movie", properties={"rating": None})
        assert "rating" not in removed["properties"]


async def test_a_value_that_cannot_be_the_type_is_refused_and_nothing_changes(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES)) as vg:
        before = vg.snapshot()
        for key, value, says in (
            ("rating", "four", "a number"),
            ("rating", True, "a number"),
            ("owned", "yes", "true or false"),
            ("created", "2024-02-30", "YYYY-MM-DD"),
            ("created", "29/02/2024", "YYYY-MM-DD"),
            ("started", "2024-03-01", "YYYY-MM-DDTHH:MM"),
            ("model", ["a", "b"], "one text"),
            ("genre", {"a": 1}, "a list of texts"),
        ):
            error = await vg.err(
                "set_properties", "validation_error", path="Movie", properties={"title": "x", key: value}
            )
            assert error["details"] == {"field": "properties", "key": key, "type": TYPES["types"].get(key)}, error
            assert says in error["message"] and "types.json" in error["message"]
        assert vg.snapshot() == before


async def test_list_properties_says_the_declared_type(make_vault: Callable[..., Path]) -> None:
    files = {**FILES, "Book.md": "---\nrating: five\ntags: [a]\nauthor: Ann\n---\n"}
    async with started(make_vault(files)) as vg:
        await vg.indexed()
        out = await vg.ok("list_properties")
        got = {i["key"]: (i["type"], i["declared"]) for i in out["items"]}
        assert got["genre"] == ("list", "multitext") and got["author"] == ("text", None)
        assert got["tags"] == ("list", "tags")
        assert out["items"][[i["key"] for i in out["items"]].index("rating")]["types"] == {"number": 1, "text": 1}
        assert got["rating"][1] == "number"


async def test_a_missing_or_broken_types_file_leaves_only_the_built_in_types(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"Movie.md": MOVIE, ".obsidian/types.json": "{not json"})) as vg:
        out = await vg.ok("set_properties", path="Movie", properties={"rating": "four", "aliases": "Film"})
        assert out["properties"]["rating"] == "four" and out["properties"]["aliases"] == ["Film"]
