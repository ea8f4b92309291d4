"""`rewrite_note` against what it wrote before each target text was resolved once per note
(G1 s86): one varied note — aliases, headings, block ids, embeds, table pipes, Markdown links
(encoded, in <...>, relative, nested in a link's text, URLs), property links (quoted, plain, an
unquoted list that is no link), a CR LF line, links in code spans, fences and indented code that
must not change — under five moves, with and without the line filter (`names`). The expected
lines are what the code before that change wrote (generated on its tree), byte for byte."""

from __future__ import annotations

from service.graph.linkpath import PathSet
from service.graph.rewrite import link_names, rewrite_note

NOTE = (
    "---\n"
    'related: "[[Plan]]"\n'
    "up: '[[Projects/Plan|p]]'\n"
    "see: [[Plan]]\n"
    "note: read [[Plan]] first\n"
    "tags: [a]\n"
    "---\n"
    "# Day\n"
    "\n"
    "See [[Plan]], [[Plan]] again, [[projects/plan#Goals|goals]], ![[Plan#^goal-1]], [[Plan.md|x]], [[ Plan ]].\n"
    "Table | [[Plan\\|p]] | [[Idea]] | [[Plan 2#^b1|two]] |\r\n"
    "[a](Projects/Plan.md#Goals) [b](../Projects/Plan.md) [c](<Plan.md>) "
    "[d](https://x.org/Plan.md) [e](../Other/Plan%202.md)\n"
    "![img](../img/pic.png) [[pic.png]] ![[pic.png|100]] [[Idea#Head]] [[./Notes/Idea]] "
    "[rel](./Notes/Idea.md) [up](../Welcome.md)\n"
    "Inline `[[Plan]]` stays and [[Plan]] moves; [[Missing]] stays; `[x](Plan.md)` too.\n"
    "```\n"
    "[[Plan]] in a fence [f](Plan.md)\n"
    "```\n"
    "\n"
    "    indented code [[Plan]]\n"
    "\n"
    "> quote [[Plan|q]] and [[Notes/Idea]] and [[Projects/Notes/Idea|i]]\n"
    "- [ ] task [[Plan]] #tag [[Plan]] [[Day]] [[#Local]]\n"
    "[![i](../img/pic.png)](Plan.md) [[Plan]]\n"
    "~~~\n"
    "[[Idea]]\n"
    "~~~\n"
    "Last [[Plan 2]] [[Other/Plan 2]] [[Welcome]] [[welcome.md]]"
)
FILES = [
    "Welcome.md",
    "Projects/Plan.md",
    "Projects/Notes/Idea.md",
    "Other/Plan 2.md",
    "img/pic.png",
    "Projects/Day.md",
]
CASES = {
    "target_moves": ("Projects/Day.md", {"Projects/Plan.md": "Archive/Old Plan.md"}),
    "target_renamed_in_place": ("Projects/Day.md", {"Projects/Plan.md": "Projects/Plan v2.md"}),
    "note_itself_moves": ("Projects/Day.md", {"Projects/Day.md": "Daily/Deep/Day.md"}),
    "name_made_ambiguous": ("Projects/Day.md", {"Other/Plan 2.md": "Projects/Notes/Plan.md"}),
    "several_move": (
        "Projects/Day.md",
        {"Projects/Notes/Idea.md": "Idea.md", "img/pic.png": "media/pic.png", "Other/Plan 2.md": "Plan 2/Plan 2.md"},
    ),
}

