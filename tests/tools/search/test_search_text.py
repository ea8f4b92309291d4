"""search_text and search_regex through the full dispatch chain."""

from __future__ import annotations

import pytest

from tests.conftest import Harness


def paths(out: dict) -> list[str]:
    return [item["path"] for item in out["items"]]


async def test_search_text_stems_and_returns_snippet_with_highlights(sv: Harness) -> None:
    out = await sv.ok("search_text", query="launching", folder="Projects")
    assert paths(out) == ["Projects/Alpha.md"]
    hit = out["items"][0]
    assert hit["title"] == "Alpha"  # the file name; its frontmatter title still counts as title text
    assert hit["obsidian_url"] == "obsidian://open?vault=" + sv.root.name + "&file=Projects%2FAlpha.md"
    marked = [hit["snippet"][a:b].lower() for a, b in hit["highlights"]]
    assert marked and all(m.startswith("launch") for m in marked)


async def test_search_text_phrase_prefix_and_boolean_operators(sv: Harness) -> None:
    assert paths(await sv.ok("search_text", query='"planted tomatoes"')) == ["Journal/2026-01-05.md"]
    assert paths(await sv.ok("search_text", query='"tomatoes planted"')) == []
    assert paths(await sv.ok("search_text", query="orbit*")) == ["Journal/2026-01-06.md"]
    both = await sv.ok("search_text", query="garden AND soil")
    assert paths(both) == ["Projects/Beta.md"]
    either = await sv.ok("search_text", query="soil OR tomatoes", sort="path")
    assert paths(either) == ["Journal/2026-01-05.md", "Projects/Beta.md"]
    excluded = await sv.ok("search_text", query="garden -soil", sort="path")
    assert "Projects/Beta.md" not in paths(excluded) and "Journal/2026-01-05.md" in paths(excluded)
    assert paths(await sv.ok("search_text", query="garden NOT soil", sort="path")) == paths(excluded)
    assert paths(await sv.ok("search_text", query="title:launch")) == ["Projects/Alpha.md"]


async def test_search_text_title_matches_rank_first(sv: Harness) -> None:
    out = await sv.ok("search_text", query="launch")
    assert paths(out)[0] == "Projects/Alpha.md"  # in its title; Secret only in the body


async def test_search_text_paginates_with_cursor_and_sorts(sv: Harness) -> None:
    everything = paths(await sv.ok("search_text", query="rocket*", sort="path", limit=100))
    assert everything == sorted(everything) and len(everything) >= 5
    seen: list[str] = []
    cursor = None
    while True:
        args = {"query": "rocket*", "sort": "path", "limit": 2}
        if cursor:
            args["cursor"] = cursor
        page = await sv.ok("search_text", **args)
        assert len(page["items"]) <= 2
        seen += paths(page)
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert seen == everything


async def test_search_text_sees_writes_and_forgets_deleted_notes(sv: Harness) -> None:
    await sv.ok("create_note", path="Inbox/New.md", content="# New\n\nA zeppelin appears.\n")
    assert paths(await sv.ok("search_text", query="zeppelin")) == ["Inbox/New.md"]
    await sv.confirmed("write_note", path="Inbox/New.md", content="# New\n\nAn airship now.\n", mode="overwrite")
    assert paths(await sv.ok("search_text", query="zeppelin")) == []
    assert paths(await sv.ok("search_text", query="airship")) == ["Inbox/New.md"]
    await sv.ok("delete_note", path="Inbox/New.md")
    assert paths(await sv.ok("search_text", query="airship")) == []


@pytest.mark.parametrize(
    ("query", "code"),
    [
        ("", "validation_error"),
        ("   ", "query_syntax_error"),
        ('"unclosed', "query_syntax_error"),
        ("(a OR b", "query_syntax_error"),
        ("a OR", "query_syntax_error"),
        ("-only", "query_syntax_error"),
        ("!!! ???", "query_syntax_error"),
    ],
)
async def test_search_text_rejects_bad_queries(sv: Harness, query: str, code: str) -> None:
    error = await sv.err("search_text", code, query=query)
    assert error["message"]


