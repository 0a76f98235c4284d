"""from_jax: lower a JAX function to StableHLO, import it into comm, plan it
with each strategy and simulate every plan."""

import contextlib
import re
import tempfile
from pathlib import Path

from ._api import (DEFAULT_TOPOLOGY, _check_strategy, _module_topology,
                   _option, _topology_arg, import_stablehlo, plan, simulate)

__all__ = ["from_jax", "Result", "stablehlo_text"]

AS_IS = "as-is"


class Result:
    """What from_jax made and measured.

    name          the program's name (file stem in workdir)
    topology      the topology it was planned and simulated for (with
                  topology=None, the module's comm.topology, else
                  DEFAULT_TOPOLOGY; a relative file made absolute)
    workdir       folder holding every file below
    stablehlo     <name>.stablehlo.mlir: jax's StableHLO, generic op form
    imported      <name>.comm.mlir: the comm module, unplanned
    planned       <name>.planned.mlir: comm's own plan (None when the
                  strategies left comm out)
    plans         strategy name -> planned file ("comm", "naive", ...)
    step_time_us  strategy name -> simulated step time in microseconds,
                  with the unplanned import under "as-is"
    reports       strategy name -> comm-sim's whole JSON report
    trace         <name>.trace.json: Chrome/Perfetto trace of comm's plan
                  (open in ui.perfetto.dev or chrome://tracing)
    """

    def __init__(self, name, topology, workdir, stablehlo, imported):
        self.name = name
        self.topology = topology
        self.workdir = Path(workdir)
        self.stablehlo = Path(stablehlo)
        self.imported = Path(imported)
        self.planned = None
        self.trace = None
        self.plans = {}
        self.step_time_us = {}
        self.reports = {}

    @property
    def best(self):
        """The strategy with the shortest simulated step."""
        return min(self.step_time_us, key=self.step_time_us.get)

    def speedup(self, strategy, over=AS_IS):
        """step_time_us[over] / step_time_us[strategy]."""
        return self.step_time_us[over] / self.step_time_us[strategy]

    def __repr__(self):
        return "<comm.Result %s on %s: %s>" % (
            self.name, self.topology,
            ", ".join("%s %.1f us" % kv for kv in self.step_time_us.items()))

    def __str__(self):
        ranks = next((r.get("ranks") for r in self.reports.values()
                      if r.get("ranks")), None)
        lines = ["%s on %s%s: simulated step time" % (
            self.name, self.topology,
            " (%d ranks)" % ranks if ranks else "")]
        rows = [("strategy", "step (us)", "exposed comm (us)", "vs as-is")]
        base = self.step_time_us.get(AS_IS)
        fastest = min(self.step_time_us.values()) if self.step_time_us else None
        for key, t in self.step_time_us.items():
            rep = self.reports.get(key, {})
            exposed = rep.get("exposed_comm_us")
            rows.append((key, "%.1f" % t,
                         "%.1f" % exposed if exposed is not None else "-",
                         "%.2fx" % (base / t) if base and t else "-"))
        widths = [max(len(r[i]) for r in rows) for i in range(4)]
        for i, r in enumerate(rows):
            line = "  " + r[0].ljust(widths[0])
            line += "".join("  " + c.rjust(w) for c, w in zip(r[1:], widths[1:]))
            if i and len(rows) > 2 and \
                    self.step_time_us[r[0]] <= fastest * (1 + 1e-9):
                line += "  best"
            lines.append(line.rstrip())
        files = [("stablehlo", self.stablehlo), ("imported", self.imported),
                 ("planned", self.planned), ("trace", self.trace)]
        for label, path in files:
            if path is not None:
                lines.append("%-10s %s" % (label + ":", path))
        return "\n".join(lines)


def _name_of(fn):
    name = getattr(fn, "__name__", None)
    if not name:
        name = getattr(getattr(fn, "func", None), "__name__", None)
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", name or "")
    return name if name and name != "_lambda_" else "program"


def stablehlo_text(lowered):
    """The StableHLO of a jax Lowered (jax.jit(f).lower(...)) in MLIR's
    generic op form, without locations, as comm's importer reads it."""
    module = lowered.compiler_ir("stablehlo")
    return module.operation.get_asm(print_generic_op_form=True,
                                    enable_debug_info=False)


