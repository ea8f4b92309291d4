"""The sensitive-content guard: find secrets in text and properties, flag, redact.

Pure functions over strings and property dicts (no files, no index). A `Guard` is built once
per vault from `[sensitive]`, the vault's `sensitive_mode` and `[search] sensitive_terms` /
`sensitive_tags` (`Guard.build`); the tools ask it:

- `spans(text)`: the secret spans (builtin and configured patterns, `key: value` lines whose key
  names a secret), merged, in order;
- `secret(text, properties)`: holds a secret (a span, or a secret-named property with a value);
- `topical(text, tags, heading)`: mentions a health or money topic (words, tags, heading);
- `sensitive(...)`: either; this is the `sensitive: true` flag of chunks and results;
- `redact(text)`: every span replaced by `[REDACTED:<kind>]`; `show(text)` does it only when the
  mode asks (`redact` or `exclude`), `show_properties` likewise for a property dict.

Redaction runs on whole texts before any cutting (a snippet cut from a redacted text cannot hold
half a key). A private-key block cut by a chunk boundary is still found: a BEGIN line without its
END hides the rest of the text, an END line without its BEGIN hides everything before it.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from service.settings.sensitive import SECRET_KEYS, SensitiveMode

# (kind, pattern, hints): the whole match is the secret; the pattern only runs on a text holding
# one of the hints (a plain substring test is far cheaper than a regex scan of every position;
# several hints with the same first character are one test, `_probes`).
BUILTIN: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("aws_access_key", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b", ("AKIA", "ASIA")),
    (
        "github_token",
        r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    ),
    ("anthropic_key", r"\bsk-ant-[A-Za-z0-9_-]{20,}", ("sk-ant-",)),
    ("openai_key", r"\bsk-(?:proj-|svcacct-)?[A-Za-z0-9_-]{20,}", ("sk-",)),
    ("stripe_key", r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}", ("_live_", "_test_")),
    ("slack_token", r"\bxox[abposr]-[A-Za-z0-9-]{10,}", ("xox",)),
    ("google_api_key", r"\bAIza[0-9A-Za-z_-]{35}", ("AIza",)),
    ("gitlab_token", r"\bglpat-[A-Za-z0-9_-]{20,}", ("glpat-",)),
    ("jwt", r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}", ("eyJ",)),
    ("bearer_token", r"(?i)\bbearer\s+[A-Za-z0-9._~+/-]{20,}=*", ("earer", "EARER")),
)
_KEY_BEGIN = re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")
_KEY_END = re.compile(r"-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")
_DIGITS = re.compile(r"\d[\d -]{11,}\d")  # a run of digits, spaces and dashes (card candidates)
_GROUP = re.compile(r"\d+")
_LINE = re.compile(r"(?m)^[ \t>*+-]*[\"']?([A-Za-z][\w .-]{0,40}?)[\"']?[ \t]*[:=][ \t]*(\S[^\n]*?)[ \t]*$")
_WORD = re.compile(r"\w+")
_TOKEN = re.compile(r"\w{3,}")
_MARKERS = frozenset({"BEGIN", "END", "PRIVATE", "KEY", "BLOCK", "RSA", "OPENSSH", "DSA", "Bearer", "bearer"})


@dataclass(frozen=True, slots=True)
class Span:
    start: int
    end: int
    kind: str


def luhn(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = ord(ch) - 48
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def _key(name: str) -> str:
    return re.sub(r"[\s_-]+", "", name.strip().lower())


# Bumped whenever what `secret` / `secret_words` find changes beyond the patterns and keys (the
# card and `key: value` scans, the private-key blocks): verdicts stored under an older one are
# judged again (`fingerprint`).
SCANNER_VERSION = 1
TEXTS_MAX = 4096  # excerpts whose scan a guard remembers (chunk-sized texts: a few MB)
TEXT_MAX_CHARS = 4000  # longer texts are scanned every time


@dataclass
class Guard:
    mode: SensitiveMode = "redact"
    patterns: tuple[tuple[str, re.Pattern[str], tuple[str, ...]], ...] = ()
    secret_keys: frozenset[str] = frozenset()
    terms: tuple[str, ...] = ()
    tags: frozenset[str] = frozenset()
    _words: frozenset[str] = field(default=frozenset(), repr=False)
    # note id -> (etag, (holds a secret, its secret words)): what `service.tools.sensitive`
    # learnt of an indexed note's last version seen under this guard, so an unchanged note is
    # scanned once.
    verdicts: dict[int, tuple[str, tuple[bool, frozenset[str]]]] = field(
        default_factory=dict, repr=False, compare=False
    )
    # note id -> (etag and title, names a topic): what `service.tools.sensitive.topical_notes`
    # judged of an indexed note's last version seen under this guard's terms and tags (they are
    # not in its fingerprint: the memo is the guard's own, not shared by guards of other terms).
    topics: dict[int, tuple[str, bool]] = field(default_factory=dict, repr=False, compare=False)
    # excerpt text -> (its own secret spans redacted, or None when it has none; mentions a term):
    # search results show the same chunks query after query, each scanned once (bounded).
    texts: dict[str, tuple[str | None, bool]] = field(default_factory=dict, repr=False, compare=False)
    # (hint, pattern index) tested with `in`, and (the hints of one pattern as one regex, index)
    _hints: tuple[tuple[str, int], ...] = field(default=(), init=False, repr=False, compare=False)
    _families: tuple[tuple[re.Pattern[str], int], ...] = field(default=(), init=False, repr=False, compare=False)
    # what a stored verdict was judged under (`secret_verdicts.guard`): the patterns, the secret
    # keys and the scanner's version; terms and tags only flag topics, never a secret
    fingerprint: str = field(default="", init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._hints, self._families = _probes(self.patterns)
        basis = repr((SCANNER_VERSION, [(k, rx.pattern, h) for k, rx, h in self.patterns], sorted(self.secret_keys)))
        self.fingerprint = hashlib.sha256(basis.encode()).hexdigest()[:16]

    @classmethod
    def build(
        cls,
        mode: SensitiveMode = "redact",
        *,
        builtin: bool = True,
        patterns: Mapping[str, str] | None = None,
        secret_keys: Iterable[str] = SECRET_KEYS,
        terms: Iterable[str] = (),
        tags: Iterable[str] = (),
    ) -> Guard:
        """A guard; configured patterns are compiled here (a bad one is a `re.error`)."""
        chosen = [*(BUILTIN if builtin else ()), *((kind, rx, ()) for kind, rx in (patterns or {}).items())]
        terms = tuple(t.lower() for t in terms if t)
        return cls(
            mode=mode,
            patterns=tuple((kind, re.compile(rx), hints) for kind, rx, hints in chosen),
            secret_keys=frozenset(_key(k) for k in secret_keys),
            terms=terms,
            tags=frozenset(t.lower().lstrip("#") for t in tags),
            _words=frozenset(t for t in terms if t.isalnum()),
        )

    # -- finding -----------------------------------------------------------------------------

    def spans(self, text: str) -> list[Span]:
        """The secret spans of `text`, overlapping ones merged, in order."""
        if not text:
            return []
        found: list[Span] = []
        hit = {i for hint, i in self._hints if hint in text}  # one pass over every hint
        hit.update(i for rx, i in self._families if rx.search(text) is not None)
        for i, (kind, rx, hints) in enumerate(self.patterns):
            if hints and i not in hit:
                continue
            found.extend(Span(m.start(), m.end(), kind) for m in rx.finditer(text) if m.end() > m.start())
        if "PRIVATE KEY" in text:
            found.extend(self._key_blocks(text))
        found.extend(_cards(text))
        if self.secret_keys:
            for m in _lines(text):
                if _key(m.group(1)) in self.secret_keys and not _empty(m.group(2)):
                    found.append(Span(m.start(2), m.end(2), "secret_value"))
        return _merge(found)

    @staticmethod
    def _key_blocks(text: str) -> list[Span]:
        out: list[Span] = []
        pos = 0
        for begin in _KEY_BEGIN.finditer(text):
            if begin.start() < pos:
                continue
            end = _KEY_END.search(text, begin.end())
            pos = end.end() if end else len(text)
            out.append(Span(begin.start(), pos, "private_key"))
        first_end = _KEY_END.search(text)
        first_begin = _KEY_BEGIN.search(text)
        if first_end and (first_begin is None or first_begin.start() > first_end.start()):
            out.append(Span(0, first_end.end(), "private_key"))  # the block began before this text
        return out

    def secret_properties(self, properties: Mapping[str, Any] | None) -> list[str]:
        """Names (dotted for nested maps) of properties holding a secret: a secret-named key with a
        value, or a string value containing a secret span."""
        out: list[str] = []
        for name, value in (properties or {}).items():
            if isinstance(value, Mapping):
                out.extend(f"{name}.{inner}" for inner in self.secret_properties(value))
            elif self._secret_value(name, value):
                out.append(str(name))
        return out

    def _secret_value(self, name: Any, value: Any) -> bool:
        if _key(str(name)) in self.secret_keys and not _empty(value):
            return True
        return any(self.spans(v) for v in _strings(value))

    def secret(self, text: str, properties: Mapping[str, Any] | None = None) -> bool:
        return bool(self.spans(text)) or bool(self.secret_properties(properties))

    def topical(self, text: str, tags: Iterable[str] = (), heading: str | None = None) -> bool:
        """Mentions a health or money topic: a configured tag, a heading that is one, or a term
        (a word for alphanumeric terms; a sign such as '$' beside a number, outside math and code;
        a substring for others)."""
        if any(t.lower().lstrip("#") in self.tags for t in tags):
            return True
        if heading and heading.lower().lstrip("#") in self.tags:
            return True
        return self._scanned(text)[1]

    def _scanned(self, text: str) -> tuple[str | None, bool]:
        """`texts`' entry for `text`, computed at its first sight."""
        found = self.texts.get(text)
        if found is None:
            redacted = self.redact(text) if self.redacts else text
            found = (None if redacted == text else redacted, self._mentions(text))
            if len(text) <= TEXT_MAX_CHARS:  # chunks and snippets, not whole notes of a bundle
                if len(self.texts) >= TEXTS_MAX:
                    self.texts.clear()
                self.texts[text] = found
        return found

    def mentions(self, text: str) -> bool:
        """Whether `text` names a topic term: `topical`'s term test alone, without its memo and
        redaction of `text` (for a whole note, judged once per version by the caller)."""
        return self._mentions(text)

    def _mentions(self, text: str) -> bool:
        lowered = text.lower()
        if any(term in lowered for term in self.terms if term not in self._words and not _is_sign(term)):
            return True
        signs = [term for term in self.terms if _is_sign(term) and term in lowered]
        if signs:  # `$40`, not the `$` of `$x^2$` nor of a shell's `$1`
            bare = _NOTATION.sub(" ", lowered)
            if any(_sign_rx(sign).search(bare) for sign in signs):
                return True
        present = [w for w in self._words if w in lowered]  # substring first: a word test only then
        return bool(present) and _words_rx(tuple(sorted(present))).search(lowered) is not None

    def sensitive(
        self,
        text: str,
        properties: Mapping[str, Any] | None = None,
        tags: Iterable[str] = (),
        heading: str | None = None,
    ) -> bool:
        """The `sensitive: true` flag: a secret or a health/money topic."""
        return self.secret(text, properties) or self.topical(text, tags, heading)

    # -- hiding ------------------------------------------------------------------------------

    @property
    def redacts(self) -> bool:
        return self.mode != "flag"

    @property
    def excludes(self) -> bool:
        return self.mode == "exclude"

    def redact(self, text: str) -> str:
        return redact_spans(text, self.spans(text))[0]

    def show(self, text: str) -> str:
        """`text` as a snippet, chunk or bundle may carry it under this guard's mode."""
        return self.redact(text) if self.redacts else text

    def secret_words(self, source: str, properties: Mapping[str, Any] | None = None) -> frozenset[str]:
        """The words (3+ word characters) of the secrets of a note with body `source` and these
        properties: what an excerpt cut from the note must not show even in part."""
        words: set[str] = set()
        for s in self.spans(source):
            words.update(_TOKEN.findall(source[s.start : s.end]))
        for name in self.secret_properties(properties):
            value: Any = properties
            for part in name.split("."):
                value = value.get(part) if isinstance(value, Mapping) else None
            words.update(w for v in _strings(value) or [str(value)] for w in _TOKEN.findall(v))
        return frozenset(words - _MARKERS)

    def excerpt(self, text: str, words: frozenset[str] = frozenset()) -> str:
        """An excerpt (snippet, chunk, passage) as it may be shown under the mode: its own
        secret spans redacted, and any of the note's `secret_words` in it too (an excerpt may
        begin inside a secret or hold a secret line's value without its key)."""
        if not self.redacts:
            return text
        out = self._scanned(text)[0] or text
        if words:
            out = _TOKEN.sub(lambda m: "[REDACTED]" if m.group() in words else m.group(), out)
        return out

    def show_properties(self, properties: Mapping[str, Any]) -> dict[str, Any]:
        """`properties` with secret values replaced (under a redacting mode)."""
        if not self.redacts:
            return dict(properties)
        out: dict[str, Any] = {}
        for name, value in properties.items():
            if isinstance(value, Mapping):
                out[name] = self.show_properties(value)
            elif _key(str(name)) in self.secret_keys and not _empty(value):
                out[name] = "[REDACTED:secret_value]"
            elif isinstance(value, str):
                out[name] = self.redact(value)
            elif isinstance(value, list):
                out[name] = [self.redact(v) if isinstance(v, str) else v for v in value]
            else:
                out[name] = value
        return out


