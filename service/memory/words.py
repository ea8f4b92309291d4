"""The words of memory observations, as the recall index (`service.memory.recall`) counts them:
lower-cased, accents on Latin letters taken off ("crêpes" is "crepes", as the note index reads
them), common function words dropped, an irregular verb's past forms read as the verb (`went`
and `gone` are `go`, `drew` and `drawn` `draw`: the stemmer leaves them apart) and each word stemmed
by the Snowball English stemmer (`paints`, `painted`, `painting` are `paint`; `lives` and `live`
are `live`; `bake` and `baked`, `studies` and `study` fold together), the same at index and at query time and for the
near-duplicate checks (`word_set`, the consolidation plane's duplicates); each observation's own
words, and the words around it (the entity's name and type, and the observations just before and
after it in the entity's note)."""

from __future__ import annotations

import math
import re
import threading
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Protocol

from service.retrieval.unspaced import bag_words

if TYPE_CHECKING:
    import numpy as np
else:
    from service.numpy_lazy import np  # imported at its first use


_WORD = re.compile(r"\w+", re.UNICODE)
_STOP_WORDS = (
    "a an the and or of to in on at for by with from is are was were be been it its this that what when where "
    "who whom which how did do does i you he she we they me my your his her our their has have had will would "
    "can could about as so but if not no yes"
)
_STOP = frozenset(_STOP_WORDS.split())

# English irregular verbs, the verb and its past forms (`drew` is `draw`, `went` `go`), which the
# stemmer leaves apart; forms as often another word (`ground`, `left`, `rose`, `lay`, `found`, `saw`,
# `felt`, `fell`, `lit`, `born`, `bit`) are left out
_IRREGULAR_VERBS = (
    "arise arose arisen|awake awoke awoken|beat beat beaten|become became become|begin began begun|"
    "bend bent bent|bite bitten bitten|bleed bled bled|blow blew blown|break broke broken|breed bred bred|"
    "bring brought brought|build built built|burn burnt burnt|buy bought bought|catch caught caught|"
    "choose chose chosen|come came come|creep crept crept|deal dealt dealt|dig dug dug|draw drew drawn|"
    "dream dreamt dreamt|drink drank drunk|drive drove driven|eat ate eaten|fall fallen fallen|"
    "feed fed fed|fight fought fought|flee fled fled|fly flew flown|forbid forbade forbidden|"
    "forget forgot forgotten|forgive forgave forgiven|freeze froze frozen|get got gotten|give gave given|"
    "go went gone|grow grew grown|hang hung hung|hear heard heard|hold held held|keep kept kept|"
    "kneel knelt knelt|know knew known|lead led led|leap leapt leapt|learn learnt learnt|lend lent lent|"
    "lose lost lost|make made made|mean meant meant|meet met met|pay paid paid|ride rode ridden|"
    "ring rang rung|rise risen risen|run ran run|say said said|see seen seen|seek sought sought|"
    "sell sold sold|send sent sent|shake shook shaken|shine shone shone|shoot shot shot|show shown shown|"
    "shrink shrank shrunk|sing sang sung|sink sank sunk|sit sat sat|sleep slept slept|slide slid slid|"
    "speak spoke spoken|spend spent spent|spin spun spun|spring sprang sprung|stand stood stood|"
    "steal stole stolen|stick stuck stuck|sting stung stung|strike struck struck|swear swore sworn|"
    "sweep swept swept|swim swam swum|swing swung swung|take took taken|teach taught taught|"
    "tear tore torn|tell told told|think thought thought|throw threw thrown|"
    "understand understood understood|wake woke woken|wear wore worn|weave wove woven|weep wept wept|"
    "win won won|write wrote written"
)
_IRREGULAR = {form: line.split()[0] for line in _IRREGULAR_VERBS.split("|") for form in line.split()[1:]}
NAME_WORDS_MAX = 8  # longest entity name (in words) looked for in a query
STEM_MAX = 40  # a longer "word" (an id, a hash, a run of letters) is kept as it is

_STEMMER: Any = None  # made at the first word stemmed: importing snowballstemmer takes 10-40 ms
_STEMMER_LOCK = threading.Lock()  # a stemmer object keeps its word while it works: one at a time


