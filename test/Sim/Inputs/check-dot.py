#!/usr/bin/env python3
"""Checks that every quoted string of a DOT file is closed on its line
(escapes honoured) and, where Graphviz is installed, that `dot` renders it.
Prints "dot ok" or the first bad line."""
import shutil, subprocess, sys

text = open(sys.argv[1]).read()
for number, line in enumerate(text.splitlines(), 1):
    inside, i = False, 0
    while i < len(line):
        if inside and line[i] == '\\':
            i += 2
            continue
        if line[i] == '"':
            inside = not inside
        i += 1
    if inside:
        print(f"unclosed string on line {number}: {line}")
        sys.exit(1)
if shutil.which("dot"):
    subprocess.run(["dot", "-Tsvg", "-o", "/dev/null", sys.argv[1]], check=True)
print("dot ok")