def _probes(
    patterns: tuple[tuple[str, re.Pattern[str], tuple[str, ...]], ...],
) -> tuple[tuple[tuple[str, int], ...], tuple[tuple[re.Pattern[str], int], ...]]:
    """How `Guard.spans` tells which patterns to run: a pattern whose hints all begin with the
    same character is one regex of them (`ghp_|gho_|...`: `re` moves the shared prefix out of the
    alternation and looks for it as a literal, one pass instead of one per hint: on notes of
    ~155,000 characters the GitHub family's five hints took 0.92 ms as substring tests and 0.15
    as one search, docs/benchmarks.md); other hints stay substring tests (`earer|EARER` as a
    regex tries every `e`: slower than two tests). Either way a pattern runs exactly when one of
    its hints is in the text."""
    plain: list[tuple[str, int]] = []
    families: list[tuple[re.Pattern[str], int]] = []
    for i, (_, _, hints) in enumerate(patterns):
        if len(hints) > 1 and len({h[0] for h in hints}) == 1:
            families.append((re.compile("|".join(re.escape(h) for h in hints)), i))
        else:
            plain.extend((hint, i) for hint in hints)
    return tuple(plain), tuple(families)


def redact_spans(text: str, spans: list[Span]) -> tuple[str, list[tuple[int, int]]]:
    """`text` with each of `spans` (in order, not overlapping) replaced by `[REDACTED:<kind>]`,
    and where those markers are in the result."""
    if not spans:
        return text, []
    parts: list[str] = []
    marks: list[tuple[int, int]] = []
    pos = length = 0
    for s in spans:
        parts.append(text[pos : s.start])
        length += s.start - pos
        marker = f"[REDACTED:{s.kind}]"
        parts.append(marker)
        marks.append((length, length + len(marker)))
        length += len(marker)
        pos = s.end
    parts.append(text[pos:])
    return "".join(parts), marks


