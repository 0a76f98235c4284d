"""import_stablehlo, plan and simulate: thin wrappers over comm-opt and
comm-sim."""

import json
import re
import sys
from pathlib import Path

from ._tools import CommError, has_pass, run_tool

__all__ = ["import_stablehlo", "plan", "simulate", "STRATEGIES",
           "DEFAULT_TOPOLOGY"]

DEFAULT_TOPOLOGY = "dgx-h100"

# What comm-plan's strategy= accepts: comm's own planner and the baselines
# that plan as those frameworks' defaults do.
STRATEGIES = ("comm", "naive", "ddp", "horovod", "xla")

_IMPORT_PASS = "convert-stablehlo-to-comm"


def _stem(path):
    """foo.stablehlo.mlir -> foo, foo.mlir -> foo."""
    name = Path(path).name
    for suffix in (".mlir", ".stablehlo", ".comm"):
        if name.endswith(suffix) and len(name) > len(suffix):
            name = name[:-len(suffix)]
    return name


def _option_value(value):
    """A pass option's value, quoted when MLIR's option parser would split
    it (spaces, braces, quotes, '=')."""
    value = str(value)
    if value and not re.search(r"[\s{}'\"=]", value):
        return value
    if '"' not in value:
        return '"%s"' % value
    if "'" not in value:
        return "'%s'" % value
    return "{%s}" % value


def import_stablehlo(path, out=None):
    """Imports StableHLO (MLIR generic op form, as JAX writes it) into a comm
    module with comm.world_size set: runs
    ``comm-opt --allow-unregistered-dialect --convert-stablehlo-to-comm``.

    out defaults to ``<stem>.comm.mlir`` beside the input (``foo.stablehlo.mlir``
    -> ``foo.comm.mlir``). Returns the output path; raises CommError with the
    tool's located diagnostics on failure."""
    path = Path(path)
    out = Path(out) if out is not None else path.with_name(_stem(path) + ".comm.mlir")
    try:
        proc = run_tool("comm-opt", ["--allow-unregistered-dialect",
                                     "--" + _IMPORT_PASS, path, "-o", out])
    except CommError as e:
        if e.tool == "comm-opt" and e.returncode and not has_pass(_IMPORT_PASS):
            e.args = (e.args[0] + "\n(this comm-opt has no --%s pass: "
                      "rebuild comm)" % _IMPORT_PASS,)
        raise
    if proc.stderr:  # warnings, e.g. compute imported without a cost rule
        sys.stderr.write(proc.stderr)
    return out


def _topology_for(path, topology):
    """The topology to pass for ``path``: ``topology`` when given, else
    None (the tools read the module's comm.topology attribute) where the
    module has one, else DEFAULT_TOPOLOGY."""
    if topology is not None:
        return topology
    try:
        text = Path(path).read_text(errors="replace")
    except OSError:
        return DEFAULT_TOPOLOGY  # the tool reports the unreadable file
    if re.search(r"\bcomm\.topology\s*=", text):
        return None
    return DEFAULT_TOPOLOGY


def plan(path, topology=None, strategy=None, out=None,
         explain=False, backend=None, cost_params=None):
    """Plans a comm program: ``comm-opt --comm-plan="topology=T strategy=S"``.

    topology: a preset (dgx-h100), a cluster (dgx-h100x4), an NCCL XML or comm
    YAML file; None (the default): the module's comm.topology attribute,
    else DEFAULT_TOPOLOGY. The planned module names the topology it was
    planned for in its comm.topology attribute.
    strategy: None or "comm" for comm's own planner, or one of the baselines
    "naive", "ddp", "horovod", "xla". explain: every planning pass reports
    what it decided (located remarks, written to sys.stderr, so that
    contextlib.redirect_stderr captures them). backend: mpi, nccl or verbs
    (default: comm-plan's, nccl). cost_params: a cost model parameter file
    (``comm-sim calibrate --nccl-tests LOG... --fit --write-params F``
    fits one to your own nccl-tests runs).

    out defaults to ``<stem>.planned.mlir`` beside the input
    (``<stem>.planned.<strategy>.mlir`` for a baseline). Returns the output
    path; raises CommError with the tool's located diagnostics on failure."""
    path = Path(path)
    if strategy == "comm":
        strategy = None
    if strategy is not None and strategy not in STRATEGIES:
        raise ValueError("unknown strategy %r: expected None or one of %s"
                         % (strategy, ", ".join(STRATEGIES)))
    if out is None:
        out = path.with_name(_stem(path) + ".planned" +
                             ("." + strategy if strategy else "") + ".mlir")
    out = Path(out)
    opts = []
    topology = _topology_for(path, topology)
    if topology is not None:
        opts.append("topology=" + _option_value(topology))
    if strategy is not None:
        opts.append("strategy=" + strategy)
    if backend is not None:
        opts.append("backend=" + _option_value(backend))
    if cost_params is not None:
        opts.append("cost-params=" + _option_value(str(cost_params)))
    if explain:
        opts.append("explain=true")
    flag = "--comm-plan" + ("=" + " ".join(opts) if opts else "")
    proc = run_tool("comm-opt", [path, flag, "-o", out])
    if explain and proc.stderr:
        sys.stderr.write(proc.stderr)
    return out


def simulate(path, topology=None, trace=None, entry=None,
             backend=None, cost_params=None):
    """Simulates a comm program: ``comm-sim run <path> --topology T --json``.

    Returns comm-sim's JSON report as a dict (``step_time_us``,
    ``compute_us``, ``exposed_comm_us``, ``comm_bytes``, ``collectives``,
    ``ranks``, ``lower_bound_us``, ``busiest_links``, ...); with trace, a
    Chrome/Perfetto trace is written there and its path is added under
    ``"trace"``. topology None (the default) uses the module's comm.topology
    attribute, else DEFAULT_TOPOLOGY.
    entry: the function to run (default: the only or first public one).
    cost_params: a cost model parameter file, as for plan."""
    args = ["run", Path(path), "--json"]
    topology = _topology_for(path, topology)
    if topology is not None:
        args += ["--topology", topology]
    if trace is not None:
        args += ["--trace", Path(trace)]
    if entry is not None:
        args += ["--entry", entry]
    if backend is not None:
        args += ["--backend", backend]
    if cost_params is not None:
        args += ["--cost-params", Path(cost_params)]
    proc = run_tool("comm-sim", args)
    try:
        report = json.loads(proc.stdout)
    except ValueError as e:
        raise CommError("comm-sim printed no JSON report (%s):\n%s%s"
                        % (e, proc.stdout[:2000], proc.stderr),
                        tool="comm-sim", stderr=proc.stderr, stdout=proc.stdout)
    if not isinstance(report, dict):
        report = {"report": report}
    if trace is not None:
        report["trace"] = str(trace)
    return report
