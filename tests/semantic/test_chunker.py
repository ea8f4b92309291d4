"""The chunker with the real tokenizer: headings, whole fences/math/tables, long sections,
window overlap, the fallback chunk, and stable hashes."""

from __future__ import annotations

from service.embeddings.counting import counter
from service.embeddings.tokens import TokenCounter
from service.semantic.chunker import Chunker
from tests.real_vaults import VAULTS
from tests.semantic.helpers import VAULT
from tests.semantic.test_token_count import ODD

TOKENS = TokenCounter(counter().count)  # as the embedding engine builds it


def chunker(max_tokens: int = 64, overlap: int = 8) -> Chunker:
    return Chunker(TOKENS, max_tokens=max_tokens, overlap=overlap)


BODY = """Intro before any heading.

# Alpha
Text under alpha.

```python
def f():

    return 1
```

## Beta
| a | b |
|---|---|
| 1 | 2 |

$$
x^2 + y^2

= z^2
$$

# Gamma
Last words.
"""


def test_headings_paths_and_whole_blocks() -> None:
    chunks = chunker(max_tokens=256).chunks("Note", BODY)
    assert [c.heading_path for c in chunks] == [(), ("Alpha",), ("Alpha", "Beta"), ("Gamma",)]
    assert chunks[1].text.endswith("```") and "def f():\n\n    return 1" in chunks[1].text  # fence kept whole
    assert "| 1 | 2 |" in chunks[2].text and "$$\nx^2 + y^2\n\n= z^2\n$$" in chunks[2].text
    assert chunks[2].embed_text.startswith("Note › Alpha › Beta\n")
    assert chunks[0].embed_text.startswith("Note\n")
    assert [c.position for c in chunks] == [0, 1, 2, 3]
    assert chunks[2].heading == "Beta" and chunks[0].heading is None


def test_small_budget_splits_by_block_then_window_with_overlap() -> None:
    paragraphs = "\n\n".join(f"Paragraph {i} " + " ".join(f"w{i}x{j}" for j in range(12)) for i in range(6))
    long_para = " ".join(f"token{i}" for i in range(300))
    chunks = chunker(max_tokens=64, overlap=8).chunks("T", "# H\n" + paragraphs + "\n\n" + long_para)
    assert all(c.tokens <= 64 for c in chunks)
    by_para = [c for c in chunks if c.text.startswith("Paragraph")]
    assert len(by_para) > 1 and all(not c.text.endswith(" ") for c in by_para)
    windows = [c.text for c in chunks if c.text.startswith("token") or "token1" in c.text]
    assert len(windows) >= 3
    for left, right in zip(windows, windows[1:], strict=False):
        shared = set(left.split()) & set(right.split())
        assert shared, "neighbouring windows overlap"
    words = set(" ".join(windows).split())
    assert {f"token{i}" for i in range(300)} <= words  # nothing lost between windows


def test_fallback_chunk_for_notes_without_body() -> None:
    [only] = chunker().chunks("Empty", "", aliases=["Nothing"], tags=["misc"], properties={"status": "draft"})
    assert only.embed_text == "Empty\nAliases: Nothing\nTags: #misc\nstatus: draft"
    [blank] = chunker().chunks("", "   \n\n")
    assert blank.embed_text == "(empty note)"


def test_hash_follows_the_embedded_text() -> None:
    a = chunker().chunks("Note", BODY)
    b = chunker().chunks("Note", BODY.replace("Last words.", "Other words."))
    assert [c.hash for c in a[:3]] == [c.hash for c in b[:3]] and a[3].hash != b[3].hash
    renamed = chunker().chunks("Renamed", BODY)
    assert all(x.hash != y.hash for x, y in zip(a, renamed, strict=True))


def test_huge_fence_alone_is_windowed() -> None:
    fence = "```\n" + "\n".join(f"line {i} = value_{i}" for i in range(200)) + "\n```"
    chunks = chunker(max_tokens=64).chunks("Code", fence)
    assert len(chunks) > 3 and all(c.tokens <= 64 for c in chunks)


def test_the_model_reads_the_passage_without_wordless_markup() -> None:
    body = (
        "# Plan\n"
        "See [[Policy Roadmap#Results|the results]] and [[Budget#Q3]] or ![[chart.png]]; **bold**, ~~old~~, "
        "==marked==.\n\n"
        "| Name | Cost |\n|:---|---:|\n| tea | 3 |\n\n"
        "```python\nif a == b and x ** 2:\n    pass\n```\n"
    )
    [chunk] = chunker(max_tokens=256).chunks("Notes", body)
    assert chunk.text == body.split("\n", 1)[1].strip()  # callers see the passage as written
    seen = chunk.embed_text
    assert seen.startswith("Notes › Plan\nSee the results and Budget Q3 or chart.png; bold, old, marked.")
    assert "| Name | Cost |\n| tea | 3 |" in seen and "---" not in seen
    assert "if a == b and x ** 2:" in seen  # code is read as written
    assert chunk.tokens == TOKENS.count(seen)


def test_a_first_heading_that_repeats_the_title_is_not_read_twice() -> None:
    chunks = chunker(max_tokens=256).chunks("Sourdough", "# Sourdough\nIntro.\n\n## Feeding\nFlour and water.")
    assert [c.heading_path for c in chunks] == [("Sourdough",), ("Sourdough", "Feeding")]  # links keep the heading
    assert [c.embed_text.split("\n")[0] for c in chunks] == ["Sourdough", "Sourdough › Feeding"]


def _notes() -> list[tuple[str, str]]:
    notes = [(p.rsplit("/", 1)[-1][:-3], body) for p, body in VAULT.items()]
    notes += [("Odd", "\n\n".join(ODD)), ("Odd", "# " + "\n\n".join(ODD) + "\n\n" + " ".join(ODD) * 20)]
    for name in ("obsidian-help-en", "kepano-obsidian"):
        for path in sorted((VAULTS / name).rglob("*.md")):
            notes.append((path.stem, path.read_text(encoding="utf-8", errors="replace")))
    return notes


def test_chunks_are_the_same_as_with_the_tokenizers_own_counts() -> None:
    """Every chunk (boundaries, texts, token counts, hashes) as the tokenizer's counts make it, on
    awkward text and, when the real vaults are present, on every note of two of them."""
    reference = Chunker(TokenCounter(), max_tokens=256, overlap=32)  # the tokenizer's own counts
    small = Chunker(TokenCounter(), max_tokens=48, overlap=8)
    for title, body in _notes():
        assert chunker(256, 32).chunks(title, body) == reference.chunks(title, body), title
        assert chunker(48, 8).chunks(title, body) == small.chunks(title, body), title
