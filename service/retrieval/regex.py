"""Regular-expression search under a true wall-clock budget, prefiltered by the trigram index.

Patterns run on the `regex` package, whose matching functions take a `timeout`: the search
runs in a reader thread (never on the event loop) and every match call gets the time left,
so a catastrophic pattern stops at the deadline with `ComputeBudgetExceeded` instead of
pinning a core. Python's `re` cannot be interrupted, which is why it is not used to match.

Prefilter: literal runs of >= 3 characters that every match must contain are read from the
pattern's parse tree and turned into `fts_trigram LIKE '%lit%'` conditions (the trigram
index answers LIKE; it is case-insensitive, so it only ever over-selects). Without such a
literal, or while the trigram index is deferred during a bulk load, every note is scanned.
Line numbers are 0-based within the indexed body; callers add the frontmatter offset. A pattern
runs on the body's lines joined by LF (a CRLF or lone CR line end is one LF), so `$` and `\n`
mean in a Windows note what they mean in any other.
"""

from __future__ import annotations

import re._constants as sre_constants
import re._parser as sre_parse
import sqlite3
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from service.budget import compile_regex
from service.errors import ComputeBudgetExceeded, QuerySyntaxError
from service.markdown import line_ends
from service.ocr.attached import own_text
from service.retrieval.text import folder_clause

if TYPE_CHECKING:
    import regex

MAX_PATTERN = 1000
MAX_LINE_CHARS = 300
_CLOCK_EVERY = 256  # matches between two looks at the clock


@dataclass(slots=True)
class LineMatch:
    line: int  # 0-based line in the body
    text: str
    spans: list[tuple[int, int]]


@dataclass(slots=True)
class RegexHit:
    note_id: int
    path: str
    title: str
    mtime: float
    matches: list[LineMatch] = field(default_factory=list)
    match_count: int = 0


def compile_pattern(pattern: str, *, ignore_case: bool, multiline: bool) -> regex.Pattern[str]:
    if len(pattern) > MAX_PATTERN:
        raise QuerySyntaxError("pattern too long", details={"max": MAX_PATTERN})
    import regex  # the third-party engine is loaded by the first regex search, not at start-up

    flags = regex.V0 | (regex.IGNORECASE if ignore_case else 0) | (regex.MULTILINE if multiline else 0)
    try:
        return compile_regex(pattern, flags)
    except (regex.error, ValueError, OverflowError) as exc:
        at = getattr(exc, "pos", None)
        raise QuerySyntaxError(
            "invalid regular expression",
            details={"reason": str(exc)} | ({"position": at} if isinstance(at, int) else {}),
            hint="Fix the pattern where details.reason says (Python `regex` syntax); to match a sign such as "
            "( [ { * + ? . | ^ $ or \\ as itself, put a backslash before it.",
        ) from None


def required_literals(pattern: str, *, ignore_case: bool) -> list[str]:
    """Literal substrings (>= 3 chars) every match must contain; [] when none can be proven."""
    try:
        tree = sre_parse.parse(pattern)
    except Exception:  # noqa: BLE001 - syntax `re` lacks but `regex` has: no prefilter
        return []
    if tree.state.flags & sre_constants.SRE_FLAG_IGNORECASE:
        ignore_case = True
    found: list[str] = []
    _collect(list(tree), found)
    # The index holds a note's own line ends (CRLF in a Windows note): a literal is only the
    # text between its line breaks, which the pattern's `\n` matches in any of them.
    found = [part for lit in found for part in lit.split("\n")]
    out = [lit for lit in found if len(lit) >= 3 and "%" not in lit and "_" not in lit and "\r" not in lit]
    if ignore_case:
        # LIKE folds ASCII case only; a non-ASCII literal could miss case variants.
        out = [lit for lit in out if lit.isascii()]
    return out


def _collect(items: list[Any], found: list[str]) -> None:
    run: list[str] = []
    for op, arg in items:
        if op is sre_constants.LITERAL:
            run.append(chr(arg))
            continue
        if run:
            found.append("".join(run))
            run = []
        if op is sre_constants.SUBPATTERN:
            _collect(list(arg[-1]), found)
        elif op in (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT) and arg[0] >= 1:
            _collect(list(arg[2]), found)
    if run:
        found.append("".join(run))


