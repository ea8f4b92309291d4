"""`paths.shortest_path` with links of files that are no nodes (canvases crossed in the middle,
B1 session 76) and `paths.canvas_links` from a `LinkGraph`."""

from __future__ import annotations

from service.graph import paths
from service.graph.adjacency import LinkGraph
from service.graph.analytics import NoteGraph
from service.graph.expand import Step


def test_a_file_takes_its_path_place_among_the_nodes() -> None:
    """Two paths of two links, one through 'B.canvas', one through 'C.md': the one through the
    first path (as among notes); with 'D.canvas' instead, the one through C.md."""
    g = NoteGraph.build([("A.md", "C.md"), ("C.md", "Z.md")], ["A.md", "C.md", "Z.md"])
    via_b = [("A.md", "B.canvas"), ("B.canvas", "Z.md")]
    assert paths.shortest_path(g, "A.md", "Z.md", True, via_b) == [
        Step("A.md", "B.canvas", "outlink"),
        Step("B.canvas", "Z.md", "outlink"),
    ]
    via_d = [("A.md", "D.canvas"), ("D.canvas", "Z.md")]
    assert [s.target for s in paths.shortest_path(g, "A.md", "Z.md", False, via_d) or []] == ["C.md", "Z.md"]
    assert paths.shortest_path(g, "Z.md", "A.md", True, via_b) is None
    assert [s.direction for s in paths.shortest_path(g, "Z.md", "A.md", False, via_b) or []] == ["backlink"] * 2


def test_canvas_links_keep_the_readable_canvases_between_nodes() -> None:
    links = LinkGraph.from_edges(
        [
            ("Home.md", "Board.canvas"),
            ("Board.canvas", "Kyoto.md"),
            ("Board.canvas", "photo.png"),
            ("Index.canvas", "Board.canvas"),
            ("Hidden.canvas", "Kyoto.md"),
            ("Home.md", "Kyoto.md"),
        ]
    )
    g = NoteGraph.from_links(links.numbered())
    found = paths.canvas_links(links, g, lambda p: not p.startswith("Hidden"))
    assert found == [
        ("Board.canvas", "Kyoto.md"),
        ("Home.md", "Board.canvas"),
        ("Index.canvas", "Board.canvas"),
    ]
    assert paths.canvas_links(links, g, lambda p: False) == []