def _mesh_context(mesh):
    if mesh is None:
        return contextlib.nullcontext()
    import jax
    set_mesh = getattr(jax, "set_mesh", None)  # jax >= 0.7; `with mesh:` is deprecated
    if set_mesh is not None:
        return set_mesh(mesh)
    return mesh


def from_jax(fn, *args, mesh=None, topology=DEFAULT_TOPOLOGY, workdir=None,
             strategies=(None, "naive", "ddp", "horovod", "xla"), name=None):
    """Lowers jax.jit(fn).lower(*args) (fn is a shard_map'ed or pmap'ed
    function, whose collectives are explicit: one partitioned by jit
    shardings raises CommError, since XLA's partitioner would insert its
    collectives; mesh, if given, is the jax Mesh, set as the current mesh
    while lowering), writes its StableHLO to <workdir>/<name>.stablehlo.mlir,
    imports it into comm, plans it with every strategy in `strategies`
    (None is comm's own planner, reported as "comm"), simulates the
    unplanned import ("as-is") and every plan on `topology` (None: the
    module's comm.topology, else DEFAULT_TOPOLOGY), and returns a
    Result. `strategies` is a sequence, or one strategy as a string.
    workdir defaults to a new temporary folder; name to fn's name
    (a name with '/' raises ValueError: it is the stem of the files).

    It writes, into workdir, <name>.stablehlo.mlir, <name>.comm.mlir,
    <name>.planned.mlir and <name>.trace.json (for comm's own plan) and
    <name>.planned.<strategy>.mlir for each baseline, and overwrites files
    of those names that are there already, as a compiler's -o does; give
    another name or workdir to keep them. Nothing else in workdir is
    touched.

    The arguments are checked before anything is lowered or written: an
    unknown strategy, a name that is not a file name or a topology file
    that comm-opt cannot be given (see plan) raises ValueError, a topology
    that is not a str or path TypeError. Raises CommError, with
    the tools' located diagnostics, when a step fails."""
    if name and (not isinstance(name, str) or name in (".", "..") or
                 re.search(r"[/\\\x00]", name)):
        raise ValueError(
            "name %r is not a file name: it names the files in workdir "
            "(<name>.stablehlo.mlir, ...), so it must be a non-empty string "
            "without '/', '\\' or NUL" % (name,))
    name = name or _name_of(fn)
    # One strategy may be given alone ("ddp" was read as 'd', 'd', 'p').
    if isinstance(strategies, str):
        strategies = (strategies,)
    strategies = tuple(strategies)  # a generator is read once
    for strategy in strategies:
        _check_strategy(strategy)
    if topology is not None:
        topology = _topology_arg(topology)
        if strategies:  # a name that plan's options cannot pass
            _option("topology", topology)
    if workdir is not None and Path(workdir).exists() and \
            not Path(workdir).is_dir():
        raise ValueError("workdir %r is a file, not a folder: it is where "
                         "the program's files are written" % (str(workdir),))
    import jax

    workdir = Path(workdir) if workdir is not None else Path(
        tempfile.mkdtemp(prefix="comm-%s-" % name))
    workdir.mkdir(parents=True, exist_ok=True)

    with _mesh_context(mesh):
        lowered = jax.jit(fn).lower(*args)
    text = stablehlo_text(lowered)
    shlo = workdir / (name + ".stablehlo.mlir")
    shlo.write_text(text if text.endswith("\n") else text + "\n")

    imported = import_stablehlo(shlo, workdir / (name + ".comm.mlir"))
    used = topology
    if used is None:  # the tools read the module's, else the default
        used = _module_topology(imported.read_text(errors="replace")) or \
            DEFAULT_TOPOLOGY
    result = Result(name, used, workdir, shlo, imported)
    result.reports[AS_IS] = simulate(imported, topology)
    result.step_time_us[AS_IS] = result.reports[AS_IS]["step_time_us"]

    for strategy in strategies:
        key = strategy or "comm"
        if key == "comm":
            out = workdir / (name + ".planned.mlir")
            trace = workdir / (name + ".trace.json")
        else:
            out = workdir / (name + ".planned." + key + ".mlir")
            trace = None
        planned = plan(imported, topology=topology, strategy=strategy, out=out)
        report = simulate(planned, topology, trace=trace)
        result.plans[key] = planned
        result.reports[key] = report
        result.step_time_us[key] = report["step_time_us"]
        if key == "comm":
            result.planned = planned
            result.trace = trace
    return result
