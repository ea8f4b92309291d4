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

Questions: English stop words (service/retrieval/stopwords.py) are left out of a conjunction
that has other words, so "how do I link to a heading" searches `link AND heading`; a query of
stop words only, or with AND written, is searched as written. A query that is a plain list of words (no AND / OR
written, parentheses count as one word) also gets a relaxed form, the same units joined with
OR (exclusions kept), for the caller to run when the strict form finds too little (BM25 ranks
the notes matching more and rarer words first). Phrases, prefixes and title: stay as written
in both forms.

Guarantee: every string either translates into an expression FTS5 accepts (each term is
emitted as a double-quoted FTS5 string, so no user character is ever FTS5 syntax) or raises
`QuerySyntaxError`; never an SQLite error at query time.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from service.errors import QuerySyntaxError
from service.retrieval.stopwords import is_stop_word
from service.retrieval.unspaced import searched

_TOKEN = re.compile(r'\s*(?:(?P<lp>\()|(?P<rp>\))|(?P<phrase>(?:title:)?"[^"]*"?\*?)|(?P<word>[^\s()"]+))')
_HAS_WORD = re.compile(r"\w")
MAX_TERMS = 64


@dataclass(frozen=True)
class Parsed:
    match: str  # the FTS5 expression: every searched word (the strict pass)
    terms: tuple[str, ...]  # the positive terms searched, for display
    relaxed: str | None = None  # the same units joined by OR; None when the query is not a plain list
    dropped: tuple[str, ...] = ()  # stop words left out


@dataclass
class _Unit:
    expr: str
    term: str | None  # the word or phrase (None for a group)
    stop: bool


@dataclass
class _Conj:
    positives: list[_Unit]
    negatives: list[str]
    explicit: bool  # the user wrote AND

    def content(self) -> list[_Unit]:
        return [u for u in self.positives if not u.stop]

    def kept(self) -> list[_Unit]:
        """The positive units searched: stop words out of a plain list of words, unless they are
        all it has (a conjunction with AND written keeps every word)."""
        return self.positives if self.explicit else (self.content() or self.positives)

    def render(self, joiner: str = "AND") -> str:
        # A unit written again adds nothing to the match but each of its places in a note once
        # more to what FTS5's snippet() weighs against each other, a cost that grows as their
        # square and that no read budget interrupts: "plan" 8 times took 6.9 s on a note of 3,000
        # "plan"s, 60 times over a minute. Kept once (FTS5 folds case as the tokenizer does).
        kept = _once([u.expr for u in self.kept()])
        expr = kept[0] if len(kept) == 1 else "(" + f" {joiner} ".join(kept) + ")"
        for neg in self.negatives:
            expr = f"({expr} NOT {neg})"
        return expr


def _quote(text: str) -> str:
    """An FTS5 string of `text` as the index holds it (`unspaced.searched`: a Chinese word is a
    phrase of its characters)."""
    return '"' + searched(text).replace('"', '""') + '"'


def _once(exprs: list[str]) -> list[str]:
    """Each expression once, the first spelling kept (FTS5 folds case as the tokenizer does)."""
    seen: dict[str, str] = {}
    for expr in exprs:
        seen.setdefault(expr.casefold(), expr)
    return list(seen.values())


def _render_or(conjs: list[_Conj]) -> str:
    parts = _once([c.render() for c in conjs])
    return parts[0] if len(parts) == 1 else "(" + " OR ".join(parts) + ")"


# The way out of an operator read where a word was meant.
_PLAIN = 'To search for an operator word or sign itself, quote it ("and").'


