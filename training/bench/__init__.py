"""Benchmarks and research scripts, run on demand (they print; none of them is a test)."""
