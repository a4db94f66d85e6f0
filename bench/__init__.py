"""Benchmarks (speed and recall); numbers go to docs/benchmarks.md."""
