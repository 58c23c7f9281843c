"""Embedding: one MiniLM sentence embedder per process, for routing."""
