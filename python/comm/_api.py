"""import_stablehlo, plan and simulate: thin wrappers over comm-opt and
comm-sim."""

import json
import os
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


def _option(name, value):
    """``name=value`` for a pass option of --comm-plan, the value quoted when
    MLIR's option parser would split it (spaces, braces, quotes, '=').
    Raises ValueError for a value that no quoting passes: MLIR's parser
    has no escapes, so a value cannot hold both ' and " (wrapped in {...},
    its form for nested options, the braces became part of the value), and
    it trims the spaces at both ends of a value, quoted or not."""
    value = str(value)
    if value and not re.search(r"[\s{}'\"=]", value):
        return name + "=" + value
    if "'" in value and '"' in value:
        raise ValueError(
            "%s %r holds both ' and \": comm-opt's --comm-plan options "
            "cannot quote such a value (MLIR's option parser has no escapes); "
            "rename the file, or link it under a name without one of them"
            % (name, value))
    if value != value.strip():
        raise ValueError(
            "%s %r begins or ends with a space: comm-opt's --comm-plan "
            "options cannot pass it (MLIR's option parser trims values); "
            "rename the file" % (name, value))
    quote = "'" if '"' in value else '"'
    return "%s=%s%s%s" % (name, quote, value, quote)


def _topology_arg(topology):
    """The topology spec to give the tools for `topology` (str or path): a
    relative file is made absolute, so that a planned module's comm.topology
    names it from any folder, as the tools read a spec (lib/Topology/Load.cpp):
    "<file>:<N>" where <file> exists (N machines of it), else an existing
    file, else a preset or cluster name (dgx-h100, dgx-h100x4), kept."""
    if not isinstance(topology, (str, os.PathLike)):
        raise TypeError("topology must be a str or a path (a preset, a "
                        "cluster, or an NCCL XML or comm YAML file), not %s"
                        % type(topology).__name__)
    spec = os.fsdecode(topology)
    cluster = re.fullmatch(r"(.*):([0-9]+)", spec, re.S)
    if cluster and os.path.exists(cluster.group(1)):
        return _absolute(cluster.group(1)) + ":" + cluster.group(2)
    if os.path.exists(spec):
        return _absolute(spec)
    return spec


def _absolute(path):
    # Not resolved: a/../b is left to the file system, as the tools do.
    return path if os.path.isabs(path) else os.path.join(os.getcwd(), path)


# Why a file did not parse: in pretty (custom) form an op of a dialect the
# tool does not have; in generic form, any op of one (without
# --allow-unregistered-dialect).
_CUSTOM_OP_RE = re.compile(r"Dialect `[^']*' not found for custom op")
_UNREGISTERED_RE = re.compile(
    r"operation being parsed with an unregistered dialect")
_STABLEHLO_RE = re.compile(r"\b(?:stablehlo|sdy|mhlo|chlo)\.\w")

_GENERIC_FORM_HINT = (
    "comm's importer reads StableHLO in MLIR's generic op form "
    "(\"stablehlo.add\"(%a, %b) ...), and this file is in the pretty form, "
    "as jax's lowered.as_text() prints it: write comm.stablehlo_text(lowered) "
    "to the file instead, or let comm.from_jax lower the function "
    "(docs/Python.md)")


def _add_hint(err, hint):
    err.args = (err.args[0] + "\n(" + hint + ")",) + err.args[1:]


def import_stablehlo(path, out=None):
    """Imports StableHLO (MLIR generic op form, as JAX writes it) into a comm
    module with comm.world_size set: runs
    ``comm-opt --allow-unregistered-dialect --convert-stablehlo-to-comm``.

    The pretty form (jax's ``lowered.as_text()``) does not parse: write
    ``comm.stablehlo_text(lowered)`` instead. out defaults to
    ``<stem>.comm.mlir`` beside the input (``foo.stablehlo.mlir`` ->
    ``foo.comm.mlir``). Returns the output path; raises CommError with the
    tool's located diagnostics on failure."""
    path = Path(path)
    out = Path(out) if out is not None else path.with_name(_stem(path) + ".comm.mlir")
    try:
        proc = run_tool("comm-opt", ["--allow-unregistered-dialect",
                                     "--" + _IMPORT_PASS, path, "-o", out])
    except CommError as e:
        if e.tool == "comm-opt" and e.returncode and not has_pass(_IMPORT_PASS):
            _add_hint(e, "this comm-opt has no --%s pass: rebuild comm"
                      % _IMPORT_PASS)
        elif _CUSTOM_OP_RE.search(e.stderr):
            _add_hint(e, _GENERIC_FORM_HINT)
        raise
    if proc.stderr:  # warnings, e.g. compute imported without a cost rule
        sys.stderr.write(proc.stderr)
    return out


