#!/usr/bin/env python3
"""Runs a comm tool over inputs that must be rejected cleanly.

Every input must make the tool exit with status 1 and print a located
diagnostic (`file:line:col: error: ...`, `file:line: error: ...` or
`file: error: ...`); a crash
(a signal or an unexpected exit status), a hang or a silent failure is a
test failure.

With --mutate N, the given seed files are not expected to fail: N variants
of each (truncations, deleted/duplicated/flipped bytes, spliced lines) are
generated with a fixed seed and each must either succeed (status 0) or fail
cleanly as above. Generated inputs that misbehave are written to --keep-dir
so they can be reproduced.
"""

import argparse
import os
import random
import re
import subprocess
import sys
import tempfile

LOCATED = re.compile(rb"^[^\n:]+(:\d+(:\d+)?)?: error: ", re.MULTILINE)


def run(tool, tool_args, path, timeout):
    try:
        proc = subprocess.run([tool, *tool_args, path], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, b"timed out"
    return proc.returncode, proc.stderr


def judge(rc, stderr, may_succeed):
    """Returns None when the outcome is acceptable, else a reason."""
    if rc is None:
        return "hang (timed out)"
    if rc == 0:
        return None if may_succeed else "accepted input that must be rejected"
    if rc != 1:
        return "crashed or exited with status %d" % rc
    if not LOCATED.search(stderr):
        return "failed without a located 'error:' diagnostic"
    return None


def mutations(data, rng, count):
    """Yields `count` deterministic variants of `data`."""
    lines = data.split(b"\n")
    for i in range(count):
        kind = i % 6
        if kind == 0 and data:  # truncate
            yield data[:rng.randrange(len(data))]
        elif kind == 1 and data:  # delete a span
            a = rng.randrange(len(data))
            yield data[:a] + data[a + rng.randint(1, 16):]
        elif kind == 2 and data:  # flip bytes
            buf = bytearray(data)
            for _ in range(rng.randint(1, 4)):
                buf[rng.randrange(len(buf))] = rng.randrange(256)
            yield bytes(buf)
        elif kind == 3 and data:  # duplicate a span
            a = rng.randrange(len(data))
            b = min(len(data), a + rng.randint(1, 40))
            yield data[:b] + data[a:b] + data[b:]
        elif kind == 4 and len(lines) > 1:  # splice lines of the file
            out = list(lines)
            j, k = rng.randrange(len(out)), rng.randrange(len(out))
            out[j] = out[k]
            yield b"\n".join(out)
        else:  # replace a token-like run with an interesting one
            tokens = [b"0", b"-1", b"9223372036854775807", b"[]", b"[[]]",
                      b"<>", b"f64", b"i1", b"?", b"tensor<0xf32>", b"\"",
                      b"%", b"#comm.plan<", b"!comm.token", b"{", b"}"]
            a = rng.randrange(len(data) + 1)
            b = min(len(data), a + rng.randint(0, 8))
            yield data[:a] + rng.choice(tokens) + data[b:]


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tool", required=True, help="tool to run")
    parser.add_argument("--tool-arg", action="append", default=[],
                        help="extra argument for the tool (repeatable)")
    parser.add_argument("--mutate", type=int, default=0,
                        help="variants to generate per seed file")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=30.0)
    parser.add_argument("--keep-dir", default=None,
                        help="where to keep inputs that misbehave")
    parser.add_argument("inputs", nargs="+", help="files or directories")
    args = parser.parse_args()

    files = []
    for item in args.inputs:
        if os.path.isdir(item):
            files += sorted(os.path.join(item, f) for f in os.listdir(item))
        else:
            files.append(item)
    if not files:
        print("error: no inputs", file=sys.stderr)
        return 2

    failures = []
    checked = 0
    with tempfile.TemporaryDirectory() as tmp:
        if args.mutate == 0:
            for path in files:
                rc, err = run(args.tool, args.tool_arg, path, args.timeout)
                reason = judge(rc, err, may_succeed=False)
                checked += 1
                if reason:
                    failures.append((path, reason, err))
        else:
            rng = random.Random(args.seed)
            for path in files:
                with open(path, "rb") as f:
                    data = f.read()
                for n, variant in enumerate(mutations(data, rng, args.mutate)):
                    stem, ext = os.path.splitext(os.path.basename(path))
                    name = "%s.%d%s" % (stem, n, ext)
                    mpath = os.path.join(tmp, name)
                    with open(mpath, "wb") as f:
                        f.write(variant)
                    rc, err = run(args.tool, args.tool_arg, mpath, args.timeout)
                    reason = judge(rc, err, may_succeed=True)
                    checked += 1
                    if reason:
                        kept = mpath
                        if args.keep_dir:
                            os.makedirs(args.keep_dir, exist_ok=True)
                            kept = os.path.join(args.keep_dir, name)
                            with open(kept, "wb") as f:
                                f.write(variant)
                        failures.append((kept, reason, err))

    for path, reason, err in failures:
        print("FAIL: %s: %s" % (path, reason))
        tail = err.decode("utf-8", "replace").strip().splitlines()[-5:]
        for line in tail:
            print("    " + line)
    print("checked %d inputs, %d misbehaved" % (checked, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
