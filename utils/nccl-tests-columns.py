#!/usr/bin/env python3
"""Reads nccl-tests output the way scripts written for nccl-tests do.

usage: nccl-tests-columns.py FILE

Data rows are the lines that do not start with '#', split on whitespace at
nccl-tests' fixed column positions: size 0, count 1, type 2, redop 3,
root 4, then time, algbw, busbw and #wrong out of place (5-8) and in place
(9-12). Prints a one-line summary, and exits 1 on a row that does not parse
(a test that comm-sim bench's table is nccl-tests' layout).
"""
import sys


def main(path):
    rows = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            if line.startswith("#") or not line.strip():
                continue
            cols = line.split()
            try:
                size, count = int(cols[0]), int(cols[1])
                float(cols[5]), float(cols[6]), float(cols[9]), float(cols[10])
                busbw = (float(cols[7]), float(cols[11]))
                int(cols[4])
            except (IndexError, ValueError) as e:
                sys.exit("%s:%d: not an nccl-tests row (%s): %s"
                         % (path, number, e, line.rstrip()))
            rows.append((size, count, cols[2], cols[3], busbw))
    if not rows:
        sys.exit("%s: no data rows" % path)
    print("%d rows, sizes %d .. %d, type %s, redop %s"
          % (len(rows), rows[0][0], rows[-1][0], rows[0][2], rows[0][3]))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
