"""English stop words: the function words a question carries ("how do I ... in another note")
that say nothing about which note answers it.

The query translator (service/retrieval/query.py) drops a bare word found here from a
conjunction that has other words; quoted phrases, prefixes (`the*`), `title:` terms and
operators are never touched, and a query made only of stop words is searched as written.
Matching is on the lower-cased word with surrounding punctuation removed ("I?" is "i").
"""

from __future__ import annotations

_WORDS = """
    a about above after again against all am an and any are aren't as at
    be because been before being below between both but by
    can can't cannot could couldn't
    did didn't do does doesn't doing don't done down during
    each either else etc ever every
    few for from further
    had hadn't has hasn't have haven't having he he'd he'll he's her here here's hers herself him
    himself his how how's
    i i'd i'll i'm i've if in into is isn't it it's its itself
    just let's me might more most must mustn't my myself
    no nor not of off on once only onto or other ought our ours ourselves out over own
    please same shall shan't she she'd she'll she's should shouldn't so some such
    than that that's the their theirs them themselves then there there's these they they'd
    they'll they're they've this those through to too
    under until up upon us
    very was wasn't we we'd we'll we're we've were weren't what what's when when's where where's
    whether which while who who's whom whose why why's will with won't would wouldn't
    yet you you'd you'll you're you've your yours yourself yourselves
"""
STOP_WORDS: frozenset[str] = frozenset(_WORDS.split())

_EDGE_PUNCTUATION = "\"'`.,;:!?()[]{}<>«»“”‘’"


def is_stop_word(word: str) -> bool:
    """True when `word` (as typed, e.g. "I?" or "Don’t") is an English function word."""
    bare = word.strip(_EDGE_PUNCTUATION).lower().replace("’", "'")
    return bare in STOP_WORDS
