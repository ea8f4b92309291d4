"""read_canvas and write_canvas (JSON Canvas 1.0), through the chain."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Harness, started

NO_PRIVATE = {"prefix_rules": [{"path": "Private", "read": "deny"}]}

# Every node type, both colour forms, every edge field, and fields the spec does not name.
BOARD: dict[str, Any] = {
    "nodes": [
        {"id": "g1", "type": "group", "x": -20, "y": -20, "width": 800, "height": 400, "label": "Plan",
         "background": "img/bg.png", "backgroundStyle": "cover", "color": "4"},
        {"id": "t1", "type": "text", "x": 0, "y": 0, "width": 250, "height": 60, "text": "Ship **it**",
         "color": "#ff8800"},
        {"id": "f1", "type": "file", "x": 300, "y": 0, "width": 400, "height": 300, "file": "Projects/Plan.md",
         "subpath": "#Goals", "x-plugin": {"pinned": True}},
        {"id": "f2", "type": "file", "x": 300, "y": 400, "width": 400, "height": 300, "file": "Private/Diary.md"},
        {"id": "l1", "type": "link", "x": 0, "y": 100, "width": 250, "height": 60, "url": "https://jsoncanvas.org"},
    ],
    "edges": [
        {"id": "e1", "fromNode": "t1", "fromSide": "right", "fromEnd": "none", "toNode": "f1", "toSide": "left",
         "toEnd": "arrow", "color": "1", "label": "details"},
        {"id": "e2", "fromNode": "l1", "toNode": "t1"},
    ],
    "x-canvas-meta": {"version": "1.0"},
}  # fmt: skip

FILES = {
    "Projects/Plan.md": "# Plan\n\n## Goals\n",
    "Private/Diary.md": "secret\n",
    "Private/Plans.canvas": "{}",
    "img/bg.png": b"\x89PNG",
    "Board.canvas": json.dumps(BOARD, indent="\t"),
    "Broken.canvas": "{nope",
    "Loose.canvas": json.dumps({"nodes": [{"id": "a", "type": "text", "x": 1.5, "y": 0, "width": 10, "height": 10}]}),
}


@pytest.fixture
async def cv(make_vault: Callable[..., Path]) -> AsyncIterator[Harness]:
    async with started(make_vault(FILES), acl=NO_PRIVATE) as harness:
        yield harness


def _node(ident: str, **fields: Any) -> dict[str, Any]:
    return {"id": ident, "type": "text", "x": 0, "y": 0, "width": 100, "height": 50, "text": ident, **fields}


@pytest.mark.covers("read_canvas", "success")
async def test_read_resolves_file_nodes_and_keeps_unknown_fields(cv: Harness) -> None:
    out = await cv.ok("read_canvas", path="Board")
    assert out["path"] == "Board.canvas" and out["title"] == "Board" and out["problems"] == []
    assert out["obsidian_url"].endswith("file=Board.canvas") and len(out["etag"]) == 32
    nodes = {n["id"]: n for n in out["nodes"]}
    assert [n["id"] for n in out["nodes"]] == ["g1", "t1", "f1", "f2", "l1"]  # z-order kept
    assert nodes["g1"]["backgroundStyle"] == "cover" and nodes["g1"]["label"] == "Plan" and nodes["g1"]["color"] == "4"
    assert nodes["t1"]["text"] == "Ship **it**" and nodes["t1"]["color"] == "#ff8800"
    assert nodes["f1"]["resolved"]["path"] == "Projects/Plan.md" and nodes["f1"]["resolved"]["title"] == "Plan"
    assert nodes["f1"]["subpath"] == "#Goals" and nodes["f1"]["extra"] == {"x-plugin": {"pinned": True}}
    assert nodes["f2"]["resolved"] is None  # a file the caller may not read is not resolved
    assert nodes["l1"]["url"] == "https://jsoncanvas.org"
    e1 = out["edges"][0]
    assert (e1["fromNode"], e1["fromSide"], e1["fromEnd"], e1["toNode"], e1["toSide"], e1["toEnd"]) == (
        "t1", "right", "none", "f1", "left", "arrow",
    )  # fmt: skip
    assert e1["color"] == "1" and e1["label"] == "details"
    assert out["extra"] == {"x-canvas-meta": {"version": "1.0"}}


async def test_read_is_lenient_and_lists_problems(cv: Harness) -> None:
    out = await cv.ok("read_canvas", path="Loose.canvas")
    assert [n["id"] for n in out["nodes"]] == ["a"]
    assert [(p["where"], p["field"]) for p in out["problems"]] == [("nodes[0]", "x"), ("nodes[0]", "text")]


@pytest.mark.covers("read_canvas", "failure")
async def test_read_failures(cv: Harness) -> None:
    await cv.err("read_canvas", "note_not_found", path="Nope.canvas")
    err = await cv.err("read_canvas", "validation_error", path="Broken.canvas")
    assert err["details"]["reason"] == "invalid_json"
    assert (await cv.err("read_canvas", "validation_error", path="Projects/Plan.md"))["details"][
        "reason"
    ] == "not_a_canvas"
    await cv.err("read_canvas", "path_invalid", path="../x.canvas")
    await cv.err("read_canvas", "acl_denied", path="Private/Plans")


@pytest.mark.covers("write_canvas", "success")
async def test_round_trip_keeps_everything(cv: Harness) -> None:
    read = await cv.ok("read_canvas", path="Board.canvas")
    out = await cv.ok(
        "write_canvas", path="Board.canvas", nodes=read["nodes"], edges=read["edges"], expected_etag=read["etag"]
    )
    assert out["created"] is False and out["nodes"] == 5 and out["edges"] == 2
    # Written as Obsidian writes it (tab-indented); every field, unknown ones included, kept.
    assert cv.read("Board.canvas") == json.dumps(BOARD, indent="\t")
    assert out["etag"] == read["etag"]


async def test_create_a_canvas_and_read_it_back(cv: Harness) -> None:
    nodes = [
        _node("a"),
        {"id": "b", "type": "file", "x": 200, "y": 0, "width": 100, "height": 100, "file": "Projects/Plan.md"},
    ]
    out = await cv.ok(
        "write_canvas",
        path="Maps/New",
        nodes=nodes,
        edges=[{"id": "e", "fromNode": "a", "toNode": "b"}],
        create_only=True,
    )
    assert out["path"] == "Maps/New.canvas" and out["created"] is True
    saved = json.loads(cv.read("Maps/New.canvas"))
    assert saved == {"nodes": nodes, "edges": [{"id": "e", "fromNode": "a", "toNode": "b"}]}
    again = await cv.ok("read_canvas", path="Maps/New.canvas")
    assert again["nodes"][1]["resolved"]["path"] == "Projects/Plan.md"


@pytest.mark.parametrize(
    ("nodes", "edges", "where", "field"),
    [
        ([_node("a"), _node("a")], [], "nodes[1]", "id"),
        ([_node("a")], [{"id": "e", "fromNode": "a", "toNode": "zz"}], "edges[0]", "toNode"),
        ([_node("a", x=1.5)], [], "nodes[0]", "x"),
        ([_node("a", width=0)], [], "nodes[0]", "width"),
        ([_node("a", color="red")], [], "nodes[0]", "color"),
        ([_node("a", color="7")], [], "nodes[0]", "color"),
        ([_node("a", type="shape")], [], "nodes[0]", "type"),
        ([{"id": "a", "type": "text", "x": 0, "y": 0, "width": 1, "height": 1}], [], "nodes[0]", "text"),
        ([_node("a")], [{"id": "e", "fromNode": "a", "toNode": "a", "fromSide": "middle"}], "edges[0]", "fromSide"),
        ([_node("a")], [{"id": "e", "fromNode": "a", "toNode": "a", "toEnd": "dot"}], "edges[0]", "toEnd"),
        ([_node("a", type="group", backgroundStyle="tile")], [], "nodes[0]", "backgroundStyle"),
        ([_node("a", type="file", file="Projects/Plan.md", subpath="Goals")], [], "nodes[0]", "subpath"),
        ([_node("a", type="file", file="../outside.md")], [], "nodes[0]", "file"),
        ([_node("a", type="file", file=".obsidian/app.json")], [], "nodes[0]", "file"),
        ([_node("a", type="file", file="Private/Diary.md")], [], "nodes[0]", "file"),
        ([_node("a", type="group", background="/etc/passwd")], [], "nodes[0]", "background"),
    ],
)
@pytest.mark.covers("write_canvas", "failure")
async def test_invalid_canvases_are_refused_whole(
    cv: Harness, nodes: list[dict[str, Any]], edges: list[dict[str, Any]], where: str, field: str
) -> None:
    before = cv.snapshot()
    err = await cv.err("write_canvas", "validation_error", path="New.canvas", nodes=nodes, edges=edges)
    assert err["details"]["reason"] == "invalid_canvas"
    assert (where, field) in [(p["where"], p["field"]) for p in err["details"]["problems"]]
    assert cv.snapshot() == before


async def test_every_problem_is_reported_at_once(cv: Harness) -> None:
    err = await cv.err("write_canvas", "validation_error", path="New", nodes=[_node("a", x="0", color="x"), _node("a")])
    assert err["details"]["total"] == 3


@pytest.mark.covers("write_canvas", "failure")
async def test_write_guards(cv: Harness) -> None:
    before = cv.snapshot()
    await cv.err("write_canvas", "conflict", path="Board.canvas", nodes=[_node("a")], expected_etag="0" * 32)
    await cv.err("write_canvas", "already_exists", path="Board.canvas", nodes=[_node("a")], create_only=True)
    await cv.err("write_canvas", "elicit_required", path="Board.canvas", nodes=[_node("a")])
    await cv.err("write_canvas", "validation_error", path="Board.md", nodes=[_node("a")])
    await cv.err("write_canvas", "acl_denied", path=".obsidian/Board.canvas", nodes=[_node("a")])
    await cv.err("write_canvas", "path_invalid", path="../Board.canvas", nodes=[_node("a")])
    assert cv.snapshot() == before
    out = await cv.confirmed("write_canvas", path="Board.canvas", nodes=[_node("a")])
    saved = json.loads(cv.read("Board.canvas"))
    assert out["nodes"] == 1 and saved["x-canvas-meta"] == {"version": "1.0"}  # the file's own extra kept


async def test_a_canvas_is_read_by_its_bare_name_as_a_note_is(make_vault: Callable[..., Path]) -> None:
    files = {"Boards/Deep Plan.canvas": json.dumps(BOARD), "A/Twice.canvas": "{}", "B/Twice.canvas": "{}"}
    async with started(make_vault({**files, "Projects/Plan.md": "# Plan\n"})) as vg:
        await vg.indexed()
        for name in ("Deep Plan", "deep plan", "Deep Plan.canvas", "Boards/Deep Plan", "[[Deep Plan.canvas]]"):
            out = await vg.ok("read_canvas", path=name)
            assert out["path"] == "Boards/Deep Plan.canvas", name
        error = await vg.err("read_canvas", "ambiguous_note", path="Twice")
        assert sorted(error["details"]["candidates"]) == ["A/Twice.canvas", "B/Twice.canvas"]
        await vg.err("read_canvas", "note_not_found", path="Nowhere")


async def test_a_canvas_is_written_by_the_name_it_is_read_by(make_vault: Callable[..., Path]) -> None:
    files = {"Maps/Flow.canvas": json.dumps({"nodes": [_node("n1")], "edges": []}), "A/Twice.canvas": "{}"}
    async with started(make_vault({**files, "B/Twice.canvas": "{}"})) as vg:
        await vg.indexed()
        before = vg.snapshot()
        for name in ("Flow", "flow", "[[Flow]]", "Flow.canvas", "Maps/Flow"):
            error = await vg.err("write_canvas", "already_exists", path=name, nodes=[_node("a")], create_only=True)
            assert error["details"]["path"] == "Maps/Flow.canvas", name
        await vg.err("write_canvas", "ambiguous_note", path="Twice", nodes=[_node("a")], create_only=True)
        assert vg.snapshot() == before  # no second canvas beside the one the name names
        step = {"id": "w", "tool": "write_canvas", "args": {"path": "Flow", "nodes": [_node("a")]}}
        plan = await vg.ok("validate_plan", plan={"goal": "redraw", "steps": [step]})
        assert plan["effects"]["files_modified"] == ["Maps/Flow.canvas"] and plan["effects"]["files_created"] == []
        read = await vg.ok("read_canvas", path="Flow")
        out = await vg.ok("write_canvas", path="[[Flow]]", nodes=[_node("b")], expected_etag=read["etag"])
        assert out["path"] == "Maps/Flow.canvas" and out["created"] is False
        await vg.err("write_canvas", "elicit_required", path="flow", nodes=[_node("c")])  # replacing it is asked
        made = await vg.ok("write_canvas", path="[[Maps/Other]]", nodes=[_node("a")], create_only=True)
        assert made["path"] == "Maps/Other.canvas" and made["created"] is True


async def test_file_nodes_named_as_wikilinks_are_written_with_their_vault_paths(
    make_vault: Callable[..., Path],
) -> None:
    files = {"Books/Dune.md": "# Dune\n", "Projects/Roadmap.md": "# Roadmap\n\n## Goals\n", "img/cover.png": b"\x89PNG"}
    async with started(make_vault({**files, "A/Twin.md": "", "B/Twin.md": ""}), acl=NO_PRIVATE) as vg:
        await vg.indexed()
        names = ["Dune", "[[Roadmap#Goals]]", "cover.png", "Projects/Later.md"]  # the last: no file yet, kept
        nodes = [_node(f"f{i}", type="file", file=name) for i, name in enumerate(names)]
        await vg.ok("write_canvas", path="Maps/Reading", nodes=nodes, create_only=True)
        saved = json.loads(vg.read("Maps/Reading.canvas"))["nodes"]
        assert [(n["file"], n.get("subpath")) for n in saved] == [
            ("Books/Dune.md", None), ("Projects/Roadmap.md", "#Goals"), ("img/cover.png", None),
            ("Projects/Later.md", None),
        ]  # fmt: skip
        twin = [_node("t", type="file", file="Twin")]  # two notes have that name
        error = await vg.err("write_canvas", "validation_error", path="New", nodes=twin)
        assert error["details"]["problems"][0]["where"] == "nodes[0]"
        assert not (vg.root / "New.canvas").exists()
