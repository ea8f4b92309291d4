"""A property link's new target is written for the YAML scalar it sits in, so the property reads
back as the same value with only the link changed (R1 s63 F2: `parent: '[[Hub]]'` renamed to
"Hub's plan" became unparseable YAML and every property of the note was lost); a rewrite whose
frontmatter would not read back is refused, not written."""

from __future__ import annotations

import pytest

from service.errors import ValidationFailed
from service.graph.linkpath import PathSet
from service.graph.rewrite import find_links, rewrite_note
from service.markdown import frontmatter as fm


def _rename(text: str, new: str) -> str:
    files = ["Hub.md", "S.md"]
    return rewrite_note(
        text,
        source_before="S.md",
        source_after="S.md",
        before=PathSet(files),
        after=PathSet([new if f == "Hub.md" else f for f in files]),
        moved={"Hub.md": new},
    ).text


@pytest.mark.parametrize(
    ("front", "new", "expected", "value"),
    [
        ("parent: '[[Hub]]'", "Hub's plan.md", "parent: '[[Hub''s plan]]'", "[[Hub's plan]]"),
        ('parent: "[[Hub]]"', 'Say "hi" \\ x.md', 'parent: "[[Say \\"hi\\" \\\\ x]]"', '[[Say "hi" \\ x]]'),
        ("k: see [[Hub]] now # c", "Hub: two.md", "k: 'see [[Hub: two]] now' # c", "see [[Hub: two]] now"),
        ("k: see [[Hub]]", "Hub #2.md", "k: 'see [[Hub #2]]'", "see [[Hub #2]]"),
        ("k: see [[Hub]]", "Hub's.md", "k: see [[Hub's]]", "see [[Hub's]]"),
        (
            "rel: ['[[Hub]]', \"[[Hub|h]]\"]",
            'Hub\'s "q".md',
            'rel: [\'[[Hub\'\'s "q"]]\', "[[Hub\'s \\"q\\"|h]]"]',
            ['[[Hub\'s "q"]]', '[[Hub\'s "q"|h]]'],
        ),
    ],
)
def test_new_target_is_written_for_the_scalar_style(front: str, new: str, expected: str, value: object) -> None:
    text = f"---\n{front}\nother: 'it''s'\n---\nbody [[Hub]]\n"
    out = _rename(text, new)
    assert out == f"---\n{expected}\nother: 'it''s'\n---\nbody [[{new[:-3]}]]\n"
    parsed = fm.split(out)
    assert parsed.error is None and parsed.data == {front.split(":")[0]: value, "other": "it's"}


def test_a_quoted_link_is_read_as_yaml_reads_it() -> None:
    # the link a previous rename wrote (`''`) and an escaped one are found and followed again
    text = "---\na: '[[Hub''s plan]]'\nb: \"[[H\\u0075b\\u0027s plan]]\"\n---\n"
    assert [f.target for f in find_links(text)] == ["Hub's plan", "Hub's plan"]
    files = ["Hub's plan.md", "S.md"]
    out = rewrite_note(
        text,
        source_before="S.md",
        source_after="S.md",
        before=PathSet(files),
        after=PathSet(["Plan.md", "S.md"]),
        moved={"Hub's plan.md": "Plan.md"},
    ).text
    assert out == "---\na: '[[Plan]]'\nb: \"[[Plan]]\"\n---\n"


def test_block_scalars_and_comments_take_the_name_as_is() -> None:
    text = "---\ns: |\n  see [[Hub]] 'x\nk: 1 # [[Hub]]\n---\n"
    assert _rename(text, "Hub's.md") == "---\ns: |\n  see [[Hub's]] 'x\nk: 1 # [[Hub's]]\n---\n"


def test_a_rewrite_that_would_change_a_property_is_refused() -> None:
    # a plain scalar continued on the next line: ' #' in the new name would start a comment there
    with pytest.raises(ValidationFailed) as exc:
        _rename("---\nk: see\n  [[Hub]] now\n---\n", "Hub #two.md")
    assert exc.value.details == {"path": "S.md", "reason": "frontmatter_rewrite"}
    # frontmatter that did not parse before is not what the rewrite broke: rewritten as before
    assert _rename("---\nup: '[[Hub]]'\n: :\n---\n", "Hub, two.md") == "---\nup: '[[Hub, two]]'\n: :\n---\n"


def test_an_unquoted_link_where_a_value_starts_is_a_list_and_kept() -> None:
    """`up: [[Hub]]` is YAML's nested list [["Hub"]], no link (review R2 s64 F3: the rename
    rewrote it, the value changed, and the whole move was refused): left as written, as the
    index and Obsidian read it; string values holding a link, and the body, are rewritten."""
    text = (
        "---\nup: [[Hub]]\nq: \"[[Hub]]\"\nl:\n  - [[Hub]]\n  - x [[Hub]]\nf: ['[[Hub]]', [[Hub]]]\n"
        "k: see\n  [[Hub]] now\nbroken: [[Hub|h]], x\n---\nbody [[Hub]]\n"
    )
    assert _rename(text, "Hub, two.md") == (
        "---\nup: [[Hub]]\nq: \"[[Hub, two]]\"\nl:\n  - [[Hub]]\n  - x [[Hub, two]]\nf: ['[[Hub, two]]', [[Hub]]]\n"
        "k: see\n  [[Hub, two]] now\nbroken: [[Hub|h]], x\n---\nbody [[Hub, two]]\n"
    )


def test_a_tagged_or_anchored_quoted_value_is_quoted() -> None:
    text = "---\na: !!str '[[Hub]]'\nb: &x '[[Hub]]'\n---\n"
    assert _rename(text, "Hub's.md") == "---\na: !!str '[[Hub''s]]'\nb: &x '[[Hub''s]]'\n---\n"
