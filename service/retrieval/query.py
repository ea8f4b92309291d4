"""User query syntax -> a safe FTS5 MATCH expression.

Syntax (case of the operators matters, as in most search boxes):
    word            a term (stemmed by the porter tokenizer)
    word*           prefix
    "two words"     phrase
    a b / a AND b   both
    a OR b          either
    -a / NOT a      exclude
    ( ... )         grouping
    title:word      restrict a term or phrase to the title

Guarantee: every string either translates into an expression FTS5 accepts (each term is
emitted as a double-quoted FTS5 string, so no user character is ever FTS5 syntax) or raises
`QuerySyntaxError`; never an SQLite error at query time.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from service.errors import QuerySyntaxError

_TOKEN = re.compile(r'\s*(?:(?P<lp>\()|(?P<rp>\))|(?P<phrase>(?:title:)?"[^"]*"?\*?)|(?P<word>[^\s()"]+))')
_HAS_WORD = re.compile(r"\w")
MAX_TERMS = 64


@dataclass(frozen=True)
class Parsed:
    match: str  # the FTS5 expression
    terms: tuple[str, ...]  # the positive terms, for display


def _quote(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


class _Parser:
    def __init__(self, source: str) -> None:
        self.tokens = self._lex(source)
        self.pos = 0
        self.terms: list[str] = []

    @staticmethod
    def _lex(source: str) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        pos = 0
        while pos < len(source):
            if source[pos:].strip() == "":
                break
            m = _TOKEN.match(source, pos)
            if m is None or m.end() == pos:  # pragma: no cover - the pattern always advances
                raise QuerySyntaxError("could not read the query", details={"position": pos})
            pos = m.end()
            kind = m.lastgroup or "word"
            out.append((kind, m.group(kind)))
        return out

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def parse(self) -> str:
        if not self.tokens:
            raise QuerySyntaxError("empty query", hint="Type at least one word.")
        expr = self.or_expr()
        if self.peek() is not None:
            raise QuerySyntaxError("unexpected ')'", hint="Balance the parentheses.")
        if expr is None:
            raise QuerySyntaxError("the query has no searchable term", hint="Use at least one positive word.")
        return expr

    def or_expr(self) -> str | None:
        parts = [self.and_expr()]
        while (tok := self.peek()) is not None and tok == ("word", "OR"):
            self.pos += 1
            parts.append(self.and_expr())
        if len(parts) > 1 and any(p is None for p in parts):
            raise QuerySyntaxError("OR needs a positive term on both sides")
        kept = [p for p in parts if p is not None]
        if not kept:
            return None
        return kept[0] if len(kept) == 1 else "(" + " OR ".join(kept) + ")"

    def and_expr(self) -> str | None:
        positives: list[str] = []
        negatives: list[str] = []
        while (tok := self.peek()) is not None and tok[0] != "rp" and tok != ("word", "OR"):
            if tok == ("word", "AND"):
                self.pos += 1
                if self.peek() is None or self.peek() == ("word", "OR"):
                    raise QuerySyntaxError("AND needs a term after it")
                continue
            negate = False
            if tok == ("word", "NOT"):
                self.pos += 1
                negate = True
                if self.peek() is None:
                    raise QuerySyntaxError("NOT needs a term after it")
            elif tok == ("word", "-") and self.pos + 1 < len(self.tokens):
                self.pos += 1
                negate = True
            elif tok[0] == "word" and tok[1].startswith("-") and len(tok[1]) > 1:
                self.tokens[self.pos] = ("word", tok[1][1:])
                negate = True
            unit = self.unary()
            if unit is not None:
                (negatives if negate else positives).append(unit)
        if not positives:
            if negatives:
                raise QuerySyntaxError("a query cannot only exclude terms", hint="Add a word to search for.")
            return None
        expr = positives[0] if len(positives) == 1 else "(" + " AND ".join(positives) + ")"
        for neg in negatives:
            expr = f"({expr} NOT {neg})"
        return expr

    def unary(self) -> str | None:
        tok = self.peek()
        assert tok is not None
        self.pos += 1
        kind, text = tok
        if kind == "lp":
            inner = self.or_expr()
            if self.peek() != ("rp", ")"):
                raise QuerySyntaxError("missing ')'", hint="Balance the parentheses.")
            self.pos += 1
            return inner
        if kind == "rp":  # pragma: no cover - and_expr stops before ')'
            raise QuerySyntaxError("unexpected ')'")
        column = ""
        if text.startswith("title:") and len(text) > 6:
            column, text = "title : ", text[6:]
        prefix = text.endswith("*")
        text = text.rstrip("*")
        if kind == "phrase" or text.startswith('"'):
            if not (len(text) >= 2 and text.startswith('"') and text.endswith('"')):
                raise QuerySyntaxError("unclosed quote", hint='Close the phrase with a second ".')
            text = text[1:-1]
        if not _HAS_WORD.search(text):
            return None  # punctuation only: nothing the tokenizer would index
        self.terms.append(text)
        if len(self.terms) > MAX_TERMS:
            raise QuerySyntaxError("too many terms", details={"max": MAX_TERMS})
        return column + _quote(text) + ("*" if prefix else "")


def parse_query(source: str) -> Parsed:
    parser = _Parser(source)
    match = parser.parse()
    return Parsed(match=match, terms=tuple(parser.terms))
