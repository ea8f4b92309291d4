"""Search by meaning: chunks of notes, their vectors, and rankings over them.

    blocks.py    a note body as blocks (headings, fences, math, tables, paragraphs) under heading paths
    chunker.py   heading-aware chunks sized in model tokens, with a fallback chunk for empty notes
    store.py     chunk rows and vectors in the index (what needs chunking, what needs a vector)
    vectors.py   nearest chunks: sqlite-vec `vec0`, or an exact numpy scan
    job.py       the per-vault embedding job that follows the indexer
    engine.py    SemanticEngine: the model (lazy, once), the chunker, the jobs, nearest-chunk search
    search.py    filtered semantic and hybrid rankings (read permission before any limit)

docs/semantic.md describes the behaviour; the tools are in `service/tools/search/semantic.py`
and `rag.py`.
"""
