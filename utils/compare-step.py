#!/usr/bin/env python3
"""Compares the step times of two `comm-sim run --json` outputs.

usage: compare-step.py FASTER.json SLOWER.json

Prints both step times and their ratio, and exits 1 unless the first is
faster than the second (what a test of a planning claim asserts).
"""
import json
import sys


def step(path):
    with open(path) as f:
        return json.load(f)["step_time_us"]


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    fast, slow = step(sys.argv[1]), step(sys.argv[2])
    print(f"{fast:.2f} us vs {slow:.2f} us: {slow / fast:.2f}x")
    sys.exit(0 if fast < slow else 1)