def clip(spans: list[Span], start: int, end: int) -> list[Span]:
    """`spans` cut to the part `start:end` of their text, in that part's offsets."""
    return [
        Span(max(s.start, start) - start, min(s.end, end) - start, s.kind)
        for s in spans
        if s.end > start and s.start < end
    ]


def _lines(text: str) -> Iterator[re.Match[str]]:
    """`_LINE.finditer(text)`, twice as fast: it is tried only at the start of the lines holding
    a `:` or `=` (a match never spans two lines, and needs one of them)."""
    start = 0
    for line in text.split("\n"):
        if ":" in line or "=" in line:
            found = _LINE.match(text, start)
            if found is not None:
                yield found
        start += len(line) + 1


# Where a sign is notation, not money: code (fenced, inline) and math as Obsidian reads it (`$$…$$`;
# `$…$` opening before a non-space and closing after one, no digit right after it).
_NOTATION = re.compile(r"```.*?(?:```|\Z)|`[^`\n]*`|\$\$.+?\$\$|\$(?=[^\s$])[^$\n]*?(?<=[^\s\\])\$(?!\d)", re.S)


def _is_sign(term: str) -> bool:
    """A term with no letter or digit (a currency sign: `$`, `€`) names money beside a number only."""
    return not any(ch.isalnum() for ch in term)


