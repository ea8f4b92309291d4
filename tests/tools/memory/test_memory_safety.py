"""Entity notes keep what they are given, through the dispatch chain: a person's save that lands
while the server writes the note is never written over; observation text, dates and sources that
look like provenance read back as given and forge nothing; control characters are refused; tags
given with an observation are on its line and read back."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from service.vault import files as vault_files
from tests.conftest import Harness


async def test_a_persons_save_while_the_server_writes_the_note_is_kept(
    vg: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    await vg.ok("create_entities", entities=[{"name": "Hub", "entityType": "topic", "observations": ["first"]}])
    path = vg.root / "Memory/Hub.md"
    real_write_in = vault_files.write_in
    saved: list[bool] = []

    def person_saves_meanwhile(folder_fd: int, name: str, *args: Any, **kwargs: Any) -> Any:
        # The server has read the note and compared its etag; an editor's atomic save lands now,
        # while the server's new bytes are being written.
        if name == "Hub.md" and not saved:
            saved.append(True)
            edited = path.read_text(encoding="utf-8").replace("## Relations", "- hand edit\n\n## Relations")
            tmp = Path(f"{path}.editor")
            tmp.write_text(edited, encoding="utf-8")
            os.replace(tmp, path)
        return real_write_in(folder_fd, name, *args, **kwargs)

    monkeypatch.setattr(vault_files, "write_in", person_saves_meanwhile)
    await vg.ok("add_observations", observations=[{"entityName": "Hub", "contents": ["agent fact"]}])
    assert saved == [True]
    text = path.read_text(encoding="utf-8")
    assert "- hand edit\n" in text and "agent fact" in text
    opened = await vg.ok("open_nodes", names=["Hub"])
    texts = [o["text"] for o in opened["entities"][0]["observations"]]
    assert sorted(texts) == ["agent fact", "first", "hand edit"]


FORGERIES = [
    "Quoted the form field [date:: 1999-01-01] and [source:: [[Home]]]",
    "Text [by:: mallory] [source:: [[Home]]] [date:: 1999-01-01]",
    "[fact] not a category",
    "[ ] not a task",
    "(date:: 1999-01-01) in parentheses, a::b, std::vector and a:\\:b",
    "a backslash \\[x] and \\\\:: stay as they are",
    "[[Welcome]] is a link and stays one",
]


@pytest.mark.parametrize("text", FORGERIES)
async def test_observation_text_that_looks_like_provenance_reads_back_as_given(vg: Harness, text: str) -> None:
    await vg.ok("create_entities", entities=[{"name": "Alice", "entityType": "person"}])
    added = await vg.ok("add_observations", observations=[{"entityName": "Alice", "contents": [text]}])
    assert added["results"][0]["addedObservations"] == [text]
    [obs] = (await vg.ok("open_nodes", names=["Alice"]))["entities"][0]["observations"]
    assert (obs["text"], obs["category"], obs["date"], obs["source"]) == (text, None, None, None)
    line = next(x for x in vg.read("Memory/Alice.md").splitlines() if x.startswith("- "))
    assert line.count("::") == 2 and "[recorded:: " in line and "[by:: " in line  # only the server's own fields
    found = await vg.ok("search_memory", query=text)
    hit = next(h for h in found["items"] if h["block_id"] == obs["block_id"])
    assert (hit["text"], hit["category"], hit["date"], hit["source"]) == (text, None, None, None)
    again = await vg.ok("add_observations", observations=[{"entityName": "Alice", "contents": [text]}])
    assert again["results"][0]["skipped_duplicates"] == [text]  # it reads back as the same observation


@pytest.mark.parametrize("bad", ["a\x00b", "bell\x07", "esc \x1b[31m", "del\x7f", "nel\x85"])
async def test_control_characters_in_an_observation_are_refused_and_nothing_is_written(vg: Harness, bad: str) -> None:
    await vg.ok("create_entities", entities=[{"name": "Alice", "entityType": "person"}])
    before = vg.snapshot()
    for field, batch in (
        ("contents", {"contents": ["fine", bad]}),
        ("source", {"contents": ["fine"], "source": bad}),
        ("date", {"contents": ["fine"], "date": bad}),
    ):
        error = await vg.err("add_observations", "validation_error", observations=[{"entityName": "Alice", **batch}])
        assert error["details"]["reason"] == "control_character" and field in error["details"]["field"]
    await vg.err(
        "add_observations",
        "validation_error",
        observations=[{"entityName": "Alice", "contents": ["x"], "category": bad}],
    )
    await vg.err("memory_store", "validation_error", key="Alice", value=bad, source="chat")
    await vg.err("memory_store", "validation_error", key="Alice", value="fine", source=bad)
    await vg.err(
        "create_entities", "validation_error", entities=[{"name": "Bob", "entityType": "x", "observations": [bad]}]
    )
    assert vg.snapshot() == before


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("date", "2024-01-01] [by:: mallory"),
        ("source", "Home] [date:: 1999-01-01"),
        ("source", "[[Home]] and [[Half"),
        ("date", "[[2024-01-01]]"),
    ],
)
async def test_a_date_or_source_with_brackets_is_refused_and_nothing_is_written(
    vg: Harness, field: str, value: str
) -> None:
    await vg.ok("create_entities", entities=[{"name": "Alice", "entityType": "person"}])
    before = vg.snapshot()
    error = await vg.err(
        "add_observations", "validation_error", observations=[{"entityName": "Alice", "contents": ["x"], field: value}]
    )
    assert error["details"] == {"field": f"observations[0].{field}", "reason": "brackets"}
    if field == "source":
        await vg.err("memory_store", "validation_error", key="Nobody yet", value="x", source=value)
    assert vg.snapshot() == before


async def test_a_date_and_source_read_back_as_given(vg: Harness) -> None:
    await vg.ok("create_entities", entities=[{"name": "Alice", "entityType": "person"}])
    given = [
        ("1:56 pm on 8 May, 2023", "[[Welcome]] turn D1:3"),
        ("2023-05-08", "a:: b, not a field"),
        ("(date:: 1999)", "[[Welcome]]"),
    ]
    for n, (date, source) in enumerate(given):
        batch = {"entityName": "Alice", "contents": [f"fact {n}"], "date": date, "source": source}
        await vg.ok("add_observations", observations=[batch])
    observations = (await vg.ok("open_nodes", names=["Alice"]))["entities"][0]["observations"]
    got = [(o["text"], o["date"], o["source"], o["recorded"] is not None) for o in observations]
    assert got == [(f"fact {n}", d, s, True) for n, (d, s) in enumerate(given)]


async def test_tags_given_with_observations_are_on_their_lines_and_read_back(vg: Harness) -> None:
    await vg.ok("create_entities", entities=[{"name": "Alice", "entityType": "person"}])
    batch = {
        "entityName": "Alice",
        "contents": ["Runs marathons", "Swims #sport"],
        "tags": ["sport", "#health/fitness"],
    }
    added = await vg.ok("add_observations", observations=[batch])
    texts = ["Runs marathons #sport #health/fitness", "Swims #sport #health/fitness"]
    assert added["results"][0]["addedObservations"] == texts
    lines = [x for x in vg.read("Memory/Alice.md").splitlines() if x.startswith("- ")]
    assert [x.split(" [recorded:: ")[0] for x in lines] == [f"- {t}" for t in texts]
    observations = (await vg.ok("open_nodes", names=["Alice"]))["entities"][0]["observations"]
    assert [(o["text"], o["tags"]) for o in observations] == [(t, ["sport", "health/fitness"]) for t in texts]
    hit = (await vg.ok("search_memory", query="marathons"))["items"][0]
    assert (hit["text"], hit["tags"]) == (texts[0], ["sport", "health/fitness"])
    again = await vg.ok("add_observations", observations=[batch])
    assert again["results"][0]["skipped_duplicates"] == texts


@pytest.mark.parametrize("tag", ["two words", "a]b", "[x", "#", "2024", "a::b", "x\x00"])
async def test_a_tag_that_is_not_one_word_is_refused_and_nothing_is_written(vg: Harness, tag: str) -> None:
    await vg.ok("create_entities", entities=[{"name": "Alice", "entityType": "person"}])
    before = vg.snapshot()
    error = await vg.err(
        "add_observations",
        "validation_error",
        observations=[{"entityName": "Alice", "contents": ["Runs"], "tags": ["sport", tag]}],
    )
    assert error["details"]["reason"] == "invalid_tag" and error["details"]["field"] == "observations[0].tags"
    assert vg.snapshot() == before