class _Parser:
    def __init__(self, source: str) -> None:
        # A NUL ends FTS5's reading of a quoted term ('unterminated string' from SQLite): it
        # separates words, as the tokenizer reads every other control character.
        self.tokens = self._lex(source.replace("\x00", " "))
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
                raise QuerySyntaxError("could not read the query", details={"position": pos}, hint=_PLAIN)
            pos = m.end()
            kind = m.lastgroup or "word"
            out.append((kind, m.group(kind)))
        return out

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def parse(self) -> list[_Conj]:
        if not self.tokens:
            raise QuerySyntaxError("empty query", hint="Type at least one word.")
        conjs = self.or_expr()
        if self.peek() is not None:
            raise QuerySyntaxError("unexpected ')'", hint="Balance the parentheses.")
        if not conjs:
            raise QuerySyntaxError("the query has no searchable term", hint="Use at least one positive word.")
        return conjs

    def or_expr(self) -> list[_Conj]:
        parts = [self.and_expr()]
        while (tok := self.peek()) is not None and tok == ("word", "OR"):
            self.pos += 1
            parts.append(self.and_expr())
        if len(parts) > 1 and any(p is None for p in parts):
            raise QuerySyntaxError(
                "OR needs a positive term on both sides",
                hint="Put a word to search for on each side of OR; NOT and -word only exclude.",
            )
        return [p for p in parts if p is not None]

    def and_expr(self) -> _Conj | None:
        conj = _Conj([], [], explicit=False)
        while (tok := self.peek()) is not None and tok[0] != "rp" and tok != ("word", "OR"):
            if tok == ("word", "AND"):
                self.pos += 1
                conj.explicit = True
                if self.peek() is None or self.peek() == ("word", "OR"):
                    raise QuerySyntaxError(
                        "AND needs a term after it",
                        hint="Put a word after AND, or leave AND out: words are joined by AND by default. " + _PLAIN,
                    )
                continue
            negate = False
            if tok == ("word", "NOT"):
                self.pos += 1
                negate = True
                if self.peek() is None:
                    raise QuerySyntaxError(
                        "NOT needs a term after it",
                        hint="Put the word to leave out after NOT (or write -word). " + _PLAIN,
                    )
            elif tok == ("word", "-") and self.pos + 1 < len(self.tokens):
                self.pos += 1
                negate = True
            elif tok[0] == "word" and tok[1].startswith("-") and len(tok[1]) > 1:
                self.tokens[self.pos] = ("word", tok[1][1:])
                negate = True
            unit = self.unary()
            if unit is not None:
                if negate:
                    conj.negatives.append(unit.expr)
                else:
                    conj.positives.append(unit)
        if not conj.positives:
            if conj.negatives:
                raise QuerySyntaxError("a query cannot only exclude terms", hint="Add a word to search for.")
            return None
        self.terms += [u.term for u in conj.kept() if u.term is not None]
        return conj

    def unary(self) -> _Unit | None:
        tok = self.peek()
        assert tok is not None
        self.pos += 1
        kind, text = tok
        if kind == "lp":
            inner = self.or_expr()
            if self.peek() != ("rp", ")"):
                raise QuerySyntaxError("missing ')'", hint="Balance the parentheses.")
            self.pos += 1
            return _Unit(_render_or(inner), None, stop=False) if inner else None
        if kind == "rp":  # pragma: no cover - and_expr stops before ')'
            raise QuerySyntaxError("unexpected ')'")
        column = ""
        if text.startswith("title:") and len(text) > 6:
            column, text = "title : ", text[6:]
        prefix = text.endswith("*")
        text = text.rstrip("*")
        quoted = kind == "phrase" or text.startswith('"')
        if quoted:
            if not (len(text) >= 2 and text.startswith('"') and text.endswith('"')):
                raise QuerySyntaxError("unclosed quote", hint='Close the phrase with a second ".')
            text = text[1:-1]
        if not _HAS_WORD.search(text):
            return None  # punctuation only: nothing the tokenizer would index
        if len(self.terms) + 1 > MAX_TERMS or self.pos > 4 * MAX_TERMS:
            raise QuerySyntaxError("too many terms", details={"max": MAX_TERMS})
        stop = not (quoted or prefix or column) and is_stop_word(text)
        return _Unit(column + _quote(text) + ("*" if prefix else ""), text, stop)


def parse_query(source: str) -> Parsed:
    parser = _Parser(source)
    conjs = parser.parse()
    relaxed = None
    if len(conjs) == 1 and not conjs[0].explicit and len(conjs[0].content()) > 1:
        relaxed = conjs[0].render("OR")
    dropped = tuple(u.term for c in conjs for u in c.positives if u.term and u not in c.kept())
    return Parsed(match=_render_or(conjs), terms=tuple(parser.terms), relaxed=relaxed, dropped=dropped)
