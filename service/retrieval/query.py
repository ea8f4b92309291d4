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
in both forms. A word of a script written without spaces (Chinese, Japanese, Korean, Thai) is
searched as written in the strict form, the string itself (a phrase of its characters,
`unspaced.searched`); a run of `SEVERAL` characters or more, likely several words typed
without a space, as its overlapping pairs of characters in the relaxed one
(`unspaced.bag_words`): 机器学习基础 finds "机器学习的基础" among the notes holding some of
its words, as "机器学习 基础" would.

Guarantee: every string either translates into an expression FTS5 accepts (each term is
emitted as a double-quoted FTS5 string, so no user character is ever FTS5 syntax) or raises
`QuerySyntaxError`; never an SQLite error at query time.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from service.errors import QuerySyntaxError
from service.retrieval.stems import terms
from service.retrieval.stopwords import is_stop_word
from service.retrieval.unspaced import bag_words, longest_run, searched

_TOKEN = re.compile(r'\s*(?:(?P<lp>\()|(?P<rp>\))|(?P<phrase>(?:title:)?"[^"]*"?\*?)|(?P<word>[^\s()"]+))')
_HAS_WORD = re.compile(r"\w")
MAX_TERMS = 64
# A run of characters of an unspaced script from which it is read as several words in the relaxed
# form: Chinese and Japanese words are mostly one to four characters (机器学习, a four-character
# idiom), so a shorter run is taken as one word, as an English word has no relaxed form.
SEVERAL = 5


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
    # What the unit finds: (column, the index's terms, prefix) for a word or phrase; a group's
    # expression otherwise (`_once`).
    key: tuple[str, tuple[str, ...], bool] | None = None
    plain: bool = False  # a word as typed: no quotes, prefix or column

    def pairs(self) -> list[_Unit]:
        """The units of this one in a relaxed form: a plain word holding a run of `SEVERAL` or more
        characters of unspaced scripts as its pairs of characters and its other runs
        (`unspaced.bag_words`), else itself."""
        if not self.plain or self.term is None or self.term.isascii() or longest_run(self.term) < SEVERAL:
            return [self]
        found = [w for w in bag_words(self.term) if _HAS_WORD.search(w)]
        if len(found) < 2:
            return [self]
        return [_Unit(_quote(w), w, stop=False, key=("", terms(searched(w)), False), plain=True) for w in found]


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

    def single(self) -> _Unit | None:
        """The one unit searched, when that is all the conjunction is (no exclusion)."""
        kept = self.kept()
        if self.negatives or len({u.key or u.expr.casefold() for u in kept}) != 1:
            return None
        return kept[0]

    def render(self, joiner: str = "AND", split: bool = False) -> str:
        # A unit written again adds nothing to the match but each of its places in a note once
        # more to what FTS5's snippet() weighs against each other, a cost that grows as their
        # square and that no read budget interrupts: "plan" 8 times took 6.9 s on a note of 3,000
        # "plan"s, 60 times over a minute. Kept once (`_once`: by the terms the index looks up).
        kept = _once([p for u in self.kept() for p in u.pairs()] if split else self.kept(), joiner)
        expr = kept[0] if len(kept) == 1 else "(" + f" {joiner} ".join(kept) + ")"
        for neg in self.negatives:
            expr = f"({expr} NOT {neg})"
        return expr


def _quote(text: str) -> str:
    """An FTS5 string of `text` as the index holds it (`unspaced.searched`: a Chinese word is a
    phrase of its characters)."""
    return '"' + searched(text).replace('"', '""') + '"'


def _once(units: list[_Unit], joiner: str) -> list[str]:
    """The expressions of `units` joined by `joiner` ("AND" / "OR"), each unit that finds the same
    notes as another once, the first spelling kept: the same terms to the index's tokenizer
    ("plan", "Plan", "plan.", "plans": `stems.terms`), and a prefix that another unit of an AND
    implies ("pl*" beside "plan", "p*" beside "pl*"), or that implies another unit of an OR, once.
    Spellings the tokenizer reads alike were each a phrase of their own to snippet(): eight of
    "plan" took 4 s on a note of 2,500 "plan"s, in one SQLite step."""
    seen: dict[object, _Unit] = {}
    for u in units:
        seen.setdefault(u.key or u.expr.casefold(), u)
    kept = list(seen.values())
    return [u.expr for u in kept if not any(o is not u and _implied(u, o, joiner) for o in kept)]


def _implied(u: _Unit, o: _Unit, joiner: str) -> bool:
    """Whether `u` adds nothing to `o` joined by `joiner`: with AND, `u` is a one-word prefix p*
    that a word of `o` starts with (a note with `o` has a word starting so); with OR, `o` is
    that prefix and `u` has such a word (a note with `u` has one). A column: the prefix's none
    or the same as the other unit's."""
    prefix, other = (u, o) if joiner == "AND" else (o, u)
    if prefix.key is None or other.key is None or not prefix.key[2] or len(prefix.key[1]) != 1:
        return False
    if prefix.key[0] not in ("", other.key[0]):
        return False
    p = prefix.key[1][0]
    return any(t.startswith(p) for t in other.key[1])


def _render_or(conjs: list[_Conj]) -> str:
    units = [c.single() or _Unit(c.render(), None, stop=False) for c in conjs]
    parts = _once(units, "OR")
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
        key = (column, terms(searched(text)), prefix)
        return _Unit(column + _quote(text) + ("*" if prefix else ""), text, stop, key, not (quoted or prefix or column))


def parse_query(source: str) -> Parsed:
    parser = _Parser(source)
    conjs = parser.parse()
    relaxed = None
    conj = conjs[0]
    if len(conjs) == 1 and not conj.explicit and (len(conj.content()) > 1 or len(conj.kept()[0].pairs()) > 1):
        relaxed = conj.render("OR", split=True)
    match = _render_or(conjs)
    if relaxed == match:  # one unit under several spellings: the strict pass is the relaxed one
        relaxed = None
    dropped = tuple(u.term for c in conjs for u in c.positives if u.term and u not in c.kept())
    return Parsed(match=match, terms=tuple(parser.terms), relaxed=relaxed, dropped=dropped)
