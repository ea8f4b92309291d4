"""service.obsidian: JSON Canvas validation, bookmark walking, workspace leaves, attachment kinds
and the attachment folder setting, each against the documented format."""

from __future__ import annotations

import pytest

from service.obsidian import attachments as at
from service.obsidian import bookmarks as bm
from service.obsidian import canvas as cv
from service.obsidian import workspace as ws


def _text(ident: str, **extra: object) -> dict[str, object]:
    return {"id": ident, "type": "text", "x": 0, "y": 0, "width": 1, "height": 1, "text": "", **extra}


def test_a_valid_canvas_has_no_problems_and_empty_is_valid() -> None:
    assert cv.problems({}) == [] and cv.problems({"nodes": [], "edges": []}) == []
    nodes = [_text("a", color="#FFF"), _text("b", color="6"), _text("c", color="#a0b1c2")]
    edges = [{"id": "e", "fromNode": "a", "toNode": "b", "fromEnd": "arrow", "toEnd": "none", "toSide": "top"}]
    assert cv.problems({"nodes": nodes, "edges": edges, "x-anything": 1}) == []


@pytest.mark.parametrize(
    ("canvas", "field"),
    [
        ([], ""),
        ({"nodes": {}}, "nodes"),
        ({"nodes": [_text("a", x=True)]}, "x"),  # a boolean is not an integer
        ({"nodes": [_text("a", height=-1)]}, "height"),
        ({"nodes": [_text("a", color="#12345")]}, "color"),
        ({"nodes": [_text("a", color="0")]}, "color"),
        ({"nodes": [_text("")]}, "id"),
        ({"nodes": [_text("a")], "edges": [{"id": "e", "fromNode": "a"}]}, "toNode"),
        ({"nodes": [_text("a")], "edges": [{"id": "a", "fromNode": "a", "toNode": "a", "label": 3}]}, "label"),
        ({"nodes": [{"id": "l", "type": "link", "x": 0, "y": 0, "width": 1, "height": 1}]}, "url"),
    ],
)
def test_canvas_problems_name_the_field(canvas: object, field: str) -> None:
    assert field in [p["field"] for p in cv.problems(canvas)]


def test_searchable_text_and_file_refs() -> None:
    canvas = {
        "nodes": [
            _text("a", text="alpha"),
            {"id": "g", "type": "group", "label": "beta"},
            {"id": "f", "type": "file", "file": "N.md", "subpath": "#H"},
        ],
        "edges": [{"id": "e", "label": "gamma"}],
    }
    assert cv.searchable_text(canvas) == "alpha\n\nbeta\n\ngamma"
    assert cv.file_refs(canvas) == [("N.md", "#H")]
    assert cv.dumps({"nodes": []}) == '{\n\t"nodes": []\n}'


def test_bookmark_positions_skip_hidden_items_and_nest() -> None:
    items = [
        {"type": "file", "path": "Secret.md"},
        {"type": "group", "title": "G", "items": [{"type": "url", "url": "u"}, {"type": "search", "query": "q"}]},
        "junk",
    ]
    found = [(loc.position, loc.depth, loc.group) for loc in bm.walk(items, lambda i: i.get("path") != "Secret.md")]
    assert found == [("0", 0, None), ("0.0", 1, "G"), ("0.1", 1, "G")]
    assert bm.items_of({"items": "x"}) == [] and bm.items_of(None) == []
    assert bm.same_target({"type": "file", "path": "A.md"}, {"type": "file", "path": "A.md"})
    assert not bm.same_target({"type": "file", "path": "A.md", "subpath": "#x"}, {"type": "file", "path": "A.md"})


def test_workspace_leaves_and_partial_files() -> None:
    data = {
        "main": {"type": "split", "children": [{"type": "tabs", "currentTab": 1, "children": [
            {"id": "1", "type": "leaf", "state": {"type": "markdown", "state": {"file": "A.md"}}},
            {"id": "2", "type": "leaf", "state": {"type": "pdf", "state": {"file": "d.pdf"}}, "pinned": True},
        ]}]},
        "right": {"type": "split", "children": [{"id": "3", "type": "leaf", "state": "broken"}]},
        "active": "2",
        "lastOpenFiles": ["A.md", 3, "A.md", "B.md"],
    }  # fmt: skip
    leaves = ws.leaves(data)
    assert [(x.id, x.area, x.view, x.file, x.current, x.pinned) for x in leaves] == [
        ("1", "main", "markdown", "A.md", False, False),
        ("2", "main", "pdf", "d.pdf", True, True),
        ("3", "right", "", None, True, False),
    ]
    assert ws.active_id(data) == "2" and ws.last_open_files(data) == ["A.md", "B.md"]
    assert ws.leaves("x") == [] and ws.active_id(None) is None and ws.last_open_files({"lastOpenFiles": 1}) == []


@pytest.mark.parametrize(
    ("path", "kind"),
    [("a.PNG", "image"), ("a.svg", "image"), ("a.webm", "video"), ("a.m4a", "audio"), ("a.pdf", "pdf"),
     ("a.canvas", "canvas"), ("a.base", "base"), ("a.csv", "text"), ("a.zip", "other")],
)  # fmt: skip
def test_kinds_follow_obsidians_accepted_formats(path: str, kind: str) -> None:
    assert at.kind_of(path) == kind


@pytest.mark.parametrize(
    ("setting", "note", "folder"),
    [
        ("", "Daily/Today.md", ""),
        ("/", "Daily/Today.md", ""),
        ("Attachments", "Daily/Today.md", "Attachments"),
        ("Files/Media/", None, "Files/Media"),
        ("./", "Daily/Today.md", "Daily"),
        ("./", "Top.md", ""),
        ("./assets", "Daily/Today.md", "Daily/assets"),
        ("./assets", None, "assets"),
    ],
)
def test_attachment_folder_setting(setting: str, note: str | None, folder: str) -> None:
    assert at.folder_for(setting, note) == folder
    assert at.setting_of({"attachmentFolderPath": setting}) == setting.strip()
    assert at.setting_of({"attachmentFolderPath": 3}) == ""
