"""Benchmark dataset loaders."""
