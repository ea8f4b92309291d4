"""canonical_key against Dataview's canonicalizeVarName (util/normalize.ts). The first cases are
Dataview's own (src/test/util/normalize.test.ts); the rest were run through the same parser
(emoji-regex 10, `[0-9\\p{Letter}_-]+` lower-cased, `\\s+` -> '-', anything else dropped) under node."""

from __future__ import annotations

import pytest

from service.dataview.keys import canonical_key

CASES = [
    ("test", "test"),
    ("property", "property"),
    ("test thing", "test-thing"),
    ("This     is test", "this-is-test"),
    ("test thing 3", "test-thing-3"),
    ("This is a Test.", "this-is-a-test"),
    ("Yes-sir", "yes-sir"),
    ("📷", "📷"),
    ("Статус", "статус"),
    # node
    ("due_date", "due_date"),
    ("a_*b*_c", "a_b_c"),
    ("__init__", "__init__"),
    ("key ", "key-"),
    (" lead", "-lead"),
    ("ने", "न"),
    ("x²", "x"),
    ("Ⅻ", ""),
    ("a\u0301b", "ab"),
    ("A\u0308", "a"),
    ("tab\there", "tab-here"),
    ("a\u00a0b", "a-b"),
    ("x\u200bz", "xz"),
    ("٣ arabic digit", "-arabic-digit"),
    ("1️⃣ one", "1️⃣-one"),
    ("👍🏽 ok", "👍🏽-ok"),
    ("👨\u200d👩\u200d👧 fam", "👨\u200d👩\u200d👧-fam"),
    ("🇫🇷 flag", "🇫🇷-flag"),
    ("© 2024", "©-2024"),
    ("★ star", "-star"),
    ("⭐ star", "⭐-star"),
    ("❤️ love", "❤️-love"),
    ("İstanbul", "i\u0307stanbul"),
    ("ΣΑΣ", "σας"),
    ("ⓐ circled", "-circled"),
    ("e.g.", "eg"),
    ("🏳️\u200d🌈 pride", "🏳️\u200d🌈-pride"),
]


@pytest.mark.parametrize(("key", "canonical"), CASES)
def test_canonical_key_is_dataviews(key: str, canonical: str) -> None:
    assert canonical_key(key) == canonical
