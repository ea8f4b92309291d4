"""Words of scripts written without spaces between them (Chinese, Japanese, Korean, Thai, Lao,
Khmer, Myanmar), for the word index.

FTS5's unicode61 tokenizer cuts text at spaces and punctuation only, so "今天我学习了机器学习的基础"
was one word: a search for 机器学习 (machine learning) or 東京 found no note that holds them in a
sentence, and Korean words with their particles ("회의에서") missed "회의". Each character of these
scripts is now a word of its own: the index gets the text with `JOINER` (U+2060 WORD JOINER: no
letter, so a separator to the tokenizer, and invisible) around each such character
(`note_text.title_words` / `body_words`, the word index's content through the `note_words` view,
migrations/0044), and a searched string gets the same (`words_text`), so that it is a phrase
of single characters: a note matches where it holds the string, as Obsidian's own search finds
it. Snippets are cut from the same text, the joiners taken out again (`retrieval.text.split_marks`).
Guarantee: `words_text` of a text without such characters is None (the index reads the text
itself, so a vault without them is indexed byte for byte as before).
"""

from __future__ import annotations

import re

JOINER = "\u2060"
_CHARS = (
    "\u0e00-\u0eff"  # Thai, Lao
    "\u1000-\u109f"  # Myanmar
    "\u1100-\u11ff"  # Hangul Jamo
    "\u1780-\u17ff"  # Khmer
    "\u2e80-\u2fdf"  # CJK radicals, Kangxi radicals
    "\u3040-\u30ff"  # Hiragana, Katakana
    "\u3100-\u31ff"  # Bopomofo, Hangul compatibility Jamo, Kanbun, Katakana extensions
    "\u3400-\u4dbf"  # CJK extension A
    "\u4e00-\u9fff"  # CJK unified ideographs
    "\ua960-\ua97f"  # Hangul Jamo extended-A
    "\uac00-\ud7ff"  # Hangul syllables, Jamo extended-B
    "\uf900-\ufaff"  # CJK compatibility ideographs
    "\uff66-\uff9f"  # halfwidth Katakana
    "\U00020000-\U0003134f"  # CJK extensions B-H
)
_UNSPACED = re.compile(f"[{_CHARS}]")
_EACH = re.compile(f"([{_CHARS}])")
_ONLY = re.compile(f"[{_CHARS}]+")
_RUNS = re.compile(f"[{_CHARS}]+|[^{_CHARS}]+")
# Words as a text is matched word by word (unlinked mentions, `service.graph.mentions`): each
# character of these scripts one word, as the index holds it (`words_text`), any other run of
# letters and digits one word (`\w+`): "我住在東京" is 我, 住, 在, 東, 京, and 東京 is 東, 京 in it.
WORDS = re.compile(f"[{_CHARS}]|[^\\W{_CHARS}]+")


def unspaced(text: str) -> bool:
    """Whether `text` is all characters of these scripts ("東京", "ภาษา"; not "AI学习")."""
    return _ONLY.fullmatch(text) is not None


def words_text(text: str) -> str | None:
    """`text` with every character of an unspaced script set apart by joiners; None when it has
    none (the common case, answered without a scan for ASCII text)."""
    if text.isascii() or _UNSPACED.search(text) is None:
        return None
    return _EACH.sub(JOINER + r"\1" + JOINER, text)


def searched(text: str) -> str:
    """A searched word or phrase as the index holds it (`words_text`, or itself)."""
    return words_text(text) or text


def shown(text: str) -> str:
    """Indexed text as written (the joiners out)."""
    return text.replace(JOINER, "") if JOINER in text else text


# Scripts whose characters are each a syllable or a word (Han, kana, Hangul): the others' (Thai,
# Lao, Khmer, Myanmar) are letters and marks, whose pairs are no units of meaning.
_SYLLABIC = re.compile(
    "[" + _CHARS.replace("\u0e00-\u0eff", "").replace("\u1000-\u109f", "").replace("\u1780-\u17ff", "") + "]+"
)


def longest_run(text: str) -> int:
    """The length of the longest run of Han, kana or Hangul characters in `text` (a run of an
    unspaced script whose characters are syllables or words)."""
    return max((len(run) for run in _SYLLABIC.findall(text)), default=0)


def pieces(word: str) -> list[str]:
    """A word for a ranking of notes by how much of it they hold (the text side of a hybrid
    search ORs them): a run of three or more characters of these scripts as its overlapping
    pairs, as bigram indexing reads such text ("机器学习的基础" -> 机器, 器学, 学习, ...), so a
    question typed without spaces finds the notes holding its words; any other word as itself."""
    if len(word) < 3 or _ONLY.fullmatch(word) is None:
        return [word]
    return [word[i : i + 2] for i in range(len(word) - 1)]


def bag_words(word: str) -> list[str]:
    """A word (a run of letters and digits) for a bag of words: itself, or, when it holds
    characters of these scripts, its other runs as words and each run of them as its overlapping
    pairs (one character alone as itself): "喜欢机器学习" -> 喜欢, 欢机, 机器, 器学, 学习; "AI学习" ->
    ai, 学习. So a phrase a sentence holds shares its pairs with it."""
    if word.isascii() or _UNSPACED.search(word) is None:
        return [word]
    return [piece for run in _RUNS.findall(word) for piece in pieces(run)]