def _without_accents(word: str) -> str:
    """`word` with the marks on Latin letters taken off ("crêpes" is "crepes", "zürich" "zurich"),
    as the note index's tokenizer reads them (`remove_diacritics`); other scripts' marks are kept."""
    out: list[str] = []
    for ch in unicodedata.normalize("NFD", word):
        if unicodedata.category(ch) == "Mn" and out and ord(out[-1]) < 0x250:
            continue
        out.append(ch)
    return unicodedata.normalize("NFC", "".join(out))


@lru_cache(maxsize=65_536)
def fold(word: str) -> str:
    """`word` (lower-cased) without accents and stemmed; a conversation's words repeat, so most
    are a cache hit."""
    global _STEMMER
    word = _IRREGULAR.get(word, word)
    if not word.isascii():
        word = _without_accents(word)
    if len(word) > STEM_MAX:
        return word
    with _STEMMER_LOCK:
        if _STEMMER is None:
            import snowballstemmer  # noqa: PLC0415 - at first use, not at the server's start

            _STEMMER = snowballstemmer.stemmer("english")
        return str(_STEMMER.stemWord(word))


def words(text: str) -> list[str]:
    """Chinese, Japanese, Korean or Thai text as its pairs of characters (`unspaced.bag_words`):
    "喜欢机器学习" was one word, which a question about 机器学习 never shares."""
    return [fold(p) for w in _WORD.findall(text.lower()) if w not in _STOP for p in bag_words(w)]


@lru_cache(maxsize=65_536)
def word_set(text: str) -> frozenset[str]:
    """The distinct words of `text`, kept for the texts seen last (an entity's observations are
    compared with each new one: `service.tools.memory.entities.similar_to`)."""
    return frozenset(words(text))


PERSON_TYPES = frozenset({"person", "people", "human", "individual", "user", "contact", "friend", "colleague"})


def first_names(named: Sequence[tuple[str, str, str]], name_map: dict[str, set[str]]) -> dict[str, set[str]]:
    """A person's first name as a name of theirs (`named`: each entity note's path, name and type):
    'steph' for "Steph Ango", when the entity is a person (`PERSON_TYPES`), its name has two to
    four words, and no other entity's name starts with that word or is it (of "Sam Lee" and "Sam
    Ortiz", "Sam" names neither); a thing whose name starts with a word ("New York") never."""
    firsts: dict[str, set[str]] = {}
    for rel, name, kind in named:
        parts = name.split()
        if parts and parts[0].isalpha():
            people = firsts.setdefault(parts[0].lower(), set())
            ok = 2 <= len(parts) <= 4 and kind.strip().lower() in PERSON_TYPES and len(parts[0]) > 2
            people.add(rel if ok else "")
    return {
        w: rels
        for w, rels in firsts.items()
        if len(rels) == 1 and "" not in rels and w not in name_map and w not in _STOP
    }


def names_in(
    query: str, name_map: dict[str, set[str]], first: dict[str, set[str]] | None = None
) -> tuple[set[str], str]:
    """The entity notes `query` names (`name_map`: lower-cased name or alias -> notes; `first`: a
    person's first name -> their note, `first_names`), and the query without those names (and a
    possessive `'s` after one). A first name counts only capitalised ("Steph", not "steph"), and
    as the query's first word only before `'s` or a comma ("Will it rain?" names no Will Turner)."""
    tokens = [(m.start(), m.end()) for m in _WORD.finditer(query)]
    found: set[str] = set()
    spans: list[tuple[int, int]] = []
    i = 0
    while i < len(tokens):
        hit = 0
        for n in range(min(NAME_WORDS_MAX, len(tokens) - i), 0, -1):
            rels = name_map.get(query[tokens[i][0] : tokens[i + n - 1][1]].lower())
            if rels:
                found |= rels
                spans.append((tokens[i][0], tokens[i + n - 1][1]))
                hit = n
                break
        word = query[tokens[i][0] : tokens[i][1]]
        if not hit and first and word[:1].isupper() and (i or query[tokens[i][1] :].startswith(("'s", ","))):
            rels = first.get(word.lower())
            if rels:
                found |= rels
                spans.append(tokens[i])
                hit = 1
        i += hit or 1
    rest = query
    for start, end in reversed(spans):
        tail = rest[end:]
        if tail.startswith("'s"):
            tail = tail[2:]
        rest = rest[:start] + " " + tail
    return found, rest