async def test_search_text_failure_paths(sv: Harness) -> None:
    before = sv.snapshot()
    await sv.err("search_text", "note_not_found", query="rocket", folder="Nope")
    await sv.err("search_text", "path_invalid", query="rocket", folder="../outside")
    await sv.err("search_text", "validation_error", query="rocket", limit=0)
    await sv.err("search_text", "validation_error", query="rocket", cursor="garbage!")
    other = (await sv.ok("search_tags", tags=["project"], limit=1))["next_cursor"]
    await sv.err("search_text", "validation_error", query="rocket", cursor=other)
    await sv.err("search_text", "validation_error", query="rocket", bogus=1)
    assert sv.snapshot() == before


# -- search_regex --------------------------------------------------------------------------------


async def test_search_regex_returns_file_lines_and_spans(sv: Harness) -> None:
    out = await sv.ok("search_regex", pattern=r"code \d+")
    assert paths(out) == ["Projects/Gamma.md"]
    assert out["prefiltered"] is True
    match = out["items"][0]["matches"][0]
    lines = sv.read("Projects/Gamma.md").split("\n")
    assert lines[match["line"] - 1] == match["text"] == "Error: code 42 on line 7"
    a, b = match["spans"][0]
    assert match["text"][a:b] == "code 42"


async def test_search_regex_flags_and_unprefiltered_patterns(sv: Harness) -> None:
    assert paths(await sv.ok("search_regex", pattern="ROCKET")) == []
    ci = await sv.ok("search_regex", pattern="ROCKET", ignore_case=True)
    assert "Projects/Alpha.md" in paths(ci)
    anchored = await sv.ok("search_regex", pattern=r"^\w+@\w+", folder="Projects")
    assert paths(anchored) == []  # "Contact: ana@..." does not start the line
    dotcom = await sv.ok("search_regex", pattern=r"[a-z]+@[a-z]+\.com")
    assert paths(dotcom) == ["Projects/Alpha.md"] and dotcom["prefiltered"] is True  # ".com"
    email = await sv.ok("search_regex", pattern=r"[a-z]+@[a-z]+")
    assert paths(email) == ["Projects/Alpha.md"]
    assert email["prefiltered"] is False  # no literal of 3+ characters to prefilter on


async def test_search_regex_paginates(sv: Harness) -> None:
    first = await sv.ok("search_regex", pattern="rocket", ignore_case=True, limit=2)
    assert len(first["items"]) == 2 and first["next_cursor"]
    second = await sv.ok("search_regex", pattern="rocket", ignore_case=True, limit=2, cursor=first["next_cursor"])
    assert not set(paths(first)) & set(paths(second))


async def test_search_regex_catastrophic_pattern_hits_the_budget(make_vault) -> None:  # type: ignore[no-untyped-def]
    from tests.conftest import started

    async with started(make_vault({"Evil.md": "a" * 60 + "\n"})) as vg:
        await vg.indexed()
        before = vg.snapshot()
        error = await vg.err("search_regex", "compute_budget_exceeded", pattern=r"(a|aa)+b", budget_ms=50)
        assert error["details"]["budget_ms"] == 50 and error["hint"]
        assert vg.snapshot() == before
        # the server is still responsive afterwards
        assert (await vg.ok("search_regex", pattern="a{3}"))["items"]


async def test_search_regex_failure_paths(sv: Harness) -> None:
    before = sv.snapshot()
    error = await sv.err("search_regex", "query_syntax_error", pattern="(unclosed")
    assert "reason" in error["details"]
    await sv.err("search_regex", "validation_error", pattern="")
    await sv.err("search_regex", "validation_error", pattern="x" * 1001)
    await sv.err("search_regex", "validation_error", pattern="x", budget_ms=1)
    await sv.err("search_regex", "note_not_found", pattern="x", folder="Missing")
    assert sv.snapshot() == before


async def test_a_long_note_s_snippet_is_cut_around_its_match(sv: Harness) -> None:
    filler = " ".join(f"line{i} of the logbook." for i in range(3000))  # ~60 KB
    body = f"# Log\n\n{filler}\n\nThe dirigible docked at noon.\n\n{filler}\n"
    await sv.ok("create_note", path="Logs/Long.md", content=body)
    hit = (await sv.ok("search_text", query="dirigible"))["items"][0]
    assert hit["path"] == "Logs/Long.md"
    assert hit["snippet"].startswith("…") and hit["snippet"].endswith("…")
    assert [hit["snippet"][a:b] for a, b in hit["highlights"]] == ["dirigible"]
    assert len(hit["snippet"]) < 200
