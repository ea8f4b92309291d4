"""A small library vault for the Bases tests, with rows computed by hand in the tests."""

from __future__ import annotations


def _book(fm: str, body: str = "") -> str:
    return f"---\n{fm.strip()}\n---\n{body}\n"


LIBRARY_BASE = """\
filters:
  and:
    - file.hasTag("book")
    - 'type == "book"'
formulas:
  ppp: (price / pages * 100).round(2)
  label: 'file.basename + " (" + year + ")"'
  age: 2025 - year
  old: formula.age > 50
properties:
  formula.label:
    displayName: Label
  rating:
    displayName: Stars
summaries:
  top: values.reduce(if(acc == null || value > acc, value, acc), null)
views:
  - type: table
    name: All
    order: [file.name, rating, formula.label, formula.ppp]
    sort:
      - property: rating
        direction: DESC
    summaries:
      rating: Average
      formula.ppp: Max
  - type: table
    name: By genre
    groupBy: {property: genre, direction: ASC}
    order: [file.name, price, read]
    sort: [{property: file.name, direction: ASC}]
    summaries: {price: Sum, read: Checked}
  - type: cards
    name: Old
    filters: formula.old
    limit: 1
    order: [file.name, formula.age]
    sort: [{property: year, direction: ASC}]
    cardSize: 200
  - type: table
    name: Backlinked
    filters:
      not:
        - file.backlinks.length == 0
    order: [file.name, file.backlinks]
  - type: table
    name: Custom
    order: [rating]
    summaries: {rating: top}
  - type: table
    name: Here
    filters: file.folder == this.file.folder + "Books"
    order: [file.name]
columnSize: {file.name: 200}
"""

BASES_VAULT: dict[str, str | bytes] = {
    "Library.base": LIBRARY_BASE,
    "Books/Dune.md": _book(
        "type: book\nauthor: '[[Frank Herbert]]'\nyear: 1965\nrating: 5\nprice: 9.99\npages: 412\nread: true\n"
        "genre: scifi\nstarted: 2024-01-10\ntags: [book, scifi]",
        "Followed by [[Foundation]] in my reading.",
    ),
    "Books/Foundation.md": _book(
        "type: book\nauthor: '[[Isaac Asimov]]'\nyear: 1951\nrating: 4\nprice: 7.5\npages: 255\nread: false\n"
        "genre: scifi\nstarted: 2024-03-01\ntags: [book]",
        "See [[Dune]]. #classic",
    ),
    "Books/Emma.md": _book(
        "type: book\nauthor: '[[Jane Austen]]'\nyear: 1815\nrating: 3\nprice: 4.0\npages: 474\nread: true\n"
        "genre: classic\ntags: [book/novel]",
        "Nothing like [[Dune]].",
    ),
    "Books/Draft.md": _book("type: book\nstatus: draft\ntags: [book]"),
    "People/Frank Herbert.md": _book("type: person\nborn: 1920", "![[cover.png]]"),
    "People/Isaac Asimov.md": _book("type: person\nborn: 1920"),
    "Private/Secret.md": _book("type: book\nrating: 1\nprice: 100\ntags: [book]", "About [[Dune]]."),
    "Notes/Reading list.md": (
        "# Reading list\n\n[[Dune]] and [[Emma]].\n\n```base\nfilters: this.file.hasLink(file)\n"
        "views:\n  - type: table\n    name: Linked\n    order: [file.name, rating]\n"
        "    sort: [{property: rating, direction: ASC}]\n```\n\n"
        "```base\nfilters: 'rating >'\n```\n"
    ),
    "cover.png": b"\x89PNG\r\n\x1a\n0000",
}