@lru_cache(maxsize=64)
def _sign_rx(sign: str) -> re.Pattern[str]:
    return re.compile(rf"{re.escape(sign)}[ \t]?\d|\d[ \t]?{re.escape(sign)}")


@lru_cache(maxsize=256)
def _words_rx(words: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(r"\b(?:" + "|".join(re.escape(w) for w in words) + r")\b")


def _cards(text: str) -> list[Span]:
    """13-19 digit numbers passing the Luhn check, their digits grouped by single spaces or dashes
    (a longer run of groups, e.g. a card number followed by its expiry, is searched for one)."""
    out: list[Span] = []
    for m in _DIGITS.finditer(text):
        if m.start() and (text[m.start() - 1].isalnum() or text[m.start() - 1] in "-_"):
            continue
        groups = [(g.start() + m.start(), g.end() + m.start()) for g in _GROUP.finditer(m.group())]
        i = 0
        while i < len(groups):
            digits = ""
            for j in range(i, len(groups)):
                digits += text[groups[j][0] : groups[j][1]]
                if len(digits) > 19:
                    break
                if len(digits) >= 13 and luhn(digits):
                    out.append(Span(groups[i][0], groups[j][1], "card_number"))
                    i = j
                    break
            i += 1
    return out


def _empty(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, str):
        return value.strip().strip("\"'") in ("", "~", "null", "[]", "{}")
    return isinstance(value, list | dict) and not value


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return []


def _merge(spans: list[Span]) -> list[Span]:
    spans.sort(key=lambda s: (s.start, -s.end))
    out: list[Span] = []
    for s in spans:
        if out and s.start <= out[-1].end:
            last = out[-1]
            if s.end > last.end:
                out[-1] = Span(last.start, s.end, last.kind)
            continue
        out.append(s)
    return out