@dataclass(frozen=True, slots=True)
class Unit:
    own: Counter[str]  # the observation's words
    near: Counter[str]  # the words around it


def units_of(texts: Sequence[str], context: str) -> list[Unit]:
    """One unit per observation of one entity, in note order."""
    own = [Counter(words(t)) for t in texts]
    around = Counter(words(context))
    out = []
    for i, counts in enumerate(own):
        near = Counter(around)
        for j in (i - 1, i + 1):
            if 0 <= j < len(own):
                near.update(own[j])
        out.append(Unit(counts, near))
    return out


# -- BM25 over observations ------------------------------------------------------------------------

NEAR_WEIGHT = 0.5  # share of the words around an observation
K1, B = 1.2, 0.75


class Counted(Protocol):
    """One entity note's observations as counted: lengths, and each word's postings (the
    observations it occurs in, with its count there), of their own words and of those around."""

    own_len: list[int]
    near_len: list[int]
    own_post: dict[str, list[tuple[int, int]]]
    near_post: dict[str, list[tuple[int, int]]]


def postings(counts: Sequence[Counter[str]]) -> dict[str, list[tuple[int, int]]]:
    out: dict[str, list[tuple[int, int]]] = {}
    for i, c in enumerate(counts):
        for word, tf in c.items():
            out.setdefault(word, []).append((i, tf))
    return out


def _total(lengths: list[int], part: list[bool] | None) -> int:
    return sum(lengths) if part is None else sum(x for x, keep in zip(lengths, part, strict=True) if keep)


def bm25(terms: Counter[str], entries: Sequence[tuple[Counted, int]], scope: Any) -> tuple[Any, Any]:
    """BM25 of every observation in `scope` (a bool array over the units; an entry's units start
    at its offset): of its own words, and NEAR_WEIGHT of that of the words around it. Only the
    postings of the query's words are read; the lengths are summed over the scope. The postings
    are walked in plain Python (a numpy element read or write costs more than the arithmetic) and
    each word's scores added to the units at once."""
    own = np.zeros(len(scope), dtype=np.float32)
    near = np.zeros(len(scope), dtype=np.float32)
    n = int(scope.sum())
    if not terms or not n:
        return own, near
    starts = np.fromiter((start for _, start in entries), dtype=np.int64, count=len(entries))
    sizes = np.fromiter((len(entry.own_len) for entry, _ in entries), dtype=np.int64, count=len(entries))
    counted = np.concatenate(([0], np.cumsum(scope, dtype=np.int64)))
    inside = counted[starts + sizes] - counted[starts]
    # per entry: None when every unit of it is in the scope, else which are
    parts: list[list[bool] | None] = [
        None if whole else scope[start : start + size].tolist()
        for whole, start, size in zip((inside == sizes).tolist(), starts.tolist(), sizes.tolist(), strict=True)
    ]
    own_total = near_total = 0
    df_own: Counter[str] = Counter()
    df_near: Counter[str] = Counter()
    for (entry, _), part in zip(entries, parts, strict=True):
        own_total += _total(entry.own_len, part)
        near_total += _total(entry.near_len, part)
        for t in terms:
            for df, post in ((df_own, entry.own_post.get(t)), (df_near, entry.near_post.get(t))):
                if post:
                    df[t] += len(post) if part is None else sum(1 for i, _ in post if part[i])
    avg_own, avg_near = own_total / n or 1.0, near_total / n or 1.0
    for out, weight, df, avg, is_own in (
        (own, 1.0, df_own, avg_own, True),
        (near, NEAR_WEIGHT, df_near, avg_near, False),
    ):
        for t, q in terms.items():
            if not df[t]:
                continue
            idf = math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5))
            units: list[int] = []
            values: list[float] = []
            for (entry, start), part in zip(entries, parts, strict=True):
                post = (entry.own_post if is_own else entry.near_post).get(t)
                if not post:
                    continue
                length = entry.own_len if is_own else entry.near_len
                for i, tf in post:
                    if part is None or part[i]:
                        norm = tf + K1 * (1 - B + B * (length[i] or 1) / avg)
                        units.append(start + i)
                        values.append(weight * q * idf * tf * (K1 + 1) / norm)
            if units:  # a word occurs once in a unit's postings: no unit twice
                out[units] += np.asarray(values, dtype=np.float32)
    return own, near
