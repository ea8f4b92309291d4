"""The parser's fast forms give the results of its plain forms.

`parse_note` reads links and tags with patterns that start with a literal (the regex engine then
skips to candidates in C) and the embed "!" from the character before; these tests hold them to
the plain patterns they replace (`(!?)\\[\\[…`, `(!?)\\[…`, `(?:(?<=\\s)|^)#…`) on tricky lines and
on random lines made of the characters that matter.
"""

from __future__ import annotations

import random
import re

import pytest

from service.markdown import parse
from service.markdown.fences import INLINE_CODE, CodeScanner, mask_code_outside_links
from service.markdown.frontmatter import fences
from service.markdown.line_ends import lf

PLAIN_WIKILINK = re.compile(r"(!?)\[\[([^\[\]\n]+?)\]\]")
PLAIN_MDLINK = re.compile(  # its text: brackets balanced (one level) or escaped, as CommonMark reads it
    r"(!?)\[(?!\[)((?:[^\[\]\n\\]|\\.|\[[^\[\]\n]*\])*)\]\((<[^<>\n]*>|[^()\s]+(?:\([^()\s]*\))?[^()\s]*)(?:\s+\"[^\"]*\")?\)"
)
PLAIN_TAG = re.compile(r"(?:(?<=\s)|^)#([\w/-]*[^\W\d][\w/-]*|[\w/-]*[-/][\w/-]*)")

TRICKY = [
    "",
    "![[a]]![[b]] [[c]]!![[d]]",
    '!![x](y) ![z](w "t") [a](<b c>) [[[x]]] [[a]b]] ![[',
    "[x](a(b)c) ![[#h]] [[a\\|b]] #tag ![](x)#notag",
    "#a #1 #1/2 #x-1 a#b \t#c\u3000#d ,#e (#f) ![[x]]#g ! #h",
    "<a![[x]] #tag> <span x=![y](z)> #t2",
    "[[a]]![[b]]![x](y)[[c]] ![[d]]![[e]]",
    "![![x](y)](z) [![x](y)](z) [[!x]] !![[!y]]",
    "#日本語 #über ü#no #_a #-",
    "[a [b] c](x.md) ![p \\] q](y) [[n]](z) [u [v w](x)",
]


def _lines() -> list[str]:
    rng = random.Random(39)
    alphabet = '![]()#<>"| \t-/_ab1ü^\\'
    return TRICKY + ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40))) for _ in range(4000)]


@pytest.mark.parametrize("pattern, plain", [(parse._WIKILINK, PLAIN_WIKILINK), (parse._MDLINK, PLAIN_MDLINK)])
def test_links_found_with_the_bang_before_them_are_the_plain_patterns_matches(
    pattern: re.Pattern[str], plain: re.Pattern[str]
) -> None:
    for line in _lines():
        fast = [(start, m.end(), start < m.start(), m.groups()) for start, m in parse._banged(pattern, line)]
        slow = [(m.start(), m.end(), bool(m.group(1)), m.groups()[1:]) for m in plain.finditer(line)]
        assert fast == slow, line
        assert parse._blank_links(pattern, line) == plain.sub(" ", line), line


def test_tags_found_from_their_hash_are_the_plain_patterns_tags() -> None:
    for line in _lines():
        assert parse._TAG.findall(line) == PLAIN_TAG.findall(line), line


def test_embeds_and_tags_next_to_links_are_read_as_before() -> None:
    note = parse.parse_note("n.md", "x![[a]]![b](c.md) #t <a![[x]] #no> ![[d]]#e\n")
    assert [(link.target, link.embed, link.kind) for link in note.links] == [
        ("a", True, "wikilink"),
        ("x", True, "wikilink"),
        ("d", True, "wikilink"),
        ("c.md", True, "markdown"),
    ]
    assert note.inline_tags == ["t", "e"]


PLAIN_INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1")


def test_inline_code_spans_are_the_plain_patterns_spans() -> None:
    rng = random.Random(39)
    lines = ["``a`b``", "`a``b`", "```", "`` ` ``", "a `b` c ``d`` `e"]
    lines += ["".join(rng.choice("``` ab#[]") for _ in range(rng.randint(0, 30))) for _ in range(4000)]
    for line in lines:
        assert [m.span() for m in INLINE_CODE.finditer(line)] == [m.span() for m in PLAIN_INLINE_CODE.finditer(line)], (
            line
        )


# Lines a note is made of for the whole-note checks below: code fences (also in callouts and
# under list items), indented code, nested lists, tasks, links of every form, CRLF, tabs, and
# characters `str.split` reads as spaces (NBSP, NEL, LS, ideographic space) or decodes from Latin-1.
NOTE_LINES = [
    "", "text with [[a]] and ![[b|alias]] and [[c#h]] [[d#^blk|x]] [[e\\|f]]", "```", "~~~", "```py",
    "    indented [[in code]]", "\tcode [[tab]]", "> [!note] callout [[q]]", "> ```", "> [[quoted fence]]",
    "- item [[li]]", "  - nested ![[emb]]", "\t- tabbed", "- [ ] task [[t]] 📅 2024-01-02", "1. [x] done",
    "# Heading [[h]]", "caf\xe9 na\xefve \xa0 x", "a\x85b c\u2028d e\u3000f", "`[[inline code]]` [[after]]",
    "<div>", "<!-- [[c]] -->", "[[first]] ends!", "  ", "trailing \r", "---", "...", "![[x]]![[y]] !![[z]]",
    "word\tword  word",
]  # fmt: skip
FRONT = ["", "---\ntags: [a]\n---\n", "---\r\ntitle: x\r\n---\r\n", "\ufeff---\na: 1\n---\n", "---\na: 1\n---"]


def _notes() -> list[str]:
    rng = random.Random(391)
    notes = []
    for _ in range(1500):
        body = [rng.choice(NOTE_LINES) for _ in range(rng.randint(0, 25))]
        eol = "\r\n" if rng.random() < 0.2 else "\n"
        notes.append(rng.choice(FRONT) + eol.join(body) + rng.choice(["", eol]))
    return notes


def _plain_reading(text: str) -> tuple[int, list[tuple[str, str | None, str | None, bool, int]]]:
    """Word count and wikilinks read line by line, as `parse_note` read them before its fast forms;
    a CR alone ends a line, as in Obsidian's editor (`trailing \r\r\n` is a line and a blank one)."""
    text = lf(text)
    lines = text.split("\n")
    scanner = CodeScanner()
    words, links = 0, []
    for no in range(fences(text).body_line, len(lines)):
        raw = lines[no].rstrip("\r")
        if scanner.code(raw) or not raw.strip():
            continue
        words += len(raw.split())
        line = mask_code_outside_links(raw)  # inline code blanked, but in a wikilink opened before it
        for start, m in parse._banged(parse._WIKILINK, line):
            links.append((*parse._split_link(m.group(1)), start < m.start(), no))
    return words, links


def test_word_counts_and_wikilinks_are_those_read_line_by_line() -> None:
    for text in _notes():
        note = parse.parse_note("n.md", text)
        wikilinks = [(ln.target, ln.subpath, ln.alias, ln.embed, ln.line) for ln in note.links if ln.kind == "wikilink"]
        assert (note.word_count, wikilinks) == _plain_reading(text), text
