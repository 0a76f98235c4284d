#!/usr/bin/env python3
"""comm's plans of data-parallel steps whose gradients mix element types.

Gradients of different element types cannot share a bucket, but their
buckets share the communication stream: comm-fuse cuts the runs of each
type together (its joint cuts). This benchmark generates twelve backward
passes of 2 to 4 element types (f32, bf16, f16, i32), 4 to 16 layers of 1
to 4 gradients of 64 Ki to 4 Mi elements each, 20 to 100 us of compute per
layer, all-reduced over 4 ranks (a fixed seed per program: the same
programs every run), plans each with `comm-opt --comm-plan` on dgx-h100
and pcie-4gpu, and prints side by side the simulated step of comm's own
plan, of comm's plan with every run cut alone, and of each baseline
strategy, as comm-plan's comparison reports them.

    bench/plan_quality/mixed-dtypes.py [--bin build/bin] [--keep DIR]
"""

import argparse
import os
import random
import re
import subprocess
import sys
import tempfile

TYPES = ["f32", "bf16", "f16", "i32"]
SIZES = [65536, 262144, 1048576, 4194304]
TOPOLOGIES = ["dgx-h100", "pcie-4gpu"]
STRATEGIES = ["naive", "ddp", "horovod", "xla"]


def program(seed):
    """One generated backward pass, as comm IR."""
    rng = random.Random(seed)
    types = rng.sample(TYPES, rng.randint(2, 4))
    lines, results = [], []
    for layer in range(rng.randint(4, 16), 0, -1):
        grads = [(rng.choice(types), rng.choice(SIZES))
                 for _ in range(rng.randint(1, 4))]
        outs = ", ".join(f"tensor<{n}x{t}>" for t, n in grads)
        names = ", ".join(f"%g{layer}_{i}" for i in range(len(grads)))
        us = rng.choice([20.0, 50.0, 100.0])
        lines.append(f'    {names} = comm.compute "bwd{layer}"(%x) '
                     f"flops 1.0e+09 time_us {us} : (tensor<16xf32>) -> "
                     f"({outs})")
        for i, (t, n) in enumerate(grads):
            kind = "sum" if t == "i32" else "avg"
            lines.append(f"    %r{layer}_{i} = comm.all_reduce {kind} "
                         f"%g{layer}_{i} over [[0, 1, 2, 3]] : "
                         f"tensor<{n}x{t}>")
            results.append((f"%r{layer}_{i}", f"tensor<{n}x{t}>"))
    signature = ", ".join(t for _, t in results)
    values = ", ".join(v for v, _ in results)
    body = "\n".join(lines)
    return ("module attributes {comm.world_size = 4 : i64} {\n"
            f"  func.func @step(%x: tensor<16xf32>) -> ({signature}) {{\n"
            f"{body}\n    return {values} : {signature}\n  }}\n}}\n")


def plan(comm_opt, path, topology):
    """The steps comm-plan's comparison reports, by strategy."""
    run = subprocess.run(
        [comm_opt, path, f"--comm-plan=topology={topology} explain=true",
         "-o", os.devnull], capture_output=True, text=True)
    if run.returncode:
        sys.exit(f"mixed-dtypes: comm-opt failed on {path}:\n{run.stderr}")
    line = next((l for l in run.stderr.splitlines()
                 if "comm-plan: simulated step as comm plans it" in l), None)
    if line is None:
        sys.exit(f"mixed-dtypes: no comparison remark for {path}")
    steps = {"comm": float(re.search(r"comm plans it ([\d.]+) us", line)[1])}
    alone = re.search(r"comm with runs cut alone ([\d.]+) us", line)
    steps["alone"] = float(alone[1]) if alone else steps["comm"]
    # A baseline that overlaps nothing is reported by its lower bound where
    # that already reaches comm's step ("naive at least ..."): not
    # simulated.
    bounds = set()
    for strategy in STRATEGIES:
        found = re.search(rf" {strategy} (at least )?([\d.]+) us", line)
        steps[strategy] = float(found[2])
        if found[1]:
            bounds.add(strategy)
    return steps, bounds


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default=os.environ.get("COMM_BIN_DIR",
                                                        "build/bin"),
                        help="directory of comm-opt (default build/bin)")
    parser.add_argument("--keep", help="write the programs to this directory")
    args = parser.parse_args()
    comm_opt = os.path.join(args.bin, "comm-opt")
    if not os.access(comm_opt, os.X_OK):
        sys.exit(f"mixed-dtypes: no comm-opt in {args.bin} (--bin)")
    out = args.keep or tempfile.mkdtemp(prefix="comm-mixed-")
    os.makedirs(out, exist_ok=True)
    print("# comm-plan on twelve backward passes of mixed element types; "
          "simulated step in us")
    print(f"{'topology':10} {'program':8} {'comm':>10} {'alone':>10} "
          + " ".join(f"{s:>10}" for s in STRATEGIES) + "  comm/best baseline")
    beaten, total = 0, 0
    for topology in TOPOLOGIES:
        for seed in range(12):
            path = os.path.join(out, f"mixed{seed}.mlir")
            with open(path, "w") as f:
                f.write(program(seed))
            steps, bounds = plan(comm_opt, path, topology)
            best = min(steps[s] for s in STRATEGIES)
            total += 1
            beaten += steps["comm"] <= best
            print(f"{topology:10} mixed{seed:<3} {steps['comm']:10.2f} "
                  f"{steps['alone']:10.2f} "
                  + " ".join(f"{steps[s]:9.2f}+" if s in bounds else
                             f"{steps[s]:10.2f}" for s in STRATEGIES)
                  + f"  {steps['comm'] / best:.3f}", flush=True)
    print("(+: at least; a baseline that overlaps nothing is not simulated "
          "where its bound already reaches comm's step)")
    print(f"comm's own plan no slower than every baseline's: {beaten} of "
          f"{total}")


if __name__ == "__main__":
    main()
