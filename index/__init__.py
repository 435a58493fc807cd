"""Hybrid index: documents, BM25 + FAISS, fusion, persistence, batch rebuild."""
