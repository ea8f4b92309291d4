"""Link resolution over a set of paths, and link text that keeps the user's style."""

from __future__ import annotations

from service.graph.linkpath import LinkForm, PathSet, form_of

FILES = ["Welcome.md", "Projects/Plan.md", "Projects/Notes/Idea.md", "Archive/Idea.md", "img/pic.png"]


def test_resolves_exact_path_with_or_without_md_case_insensitively() -> None:
    paths = PathSet(FILES)
    assert paths.resolve("Projects/Plan", "Welcome.md") == "Projects/Plan.md"
    assert paths.resolve("projects/plan.MD", "Welcome.md") == "Projects/Plan.md"


def test_resolves_unique_bare_name_anywhere() -> None:
    assert PathSet(FILES).resolve("plan", "Welcome.md") == "Projects/Plan.md"


def test_ambiguous_name_prefers_same_folder_then_shortest_path() -> None:
    paths = PathSet(FILES)
    assert paths.resolve("Idea", "Projects/Notes/Other.md") == "Projects/Notes/Idea.md"
    assert paths.resolve("Idea", "Welcome.md") == "Archive/Idea.md"


def test_relative_and_suffix_paths_resolve() -> None:
    paths = PathSet(FILES)
    assert paths.resolve("../Plan.md", "Projects/Notes/Idea.md") == "Projects/Plan.md"
    assert paths.resolve("Notes/Idea", "Welcome.md") == "Projects/Notes/Idea.md"
    assert paths.resolve("Missing", "Welcome.md") is None
    assert paths.resolve("pic.png", "Welcome.md") == "img/pic.png"


def test_bare_name_stays_bare_only_while_unique() -> None:
    paths = PathSet(FILES)
    assert paths.link_text("Projects/Plan.md", "Welcome.md", LinkForm("name", False, False)) == "Plan"
    # 'Idea' is not unique: the full path (no '.md', as written) is used instead.
    assert paths.link_text("Projects/Notes/Idea.md", "Welcome.md", LinkForm("name", False, False)) == (
        "Projects/Notes/Idea"
    )


def test_relative_style_and_extension_are_kept() -> None:
    paths = PathSet(FILES)
    form = form_of("../Plan.md", "Projects/Plan.md")
    assert form == LinkForm("relative", True, False)
    assert paths.link_text("Projects/Plan.md", "Archive/Idea.md", form) == "../Projects/Plan.md"


def test_link_text_always_resolves_back_to_the_target() -> None:
    paths = PathSet([*FILES, "Welcome/Plan.md"])
    for target in paths.paths():
        for source in paths.paths():
            for form in (
                LinkForm("name", False, False),
                LinkForm("path", True, False),
                LinkForm("relative", True, True),
            ):
                text = paths.link_text(target, source, form)
                assert paths.resolve(text, source) == target, (target, source, form, text)
