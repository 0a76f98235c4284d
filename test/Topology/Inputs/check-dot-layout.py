#!/usr/bin/env python3
"""Checks the layout comm-topo dot pins: every device has a pinned position,
the GPUs of a row are in device order left to right, and, where Graphviz is
installed, that the rendered picture keeps those positions (up to a shift)
and no two devices of a row overlap. Prints what it found."""
import re, shutil, subprocess, sys

text = open(sys.argv[1]).read()
pinned = {}
for line in text.splitlines():
    m = re.match(r'\s*"([^"]+)" \[.*pos="([-\d.]+),([-\d.]+)!"', line)
    if m:
        pinned[m.group(1)] = (float(m.group(2)), float(m.group(3)))
devices = {n: p for n, p in pinned.items() if not n.startswith("comm:")}
if not devices:
    sys.exit("no pinned devices")

def gpu_index(name):
    m = re.fullmatch(r"(?:n\d+\.)?gpu(\d+)", name)
    return int(m.group(1)) if m else None

rows = {}
for name, (x, y) in devices.items():
    rows.setdefault(y, []).append((x, name))
for y in sorted(rows, reverse=True):
    names = [n for _, n in sorted(rows[y])]
    gpus = [gpu_index(n) for n in names if gpu_index(n) is not None]
    if gpus != sorted(gpus):
        sys.exit(f"GPUs out of order in a row: {' '.join(names)}")
    print("row:", " ".join(names))

if not shutil.which("dot"):
    print("not rendered (Graphviz is not installed)")
    sys.exit(0)
plain = subprocess.run(["dot", "-Tplain", sys.argv[1]], check=True,
                       capture_output=True, text=True).stdout
drawn = {}
for line in plain.splitlines():
    parts = line.split()
    if parts and parts[0] == "node":
        name = parts[1].strip('"')
        drawn[name] = tuple(float(v) for v in parts[2:6])
shift = None
for name, (x, y) in devices.items():
    dx, dy, w, h = drawn[name]
    if shift is None:
        shift = (dx - x, dy - y)
    if abs(dx - x - shift[0]) > 0.02 or abs(dy - y - shift[1]) > 0.02:
        sys.exit(f"{name} moved: pinned at {x},{y}, drawn at {dx},{dy}")
for y, row in rows.items():
    row = sorted((drawn[n][0], drawn[n][2], n) for _, n in row)
    for (x1, w1, a), (x2, w2, b) in zip(row, row[1:]):
        if x2 - x1 < (w1 + w2) / 2:
            sys.exit(f"{a} and {b} overlap")
print("rendered: positions kept, no overlaps")