def _run_on_program(tool, args):
    """run_tool for plan and simulate, whose input must be a comm program:
    StableHLO that was not imported fails to parse, with MLIR's advice to
    pass -allow-unregistered-dialect, which is not the fix."""
    try:
        return run_tool(tool, args)
    except CommError as e:
        custom = _CUSTOM_OP_RE.search(e.stderr)
        unregistered = _UNREGISTERED_RE.search(e.stderr)
        if (custom or unregistered) and _STABLEHLO_RE.search(e.stderr):
            _add_hint(e, "this is StableHLO, not a comm program: import it "
                      "first (comm.import_stablehlo(path), or python -m comm "
                      "import), then %s what it writes%s"
                      % ("plan" if tool == "comm-opt" else "simulate",
                         "; MLIR's advice to use -allow-unregistered-dialect "
                         "does not apply" if unregistered else ""))
            if custom:
                _add_hint(e, _GENERIC_FORM_HINT)
        raise


# A string literal (escapes: \" \\ \n \t \XX) or a // comment, MLIR's only
# kind of comment; neither spans lines.
_LEXEME_RE = re.compile(r'"(?:[^"\\\n]|\\.)*"|//[^\n]*')
# A module with its attribute dictionary in the custom form:
# module [@name] attributes {...}.
_MODULE_RE = re.compile(r'(?<![\w.$%@#!-])(?:builtin\.)?module'
                        r'(?:\s*@(?:[\w$.-]+|"\d+"))?\s+attributes\s*(?=\{)')
# The generic form's op name: "builtin.module"(...).
_GENERIC_OP_RE = re.compile(r'"(\d+)"\s*(?=\()')
# Brackets, ',' (between a dictionary's entries) and '->', which closes
# nothing.
_BRACKET_RE = re.compile(r"->|[][{}()<>,]")
_SPACE_RE = re.compile(r"\s*")
_ENTRY_RE = re.compile(r'\s*(?:comm\.topology|"(\d+)")\s*=\s*"(\d+)"')


def _module_topology(text):
    """The comm.topology that a module sets in MLIR text `text`, or None.

    Counts the attribute only in a module's attribute dictionary, in the
    custom form (``module attributes {comm.topology = "..."}``) or the
    generic one (``"builtin.module"() ({...}) {comm.topology = "..."}``),
    not in // comments, strings or other ops' attributes."""
    strings = []

    def blank(m):  # a comment goes, a string becomes "<its index>"
        if m.group().startswith("//"):
            return ""
        strings.append(m.group())
        return '"%d"' % (len(strings) - 1)

    s = _LEXEME_RE.sub(blank, text)

    def string(index):
        return strings[int(index)]

    def group_end(i):
        """The index after the bracket group that opens at s[i]."""
        depth = 0
        for m in _BRACKET_RE.finditer(s, i):
            if m.group() in "{[(<":
                depth += 1
            elif m.group() in "}])>":
                depth -= 1
                if depth == 0:
                    return m.end()
        return len(s)

    def entry(i):
        """comm.topology's value in the attribute dictionary at s[i]."""
        depth = 0
        for m in _BRACKET_RE.finditer(s, i):
            c = m.group()
            if c in "{[(<":
                depth += 1
            elif c in "}])>":
                depth -= 1
                if depth == 0:
                    return None
            if depth == 1 and c in "{,":
                key = _ENTRY_RE.match(s, m.end())
                if key and (key.group(1) is None or
                            string(key.group(1)) == '"comm.topology"'):
                    return _unescape(string(key.group(2)))
        return None

    dicts = [m.end() for m in _MODULE_RE.finditer(s)]
    for m in _GENERIC_OP_RE.finditer(s):
        if string(m.group(1)) != '"builtin.module"':
            continue
        # "builtin.module"() [<{properties}>] [({region})] [{attributes}]
        i = group_end(m.end())
        for opener in "<({":
            i = _SPACE_RE.match(s, i).end()
            if s.startswith(opener, i):
                if opener == "{":
                    dicts.append(i)
                i = group_end(i)
    for i in dicts:
        value = entry(i)
        if value is not None:
            return value
    return None