EXPECTED: dict[str, list[tuple[int, str, str]]] = {
    "target_moves": [
        (
            2,
            'related: "[[Plan]]"',
            'related: "[[Old Plan]]"',
        ),
        (
            3,
            "up: '[[Projects/Plan|p]]'",
            "up: '[[Archive/Old Plan|p]]'",
        ),
        (
            5,
            "note: read [[Plan]] first",
            "note: read [[Old Plan]] first",
        ),
        (
            10,
            (
                "See [[Plan]], [[Plan]] again, [[projects/plan#Goals|goals]], ![[Plan#^goal-1]], "
                "[[Plan.md|x]], [[ Plan ]]."
            ),
            (
                "See [[Old Plan]], [[Old Plan]] again, [[Archive/Old Plan#Goals|goals]], ![[Old P"
                "lan#^goal-1]], [[Old Plan.md|x]], [[ Old Plan ]]."
            ),
        ),
        (
            11,
            "Table | [[Plan\\|p]] | [[Idea]] | [[Plan 2#^b1|two]] |",
            "Table | [[Old Plan\\|p]] | [[Idea]] | [[Plan 2#^b1|two]] |",
        ),
        (
            12,
            (
                "[a](Projects/Plan.md#Goals) [b](../Projects/Plan.md) [c](<Plan.md>) [d](https://"
                "x.org/Plan.md) [e](../Other/Plan%202.md)"
            ),
            (
                "[a](Archive/Old%20Plan.md#Goals) [b](../Archive/Old%20Plan.md) [c](<Old Plan.md>"
                ") [d](https://x.org/Plan.md) [e](../Other/Plan%202.md)"
            ),
        ),
        (
            14,
            ("Inline `[[Plan]]` stays and [[Plan]] moves; [[Missing]] stays; `[x](Plan.md)` too."),
            ("Inline `[[Plan]]` stays and [[Old Plan]] moves; [[Missing]] stays; `[x](Plan.md)` too."),
        ),
        (
            21,
            "> quote [[Plan|q]] and [[Notes/Idea]] and [[Projects/Notes/Idea|i]]",
            "> quote [[Old Plan|q]] and [[Notes/Idea]] and [[Projects/Notes/Idea|i]]",
        ),
        (
            22,
            "- [ ] task [[Plan]] #tag [[Plan]] [[Day]] [[#Local]]",
            "- [ ] task [[Old Plan]] #tag [[Old Plan]] [[Day]] [[#Local]]",
        ),
        (
            23,
            "[![i](../img/pic.png)](Plan.md) [[Plan]]",
            "[![i](../img/pic.png)](Old%20Plan.md) [[Old Plan]]",
        ),
    ],
    "target_renamed_in_place": [
        (
            2,
            'related: "[[Plan]]"',
            'related: "[[Plan v2]]"',
        ),
        (
            3,
            "up: '[[Projects/Plan|p]]'",
            "up: '[[Projects/Plan v2|p]]'",
        ),
        (
            5,
            "note: read [[Plan]] first",
            "note: read [[Plan v2]] first",
        ),
        (
            10,
            (
                "See [[Plan]], [[Plan]] again, [[projects/plan#Goals|goals]], ![[Plan#^goal-1]], "
                "[[Plan.md|x]], [[ Plan ]]."
            ),
            (
                "See [[Plan v2]], [[Plan v2]] again, [[Projects/Plan v2#Goals|goals]], ![[Plan v2"
                "#^goal-1]], [[Plan v2.md|x]], [[ Plan v2 ]]."
            ),
        ),
        (
            11,
            "Table | [[Plan\\|p]] | [[Idea]] | [[Plan 2#^b1|two]] |",
            "Table | [[Plan v2\\|p]] | [[Idea]] | [[Plan 2#^b1|two]] |",
        ),
        (
            12,
            (
                "[a](Projects/Plan.md#Goals) [b](../Projects/Plan.md) [c](<Plan.md>) [d](https://"
                "x.org/Plan.md) [e](../Other/Plan%202.md)"
            ),
            (
                "[a](Projects/Plan%20v2.md#Goals) [b](Plan%20v2.md) [c](<Plan v2.md>) [d](https:/"
                "/x.org/Plan.md) [e](../Other/Plan%202.md)"
            ),
        ),
        (
            14,
            ("Inline `[[Plan]]` stays and [[Plan]] moves; [[Missing]] stays; `[x](Plan.md)` too."),
            ("Inline `[[Plan]]` stays and [[Plan v2]] moves; [[Missing]] stays; `[x](Plan.md)` too."),
        ),
        (
            21,
            "> quote [[Plan|q]] and [[Notes/Idea]] and [[Projects/Notes/Idea|i]]",
            "> quote [[Plan v2|q]] and [[Notes/Idea]] and [[Projects/Notes/Idea|i]]",
        ),
        (
            22,
            "- [ ] task [[Plan]] #tag [[Plan]] [[Day]] [[#Local]]",
            "- [ ] task [[Plan v2]] #tag [[Plan v2]] [[Day]] [[#Local]]",
        ),
        (
            23,
            "[![i](../img/pic.png)](Plan.md) [[Plan]]",
            "[![i](../img/pic.png)](Plan%20v2.md) [[Plan v2]]",
        ),
    ],
    "note_itself_moves": [
        (
            12,
            (
                "[a](Projects/Plan.md#Goals) [b](../Projects/Plan.md) [c](<Plan.md>) [d](https://"
                "x.org/Plan.md) [e](../Other/Plan%202.md)"
            ),
            (
                "[a](Projects/Plan.md#Goals) [b](../../Projects/Plan.md) [c](<Plan.md>) [d](https"
                "://x.org/Plan.md) [e](../../Other/Plan%202.md)"
            ),
        ),
        (
            13,
            (
                "![img](../img/pic.png) [[pic.png]] ![[pic.png|100]] [[Idea#Head]] [[./Notes/Idea"
                "]] [rel](./Notes/Idea.md) [up](../Welcome.md)"
            ),
            (
                "![img](../../img/pic.png) [[pic.png]] ![[pic.png|100]] [[Idea#Head]] [[../../Pro"
                "jects/Notes/Idea]] [rel](../../Projects/Notes/Idea.md) [up](../../Welcome.md)"
            ),
        ),
        (
            23,
            "[![i](../img/pic.png)](Plan.md) [[Plan]]",
            "[![i](../../img/pic.png)](Plan.md) [[Plan]]",
        ),
    ],
    "name_made_ambiguous": [
        (
            11,
            "Table | [[Plan\\|p]] | [[Idea]] | [[Plan 2#^b1|two]] |",
            "Table | [[Plan\\|p]] | [[Idea]] | [[Projects/Notes/Plan#^b1|two]] |",
        ),
        (
            12,
            (
                "[a](Projects/Plan.md#Goals) [b](../Projects/Plan.md) [c](<Plan.md>) [d](https://"
                "x.org/Plan.md) [e](../Other/Plan%202.md)"
            ),
            (
                "[a](Projects/Plan.md#Goals) [b](../Projects/Plan.md) [c](<Plan.md>) [d](https://"
                "x.org/Plan.md) [e](Notes/Plan.md)"
            ),
        ),
        (
            27,
            "Last [[Plan 2]] [[Other/Plan 2]] [[Welcome]] [[welcome.md]]",
            "Last [[Projects/Notes/Plan]] [[Projects/Notes/Plan]] [[Welcome]] [[welcome.md]]",
        ),
    ],
    "several_move": [
        (
            12,
            (
                "[a](Projects/Plan.md#Goals) [b](../Projects/Plan.md) [c](<Plan.md>) [d](https://"
                "x.org/Plan.md) [e](../Other/Plan%202.md)"
            ),
            (
                "[a](Projects/Plan.md#Goals) [b](../Projects/Plan.md) [c](<Plan.md>) [d](https://"
                "x.org/Plan.md) [e](../Plan%202/Plan%202.md)"
            ),
        ),
        (
            13,
            (
                "![img](../img/pic.png) [[pic.png]] ![[pic.png|100]] [[Idea#Head]] [[./Notes/Idea"
                "]] [rel](./Notes/Idea.md) [up](../Welcome.md)"
            ),
            (
                "![img](../media/pic.png) [[pic.png]] ![[pic.png|100]] [[Idea#Head]] [[../Idea]] "
                "[rel](../Idea.md) [up](../Welcome.md)"
            ),
        ),
        (
            21,
            "> quote [[Plan|q]] and [[Notes/Idea]] and [[Projects/Notes/Idea|i]]",
            "> quote [[Plan|q]] and [[Idea]] and [[Idea|i]]",
        ),
        (
            23,
            "[![i](../img/pic.png)](Plan.md) [[Plan]]",
            "[![i](../media/pic.png)](Plan.md) [[Plan]]",
        ),
        (
            27,
            "Last [[Plan 2]] [[Other/Plan 2]] [[Welcome]] [[welcome.md]]",
            "Last [[Plan 2]] [[Plan 2/Plan 2]] [[Welcome]] [[welcome.md]]",
        ),
    ],
}


def _expected_text(changes: list[tuple[int, str, str]]) -> str:
    lines = NOTE.split("\n")
    for no, before, after in changes:
        line = lines[no - 1]
        assert line.rstrip("\r") == before
        lines[no - 1] = after + ("\r" if line.endswith("\r") else "")
    return "\n".join(lines)


def test_rewrite_writes_what_it_wrote_before_each_target_was_resolved_once() -> None:
    for case, (source, moved) in CASES.items():
        before = PathSet(FILES)
        after = PathSet(moved.get(f, f) for f in FILES)
        filters = [None] if source in moved else [None, link_names((*moved, *moved.values()))]
        for names in filters:
            result = rewrite_note(
                NOTE,
                source_before=source,
                source_after=moved.get(source, source),
                before=before,
                after=after,
                moved=moved,
                names=names,
            )
            assert [(c.line, c.before, c.after) for c in result.changes] == EXPECTED[case], case
            assert result.text == _expected_text(EXPECTED[case]), case
