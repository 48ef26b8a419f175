"""Benchmarks: `make bench` (or `python -m bench [--quick]`) runs them all; each module also runs alone.

Every figure is printed next to a baseline measured in the same run, as a
ratio: the machines here are shared and noisy, so absolute times alone mean little.
"""