def _unescape(literal):
    """The text of MLIR string literal `literal`."""
    out = bytearray()
    for m in re.finditer(r"\\([0-9a-fA-F]{2}|.)|[^\\]+", literal[1:-1], re.S):
        escape = m.group(1)
        if escape is None:
            out += m.group().encode()
        elif len(escape) == 2:
            out.append(int(escape, 16))
        else:
            out += {"n": b"\n", "t": b"\t"}.get(escape, escape.encode())
    return out.decode("utf-8", "replace")


def _topology_for(path, topology):
    """The topology to pass for ``path``: ``topology`` when given (a
    relative file made absolute), else None (the tools read the module's
    comm.topology attribute) where the module sets one, else
    DEFAULT_TOPOLOGY."""
    if topology is not None:
        return _topology_arg(topology)
    try:
        text = Path(path).read_text(errors="replace")
    except OSError:
        return DEFAULT_TOPOLOGY  # the tool reports the unreadable file
    if _module_topology(text) is not None:
        return None
    return DEFAULT_TOPOLOGY


def _check_strategy(strategy):
    if strategy is not None and strategy not in STRATEGIES:
        raise ValueError("unknown strategy %r: expected None or one of %s"
                         % (strategy, ", ".join(STRATEGIES)))


def plan(path, topology=None, strategy=None, out=None,
         explain=False, backend=None, cost_params=None):
    """Plans a comm program: ``comm-opt --comm-plan="topology=T strategy=S"``.

    topology: a preset (dgx-h100), a cluster (dgx-h100x4), an NCCL XML or comm
    YAML file (``file.xml:N``: a cluster of N of its machines); None (the
    default): the module's comm.topology attribute, else DEFAULT_TOPOLOGY.
    A relative file is made absolute; the planned module names the topology
    it was planned for in its comm.topology attribute. A file name holding
    both ' and " raises ValueError: comm-opt's pass options cannot pass it.
    strategy: None or "comm" for comm's own planner, or one of the baselines
    "naive", "ddp", "horovod", "xla". explain: every planning pass reports
    what it decided (located remarks, written to sys.stderr, so that
    contextlib.redirect_stderr captures them). backend: mpi, nccl or verbs
    (default: comm-plan's, nccl). cost_params: a cost model parameter file
    (``comm-sim calibrate --nccl-tests LOG... --fit --write-params F``
    fits one to your own nccl-tests runs).

    out defaults to ``<stem>.planned.mlir`` beside the input
    (``<stem>.planned.<strategy>.mlir`` for a baseline). Returns the output
    path; raises CommError with the tool's located diagnostics on failure
    (with a hint where the input is StableHLO that was not imported)."""
    path = Path(path)
    if strategy == "comm":
        strategy = None
    _check_strategy(strategy)
    if out is None:
        out = path.with_name(_stem(path) + ".planned" +
                             ("." + strategy if strategy else "") + ".mlir")
    out = Path(out)
    opts = []
    topology = _topology_for(path, topology)
    if topology is not None:
        opts.append(_option("topology", topology))
    if strategy is not None:
        opts.append("strategy=" + strategy)
    if backend is not None:
        opts.append(_option("backend", backend))
    if cost_params is not None:
        opts.append(_option("cost-params", cost_params))
    if explain:
        opts.append("explain=true")
    flag = "--comm-plan" + ("=" + " ".join(opts) if opts else "")
    proc = _run_on_program("comm-opt", [path, flag, "-o", out])
    if explain and proc.stderr:
        sys.stderr.write(proc.stderr)
    return out


def simulate(path, topology=None, trace=None, entry=None,
             backend=None, cost_params=None):
    """Simulates a comm program: ``comm-sim run <path> --topology T --json``.

    Returns comm-sim's JSON report as a dict (``step_time_us``,
    ``compute_us``, ``exposed_comm_us``, ``comm_bytes``, ``collectives``,
    ``ranks``, ``lower_bound_us``, ``busiest_links``, ...); with trace, a
    Chrome/Perfetto trace is written there and its path (a pathlib.Path) is
    added under ``"trace"``. topology as for plan; None (the default) uses
    the module's comm.topology attribute, else DEFAULT_TOPOLOGY.
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
    proc = _run_on_program("comm-sim", args)
    try:
        report = json.loads(proc.stdout)
    except ValueError as e:
        raise CommError("comm-sim printed no JSON report (%s):\n%s%s"
                        % (e, proc.stdout[:2000], proc.stderr),
                        tool="comm-sim", stderr=proc.stderr, stdout=proc.stdout)
    if not isinstance(report, dict):
        report = {"report": report}
    if trace is not None:
        report["trace"] = Path(trace)
    return report
