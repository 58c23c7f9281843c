"""Routing: narrowing a large skill catalog to the few a task needs (BM25, embeddings, enablers)."""
