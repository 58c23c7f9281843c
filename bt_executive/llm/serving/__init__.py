"""Serving: the local llama.cpp model server this process runs, and its prompt-cache slots."""
