"""python -m comm plan|simulate|import|tools: thin over the Python API."""

import argparse
import json
import sys
import tempfile
from pathlib import Path

from ._api import DEFAULT_TOPOLOGY, STRATEGIES, import_stablehlo, plan, simulate
from ._tools import CommError, find_tool


def _topology(value):
    return value or None  # --topology= : the module's comm.topology


def _emit(produce, out):
    """Runs produce(path); without -o prints the file it wrote."""
    if out:
        produce(Path(out))
        return
    with tempfile.TemporaryDirectory(prefix="comm-") as tmp:
        path = Path(tmp) / "out.mlir"
        produce(path)
        sys.stdout.write(path.read_text())


def _summary(report):
    rows = []

    def add(label, key, fmt):
        if key in report and report[key] is not None:
            rows.append((label, fmt(report[key])))

    add("step time", "step_time_us", lambda v: "%.1f us" % v)
    add("compute", "compute_us", lambda v: "%.1f us" % v)
    add("exposed comm", "exposed_comm_us", lambda v: "%.1f us" % v)
    if "lower_bound_us" in report:
        why = report.get("lower_bound_why")
        rows.append(("lower bound", "%.1f us%s" % (
            report["lower_bound_us"], " (%s)" % why if why else "")))
    add("comm bytes", "comm_bytes", lambda v: "%.2f MB" % (v / 1e6))
    add("collectives", "collectives", str)
    add("ranks", "ranks", str)
    add("trace", "trace", str)
    width = max(len(r[0]) for r in rows) if rows else 0
    return "\n".join("%s  %s" % (k.ljust(width), v) for k, v in rows)


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="python -m comm",
        description="Import, plan and simulate comm programs (drives "
                    "comm-opt and comm-sim; set COMM_BIN_DIR to their folder).")
    sub = ap.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    topo_help = ("preset (dgx-h100), cluster (dgx-h100x4), NCCL XML or comm "
                 "YAML file (default: the module's comm.topology, else "
                 + DEFAULT_TOPOLOGY + ")")
    cost_help = ("cost model parameter file (comm-sim calibrate ... --fit "
                 "--write-params FILE fits one to your nccl-tests runs)")

    p = sub.add_parser("plan", help="plan a comm program (comm-opt --comm-plan)")
    p.add_argument("file")
    p.add_argument("--topology", default=None, help=topo_help)
    p.add_argument("--strategy", choices=STRATEGIES, default=None,
                   help="who plans (default: comm)")
    p.add_argument("--backend", choices=("mpi", "nccl", "verbs"))
    p.add_argument("--explain", action="store_true",
                   help="every planning pass says what it decided (stderr)")
    p.add_argument("--cost-params", metavar="FILE", help=cost_help)
    p.add_argument("-o", "--out", help="output file (default: stdout)")

    s = sub.add_parser("simulate", help="simulate a comm program (comm-sim run)")
    s.add_argument("file")
    s.add_argument("--topology", default=None, help=topo_help)
    s.add_argument("--trace", help="write a Chrome/Perfetto trace (JSON) here")
    s.add_argument("--entry", help="function to run (default: the only or "
                                    "first public one)")
    s.add_argument("--backend", choices=("mpi", "nccl", "verbs"))
    s.add_argument("--cost-params", metavar="FILE", help=cost_help)
    s.add_argument("--json", action="store_true",
                   help="print comm-sim's whole JSON report")

    i = sub.add_parser("import", help="import StableHLO (generic op form) "
                                      "into comm (--convert-stablehlo-to-comm)")
    i.add_argument("file")
    i.add_argument("-o", "--out", help="output file (default: stdout)")

    sub.add_parser("tools", help="print where the comm tools were found")

    a = ap.parse_args(argv)
    try:
        if a.command == "plan":
            _emit(lambda out: plan(a.file, topology=_topology(a.topology),
                                   strategy=a.strategy, out=out,
                                   explain=a.explain, backend=a.backend,
                                   cost_params=a.cost_params),
                  a.out)
        elif a.command == "simulate":
            report = simulate(a.file, topology=_topology(a.topology),
                              trace=a.trace, entry=a.entry, backend=a.backend,
                              cost_params=a.cost_params)
            if a.json:  # default=str: the trace's path
                print(json.dumps(report, indent=2, sort_keys=True, default=str))
            else:
                print(_summary(report))
        elif a.command == "import":
            _emit(lambda out: import_stablehlo(a.file, out), a.out)
        elif a.command == "tools":
            missing = 0
            for tool in ("comm-opt", "comm-sim", "comm-compile", "comm-topo"):
                try:
                    print("%-12s %s" % (tool, find_tool(tool)))
                except CommError as e:
                    print("%-12s %s" % (tool, e))
                    missing += 1
            if missing:  # a script checking the set-up must see it fail
                return 1
    except (CommError, ValueError) as e:
        sys.stderr.write("error: %s\n" % e)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