def _candidate_sql(
    vault_id: str, literals: Sequence[str], folders: Sequence[str], use_trigram: bool
) -> tuple[str, list[Any]]:
    where, params = folder_clause(folders)
    sql = (
        "SELECT n.id, n.path, n.title, n.mtime, t.body FROM notes n JOIN note_text t ON t.note_id = n.id"
        f" WHERE n.vault_id = ? AND {where}"
    )
    args: list[Any] = [vault_id, *params]
    if use_trigram and literals:
        likes = " AND ".join("body LIKE ?" for _ in literals)
        sql += f" AND n.id IN (SELECT rowid FROM fts_trigram WHERE {likes})"
        args += [f"%{lit}%" for lit in literals]
    return sql + " ORDER BY n.path", args


def search(
    conn: sqlite3.Connection,
    vault_id: str,
    compiled: regex.Pattern[str],
    literals: Sequence[str],
    folders: Sequence[str],
    can_read: Callable[[str], bool],
    *,
    want: int,
    budget_s: float,
    max_lines: int,
) -> tuple[list[RegexHit], bool, bool]:
    """Readable notes with a match, in path order: the first `want`, whether more exist, and
    whether the trigram prefilter was used."""
    deadline = time.monotonic() + budget_s
    deferred = conn.execute("SELECT trigram_deferred FROM fts_control WHERE id = 1").fetchone()
    use_trigram = not (deferred and deferred[0])
    sql, args = _candidate_sql(vault_id, literals, folders, use_trigram)
    hits: list[RegexHit] = []
    for note_id, path, title, mtime, body in conn.execute(sql, args):
        left = deadline - time.monotonic()
        if left <= 0:
            raise _exceeded(budget_s)
        if not can_read(path):
            continue
        try:
            # the note's lines (not its images' text) joined by LF, as its readers count them: `$`
            # ends a line of a CRLF note too (it never matched between the CR and the LF)
            hit = _scan(compiled, line_ends.view(own_text(body)), left, max_lines)
        except TimeoutError:
            raise _exceeded(budget_s) from None
        if hit is None:
            continue
        if len(hits) == want:
            return hits, True, use_trigram and bool(literals)
        hits.append(RegexHit(note_id, path, title, mtime, hit[0], hit[1]))
    return hits, False, use_trigram and bool(literals)


def _scan(
    compiled: regex.Pattern[str], body: str, timeout: float, max_lines: int
) -> tuple[list[LineMatch], int] | None:
    """The first `max_lines` matching lines of `body` and its match count; `TimeoutError` when
    `timeout` runs out, in the engine or in this loop (a million matches cost seconds here).

    Line numbers are counted with `str.count` from one listed line to the next, and a line is
    copied once, when it is listed: a 20 MB line is not walked character by character in Python
    (that took 13-16 s) nor copied again for each of its matches."""
    deadline = time.monotonic() + timeout
    lines: list[LineMatch] = []
    count = 0
    lineno, counted = 0, 0  # the line number of body[counted]; matches come in order
    line_start, line_end, line_len = 0, -1, 0  # the last listed line ("\n" at line_end belongs to it)
    for m in compiled.finditer(body, timeout=timeout):
        count += 1
        if not count % _CLOCK_EVERY and time.monotonic() >= deadline:
            raise TimeoutError
        start = m.start()
        if start > line_end:
            if len(lines) >= max_lines:
                continue
            lineno += body.count("\n", counted, start)
            counted = start
            line_start = body.rfind("\n", 0, start) + 1
            found = body.find("\n", start)
            line_end = found if found >= 0 else len(body)
            text = body[line_start:line_end].rstrip("\r")
            line_len = len(text)
            lines.append(LineMatch(lineno, text[:MAX_LINE_CHARS], []))
        if start - line_start < MAX_LINE_CHARS:
            lines[-1].spans.append((start - line_start, min(m.end() - line_start, line_len, MAX_LINE_CHARS)))
    if count == 0:
        return None
    return lines, count


def _exceeded(budget_s: float) -> ComputeBudgetExceeded:
    return ComputeBudgetExceeded(
        "regex search exceeded its time budget",
        details={"budget_ms": int(budget_s * 1000)},
        hint="Anchor the pattern, add a literal word, narrow `folder`, or avoid nested quantifiers.",
    )
