"""Which YAML scalar style a frontmatter link is written in, and how new link text is written
into it so the property reads back as the same value with only the link target changed.

`styles(lines, body_line, wanted)` walks the frontmatter once, keeping whether each character is
inside a single-quoted scalar (`'...'`, `''` is one quote), a double-quoted one (`"..."`, `\\`
escapes), a block scalar (`|`, `>`: literal lines), a comment, or plain YAML, and answers the
style at each wanted (line, column). `decode` reads a quoted target as YAML does (for
resolution), `encode` writes a new target for the style (`'` doubled, `"` and `\\` escaped).
A plain scalar whose new text would no longer read as one string (`: ` or ` #` in the name) is
quoted whole by `requote_plain`; what none of this covers the caller's re-parse refuses.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import yaml

SINGLE, DOUBLE, PLAIN, LITERAL = "'", '"', "plain", "literal"  # LITERAL: block scalar or comment
FLOW = "flow"  # a `[` that opens a flow list (`up: [[Hub]]` is the list [["Hub"]], no text)

_BLOCK_START = re.compile(r"(?:^|:\s|-\s)\s*[|>][0-9+-]*$")
_ESCAPES = re.compile(r"\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)")
_SIMPLE = {"0": "\0", "a": "\a", "b": "\b", "t": "\t", "n": "\n", "v": "\v", "f": "\f", "r": "\r",
           "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\", "N": "\x85", "_": "\xa0",
           "L": "\u2028", "P": "\u2029"}  # fmt: skip


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def styles(lines: list[str], body_line: int, wanted: Iterable[tuple[int, int]]) -> dict[tuple[int, int], str]:
    """The scalar style at each (0-based line, column) of `wanted` inside the frontmatter; FLOW
    at a wanted `[` of plain YAML where a value starts (after `key: `, `- `, `[`, `{`, `,`, or at
    a line start): YAML reads a list there, not the characters of a string."""
    want: dict[int, set[int]] = {}
    for no, col in wanted:
        want.setdefault(no, set()).add(col)
    out: dict[tuple[int, int], str] = {}
    state = PLAIN
    block_indent = -1  # inside a block scalar: lines indented deeper than this are literal
    for no in range(1, max(body_line - 1, 1)):
        line = lines[no].rstrip("\r")
        cols = want.get(no, set())
        if block_indent >= 0:
            if not line.strip() or _indent(line) > block_indent:
                out.update({(no, c): LITERAL for c in cols})
                continue
            block_indent = -1
        prev = " "  # the character before, as YAML sees it at a line start
        before = _Before(line)
        i = 0
        while i < len(line):
            ch = line[i]
            if i in cols:
                opens = state == PLAIN and ch == "[" and prev in " \t[{," and before.opens(i)
                out[(no, i)] = FLOW if opens else state
            if state == SINGLE:
                if ch == "'":
                    if line.startswith("''", i):
                        if i + 1 in cols:
                            out[(no, i + 1)] = state
                        i += 2
                        continue
                    state = PLAIN
            elif state == DOUBLE:
                if ch == "\\":
                    if i + 1 in cols:
                        out[(no, i + 1)] = state
                    i += 2
                    continue
                if ch == '"':
                    state = PLAIN
            elif ch == "#" and prev in " \t":
                out.update({(no, c): LITERAL for c in cols if c > i})
                break
            elif ch in "'\"" and prev in " \t[{," and before.opens(i):
                state = SINGLE if ch == "'" else DOUBLE
            prev = ch
            i += 1
        if state == PLAIN and _BLOCK_START.search(line.split(" #", 1)[0].rstrip()):
            block_indent = _indent(line)
    return out


_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def flow_lists(lines: list[str], body_line: int) -> set[tuple[int, int]]:
    """(0-based line, column) of every `[` YAML's scanner reads as a flow list's start in the
    frontmatter (as far as it scans: a broken block keeps what came before the error). Confirms a
    FLOW of `styles`, which cannot see that a line continues a multi-line plain scalar."""
    text = "\n".join(line.rstrip("\r") for line in lines[1 : max(body_line - 1, 1)])
    found: set[tuple[int, int]] = set()
    try:
        for token in yaml.scan(text, Loader=_LOADER):
            if isinstance(token, yaml.FlowSequenceStartToken):
                found.add((token.start_mark.line + 1, token.start_mark.column))
    except yaml.YAMLError:
        pass
    return found


class _Before:
    """Whether a quote at a column starts a scalar: at a line start, after `key: `, `- `, `?`, or
    in a flow list (`[`, `{`, `,`), node properties between skipped (`k: !!str '...'`, `- &a '...'`).
    What precedes the column is kept while the line is walked forward (columns asked in order):
    the last character of the last whitespace-separated word not starting with `!` or `&`, so a
    line of many quotes costs one pass, not a look at its whole start for each quote."""

    __slots__ = ("first", "last", "line", "pos", "word_end")

    def __init__(self, line: str) -> None:
        self.line = line
        self.pos = 0
        self.last = ""  # the last character of the last completed word that is no property
        self.first = ""  # the first character of the word being read ('' between words)
        self.word_end = ""  # its last character so far

    def opens(self, at: int) -> bool:
        for ch in self.line[self.pos : at]:
            if ch.isspace():
                if self.first and self.first not in "!&":
                    self.last = self.word_end
                self.first = ""
            else:
                if not self.first:
                    self.first = ch
                self.word_end = ch
        self.pos = max(self.pos, at)
        end = self.word_end if self.first else self.last  # no whitespace before `at`: its last character
        return end == "" or end in ":-[{,?"


def decode(raw: str, style: str) -> str:
    """The text YAML reads from `raw` written inside a scalar of `style`."""
    if style == SINGLE:
        return raw.replace("''", "'")
    if style == DOUBLE and "\\" in raw:
        return _ESCAPES.sub(_unescape, raw)
    return raw


def _unescape(m: re.Match[str]) -> str:
    code = m.group(1)
    if len(code) > 1:
        return chr(int(code[1:], 16))
    return _SIMPLE.get(code, m.group(0))


def encode(text: str, style: str) -> str:
    """`text` written inside a scalar of `style` so it reads back as `text`."""
    if style == SINGLE:
        return text.replace("'", "''")
    if style == DOUBLE:
        return text.replace("\\", "\\\\").replace('"', '\\"')
    return text


_VALUE_START = re.compile(r"^(\s*(?:-\s+)*(?:[^\s'\"#\[{][^#]*?:\s+)?(?:-\s+)*)")


def requote_plain(original: str, line: str, start: int) -> str:
    """`line` (`original` with links rewritten inside one plain block scalar, at column `start`)
    with that scalar single-quoted when it would not read back as the same string; unchanged when
    it reads alike or the scalar does not start on this line (a continuation: left to the re-parse)."""
    m = _VALUE_START.match(original)
    lead = m.group(1) if m else ""
    if len(lead) > start or original[len(lead) : len(lead) + 1] in ("[", "{", "'", '"'):
        return line
    rest = original[len(lead) :]
    cut = re.search(r"\s+#", rest)
    tail = rest[cut.start() :] if cut else rest[len(rest.rstrip()) :]
    value = line[len(lead) : len(line) - len(tail)]
    if _reads_as(value):
        return line
    return lead + "'" + value.replace("'", "''") + "'" + tail


def _reads_as(value: str) -> bool:
    try:
        return bool(yaml.safe_load("k: " + value) == {"k": value})
    except yaml.YAMLError:
        return False
