"""Rerank: a cross-encoder reorders the top candidates of a search (optional, off by default).

`protocol.py` is the one interface (`Reranker`) and `reorder`, which never fails: an outage or
a timeout gives back the order it was handed, flagged `degraded`. `http.py` speaks the
published rerank APIs (Cohere `/v2/rerank`, Voyage `/v1/rerank`, Jina-style `/v1/rerank` as
served by compatible local servers, Hugging Face text-embeddings-inference `/rerank`), built
from `[rerank]` by `build_reranker`. Touches nothing but the network.
"""
