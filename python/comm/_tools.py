"""Finding and running comm's command-line tools."""

import os
import re
import shutil
import subprocess
from pathlib import Path

__all__ = ["CommError", "Diagnostic", "find_tool", "run_tool", "has_pass"]

# <file>:<line>:<col>: <severity>: <message>, as MLIR and comm's tools print
# located diagnostics.
_DIAG_RE = re.compile(
    r"^(?P<file>.*?):(?P<line>\d+):(?P<col>\d+): "
    r"(?P<severity>error|warning|remark|note): (?P<message>.*)$")

# Diagnostics without a line: "<tool>: error: ..." (comm-opt: error: cannot
# open input file ...), "<file>: error: ..." and a bare "error: ...".
_UNLOCATED_RE = re.compile(
    r"^(?:(?P<prefix>[^\s:][^:]*): )?"
    r"(?P<severity>error|warning|remark|note): (?P<message>.*)$")

# LLVM's command-line parser reports a bad option as "<tool>: for the
# --backend option: ..." (also of a pass option: comm-plan's backend=gloo).
_CL_ERROR_RE = re.compile(
    r"^(?P<prefix>[^\s:]+): (?P<message>for the \S+ option: .*|"
    r"Unknown command line argument .*|"
    r"(?:Not enough|Too many) positional command line arguments .*)$")


class Diagnostic(tuple):
    """One diagnostic: (file, line, column, severity, message). line and
    column are None for one without a location ("comm-sim: error: cannot
    open input file ..."), and file too unless it names one
    ("topo.yaml: error: ...")."""

    __slots__ = ()

    def __new__(cls, file, line, column, severity, message):
        return tuple.__new__(cls, (file, line, column, severity, message))

    file = property(lambda self: self[0])
    line = property(lambda self: self[1])
    column = property(lambda self: self[2])
    severity = property(lambda self: self[3])
    message = property(lambda self: self[4])

    def __repr__(self):
        return "Diagnostic(%r, %r, %r, %r, %r)" % tuple(self)

    def __str__(self):
        if self.line is not None:
            return "%s:%d:%d: %s: %s" % tuple(self)
        where = "%s: " % self.file if self.file is not None else ""
        return "%s%s: %s" % (where, self.severity, self.message)


def _is_tool_name(prefix, tool):
    """Whether the prefix of "<prefix>: error: ..." names the program that
    printed it rather than a file."""
    if tool is not None:
        return prefix == Path(str(tool)).name
    return re.match(r"comm-[\w-]+$", prefix) is not None


def parse_diagnostics(text, tool=None):
    """The diagnostics in a tool's stderr, in order: the located ones
    (file:line:col: error: ...) and those without a line ("<tool>: error:
    ...", "<file>: error: ...", "error: ...", and LLVM's "<tool>: for the
    --X option: ..." for a bad option, an error). tool: the name of the
    program that printed them (default: any comm-* name), whose prefix
    gives file None."""
    out = []
    for line in (text or "").splitlines():
        m = _DIAG_RE.match(line)
        if m:
            out.append(Diagnostic(m["file"], int(m["line"]), int(m["col"]),
                                  m["severity"], m["message"]))
            continue
        m = _UNLOCATED_RE.match(line) or _CL_ERROR_RE.match(line)
        if m:
            prefix = m["prefix"]
            if prefix is not None and _is_tool_name(prefix, tool):
                prefix = None
            out.append(Diagnostic(prefix, None, None,
                                  m.groupdict().get("severity") or "error",
                                  m["message"]))
    return out


class CommError(RuntimeError):
    """A comm tool failed or could not be found.

    str(err) holds the command and the tool's stderr, which contains its
    located diagnostics (file:line:col: error: ...). Attributes: tool (name),
    cmd (argv list, or None when the tool was not found), returncode,
    stderr, stdout, diagnostics (stderr's diagnostics, parsed: the located
    ones, and those without a location, such as "comm-sim: error: cannot
    open input file ...", with file, line and column None) and errors (the
    diagnostics that are errors)."""

    def __init__(self, message, tool=None, cmd=None, returncode=None,
                 stderr="", stdout=""):
        super().__init__(message)
        self.tool = tool
        self.cmd = cmd
        self.returncode = returncode
        self.stderr = stderr or ""
        self.stdout = stdout or ""

    @property
    def diagnostics(self):
        return parse_diagnostics(self.stderr, self.tool)

    @property
    def errors(self):
        return [d for d in self.diagnostics if d.severity == "error"]


def _is_exe(path):
    return path.is_file() and os.access(str(path), os.X_OK)


def _checkout_bin_dir():
    """<repo>/build/bin when this package is loaded from a checkout
    (<repo>/python/comm/_tools.py: run with PYTHONPATH=python or installed
    with pip install -e), else None."""
    package = Path(__file__).resolve().parent
    root = package.parent.parent
    if (package.parent / "pyproject.toml").is_file() and \
            (root / "CMakeLists.txt").is_file():
        return root / "build" / "bin"
    return None


def find_tool(name):
    """The path of comm tool `name` (comm-opt, comm-sim, ...).

    Looks in $COMM_BIN_DIR when it is set (and only there), else on PATH,
    else in build/bin of the checkout this package lives in. Raises
    CommError when the tool is not found."""
    env = os.environ.get("COMM_BIN_DIR")
    if env:
        path = Path(env).expanduser() / name
        if _is_exe(path):
            return path
        raise CommError("%s not found: COMM_BIN_DIR=%s has no executable %s"
                        % (name, env, path), tool=name)
    found = shutil.which(name)
    if found:
        return Path(found)
    checkout = _checkout_bin_dir()
    if checkout is not None and _is_exe(checkout / name):
        return checkout / name
    raise CommError(
        "%s not found: set COMM_BIN_DIR to the folder holding comm's tools "
        "(build/bin of a comm build), or put them on PATH (looked on PATH%s)"
        % (name, " and in %s" % checkout if checkout is not None else ""),
        tool=name)


def run_tool(name, args, check=True):
    """Runs tool `name` with `args` (converted with str()); returns the
    subprocess.CompletedProcess (text stdout and stderr). Raises CommError
    when the tool is missing or, with check, exits non-zero."""
    exe = find_tool(name)
    cmd = [str(exe)] + [str(a) for a in args]
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, universal_newlines=True,
                              errors="replace")
    except OSError as e:
        raise CommError("%s could not be started: %s" % (name, e),
                        tool=name, cmd=cmd)
    if check and proc.returncode != 0:
        if proc.returncode < 0:
            how = "was killed by signal %d" % -proc.returncode
        else:
            how = "failed with exit status %d" % proc.returncode
        stderr = proc.stderr.rstrip()
        raise CommError("%s %s: %s%s" % (name, how, _shell_join(cmd),
                                         "\n" + stderr if stderr else ""),
                        tool=name, cmd=cmd, returncode=proc.returncode,
                        stderr=proc.stderr, stdout=proc.stdout)
    return proc


_help_cache = {}


def has_pass(name, tool="comm-opt"):
    """Whether `tool --help` lists the pass or pipeline `--name`."""
    key = (str(find_tool(tool)), tool)
    if key not in _help_cache:
        _help_cache[key] = run_tool(tool, ["--help"]).stdout
    return re.search(r"^\s*--%s(\s|=|$)" % re.escape(name), _help_cache[key],
                     re.M) is not None


def _shell_join(cmd):
    import shlex
    return " ".join(shlex.quote(c) for c in cmd)
