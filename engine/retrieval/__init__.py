"""Retrieval: query analysis, candidates, ranking, reranking, multi-intent coverage,
relevance and abstention, results, execution state and the registry gate.
"""
