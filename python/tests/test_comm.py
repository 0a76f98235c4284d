#!/usr/bin/env python3
"""Tests of the comm Python package (python/comm).

Run from the repository root, without installing:

    PYTHONPATH=python COMM_BIN_DIR=build/bin python3 python/tests/test_comm.py

(both default sensibly: the package next to this file, and the checkout's
build/bin). The from_jax test runs only where jax is importable (e.g. with
/work/jax-venv/bin/python) and comm-opt has --convert-stablehlo-to-comm.
"""

import contextlib
import importlib.util
import io
import json
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
if str(HERE.parent) not in sys.path:
    sys.path.insert(0, str(HERE.parent))

# 8 host "devices" for the jax test; must be set before jax is imported.
_FLAG = "--xla_force_host_platform_device_count=8"
if _FLAG not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " " + _FLAG).strip()
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import comm  # noqa: E402

GRAD_STEP = REPO / "examples" / "grad_step.mlir"
FIXTURES = REPO / "test" / "Conversion" / "StableHLOToComm" / "Inputs"
IMPORT_PASS = "convert-stablehlo-to-comm"

BAD = """\
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = comm.all_reduce sum %x over [[0, 1]] tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""

# jax's lowered.as_text(): StableHLO in the pretty form, which the importer
# (it reads the generic op form) does not parse.
PRETTY_STABLEHLO = """\
module @jit_step attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["d"=8]>
  func.func public @main(%arg0: tensor<64x128xf32>) -> tensor<64x128xf32> {
    %0 = stablehlo.add %arg0, %arg0 : tensor<64x128xf32>
    return %0 : tensor<64x128xf32>
  }
}
"""


@contextlib.contextmanager
def cwd(path):
    old = os.getcwd()
    os.chdir(str(path))
    try:
        yield
    finally:
        os.chdir(old)


def export_topology(path, preset="dgx-h100"):
    path.write_text(comm.run_tool(
        "comm-topo", ["export", "--topology", preset]).stdout)
    return path



class TempDirTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="comm-test-")
        self.tmp = Path(self._tmp.name)

    def tearDown(self):
        self._tmp.cleanup()


class ToolsTest(TempDirTest):
    def test_find_tool(self):
        for tool in ("comm-opt", "comm-sim"):
            path = comm.find_tool(tool)
            self.assertTrue(path.is_file(), path)
            self.assertEqual(path.name, tool)

    def test_comm_bin_dir_without_the_tool(self):
        old = os.environ.get("COMM_BIN_DIR")
        os.environ["COMM_BIN_DIR"] = str(self.tmp)
        try:
            with self.assertRaises(comm.CommError) as cm:
                comm.simulate(GRAD_STEP)
        finally:
            if old is None:
                del os.environ["COMM_BIN_DIR"]
            else:
                os.environ["COMM_BIN_DIR"] = old
        self.assertIn("comm-sim not found", str(cm.exception))
        self.assertIn(str(self.tmp), str(cm.exception))

    def test_has_pass(self):
        self.assertTrue(comm.has_pass("comm-plan"))
        self.assertFalse(comm.has_pass("no-such-pass-anywhere"))


class PlanSimulateTest(TempDirTest):
    def test_simulate_as_is(self):
        report = comm.simulate(GRAD_STEP, topology="dgx-h100")
        self.assertIsInstance(report, dict)
        self.assertIsInstance(report["step_time_us"], float)
        self.assertGreater(report["step_time_us"], 0)
        self.assertEqual(report["ranks"], 4)
        self.assertEqual(report["collectives"], 24)
        self.assertNotIn("trace", report)

    def test_module_topology_is_the_default(self):
        # The module's comm.topology decides where no topology is given
        # (dgx-h100 used to override it), and the planned module names the
        # topology it was planned for.
        src = self.tmp / "pcie.mlir"
        src.write_text(GRAD_STEP.read_text().replace(
            'comm.topology = "dgx-h100"', 'comm.topology = "pcie-4gpu"'))
        planned = comm.plan(src, out=self.tmp / "pcie.planned.mlir")
        self.assertIn('comm.topology = "pcie-4gpu"', planned.read_text())
        again = comm.plan(src, topology="dgx-h100",
                          out=self.tmp / "h100.planned.mlir")
        self.assertIn('comm.topology = "dgx-h100"', again.read_text())
        # A planned program keeps its plan fields: planning it for another
        # machine is refused (it kept pcie-4gpu's hierarchical plans).
        with self.assertRaises(comm.CommError) as cm:
            comm.plan(planned, topology="dgx-h100",
                      out=self.tmp / "replanned.mlir")
        self.assertIn("plan the program from before that plan",
                      str(cm.exception))

    def test_plan_then_simulate(self):
        out = self.tmp / "planned.mlir"
        got = comm.plan(GRAD_STEP, topology="dgx-h100", out=out)
        self.assertEqual(got, out)
        self.assertIn("comm.all_reduce", out.read_text())
        trace = self.tmp / "trace.json"
        planned = comm.simulate(out, topology="dgx-h100", trace=trace)
        as_is = comm.simulate(GRAD_STEP, topology="dgx-h100")
        self.assertLess(planned["step_time_us"], as_is["step_time_us"])
        self.assertLess(planned["collectives"], as_is["collectives"])
        self.assertEqual(planned["trace"], trace)
        self.assertIsInstance(planned["trace"], Path)  # as docs/Python.md says
        events = json.loads(trace.read_text())
        self.assertTrue(events)

    def test_cost_params(self):
        # Parameters calibrated for another machine change the plan: with
        # NVLS made slow the planner stops choosing it.
        params = REPO / "test" / "Pipelines" / "Inputs" / "slow-nvls.yaml"
        prog = REPO / "test" / "Pipelines" / "cost-params.mlir"
        default = comm.plan(prog, out=self.tmp / "default.mlir").read_text()
        slow = comm.plan(prog, out=self.tmp / "slow.mlir",
                         cost_params=params).read_text()
        self.assertIn("algorithm = nvls", default)
        self.assertNotIn("algorithm = nvls", slow)
        self.assertGreater(
            comm.simulate(self.tmp / "default.mlir",
                          cost_params=params)["step_time_us"],
            comm.simulate(self.tmp / "slow.mlir",
                          cost_params=params)["step_time_us"])

    def test_strategies(self):
        times = {}
        for strategy in (None,) + comm.STRATEGIES:
            out = self.tmp / ("%s.mlir" % strategy)
            comm.plan(GRAD_STEP, strategy=strategy, out=out)
            times[strategy] = comm.simulate(out)["step_time_us"]
        self.assertEqual(times[None], times["comm"])
        for strategy in comm.STRATEGIES:
            self.assertGreater(times[strategy], 0, strategy)
        self.assertLessEqual(times["comm"], times["naive"])
        with self.assertRaises(ValueError):
            comm.plan(GRAD_STEP, strategy="megatron", out=self.tmp / "x.mlir")

    def test_default_out_beside_input(self):
        src = self.tmp / "step.mlir"
        src.write_text(GRAD_STEP.read_text())
        self.assertEqual(comm.plan(src), self.tmp / "step.planned.mlir")
        self.assertEqual(comm.plan(src, strategy="ddp"),
                         self.tmp / "step.planned.ddp.mlir")
        self.assertTrue((self.tmp / "step.planned.ddp.mlir").is_file())

    def test_explain(self):
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            comm.plan(GRAD_STEP, out=self.tmp / "p.mlir", explain=True)
        text = err.getvalue()
        self.assertIn("%s:14:18: remark: comm-fuse: 12 collectives" % GRAD_STEP, text)
        self.assertIn("comm-select-algorithm", text)

    def test_topology_file_with_spaces(self):
        folder = self.tmp / "my topologies"
        folder.mkdir()
        yaml = folder / "dgx h100.yaml"
        yaml.write_text(comm.run_tool(
            "comm-topo", ["export", "--topology", "dgx-h100"]).stdout)
        out = comm.plan(GRAD_STEP, topology=yaml, out=self.tmp / "p.mlir")
        by_file = comm.simulate(out, topology=yaml)["step_time_us"]
        comm.plan(GRAD_STEP, out=self.tmp / "q.mlir")
        by_preset = comm.simulate(self.tmp / "q.mlir")["step_time_us"]
        self.assertAlmostEqual(by_file, by_preset, delta=1e-6 * by_preset)

    def test_relative_topology_file_is_made_absolute(self):
        # The planned module names the file it was planned for by its
        # absolute path: one named 'my topo.yaml' could not be found when
        # the planned module was simulated from another folder.
        export_topology(self.tmp / "my topo.yaml")
        (self.tmp / "out").mkdir()
        with cwd(self.tmp):
            planned = comm.plan(GRAD_STEP, topology="my topo.yaml",
                                out="out/p.mlir")
            cluster = comm.plan(GRAD_STEP, topology="my topo.yaml:2",
                                out="out/c.mlir")
            preset = comm.plan(GRAD_STEP, topology="dgx-h100x4",
                               out="out/x4.mlir")
            here = comm.simulate("out/p.mlir", topology="my topo.yaml")
        self.assertIn('comm.topology = "%s"' % (self.tmp / "my topo.yaml"),
                      (self.tmp / planned).read_text())
        self.assertIn('comm.topology = "%s:2"' % (self.tmp / "my topo.yaml"),
                      (self.tmp / cluster).read_text())
        self.assertIn('comm.topology = "dgx-h100x4"',
                      (self.tmp / preset).read_text())
        with cwd(REPO):  # another folder
            there = comm.simulate(self.tmp / planned)
            self.assertEqual(comm.simulate(self.tmp / cluster)["ranks"], 4)
        self.assertEqual(there["step_time_us"], here["step_time_us"])

    def test_topology_in_a_comment_is_no_attribute(self):
        # A comment that mentions comm.topology left the module without a
        # topology: the default was not passed and comm-opt found none.
        src = self.tmp / "commented.mlir"
        src.write_text('// TODO: set comm.topology = "pcie-4gpu" later\n' +
                       GRAD_STEP.read_text().replace(
                           'comm.topology = "dgx-h100", ', ""))
        self.assertNotIn("comm.topology =", src.read_text().split("\n", 1)[1])
        planned = comm.plan(src, out=self.tmp / "p.mlir")
        self.assertIn('comm.topology = "%s"' % comm.DEFAULT_TOPOLOGY,
                      planned.read_text())
        self.assertEqual(comm.simulate(src)["ranks"], 4)

    def test_module_topology_forms(self):
        from comm._api import _module_topology
        generic = comm.run_tool("comm-opt", ["--mlir-print-op-generic",
                                             GRAD_STEP]).stdout
        self.assertIn('"builtin.module"()', generic)
        cases = [
            (GRAD_STEP.read_text(), "dgx-h100"),
            (generic, "dgx-h100"),
            (generic.replace('comm.topology = "dgx-h100", ', ""), None),
            ('module @m attributes {comm.world_size = 4 : i64,\n'
             '    comm.topology = "a\\22b c.yaml"} {\n}', 'a"b c.yaml'),
            ('module attributes {x = "// comm.topology = \\22y\\22", '
             'comm.topology = "pcie-4gpu"} {\n}', "pcie-4gpu"),
            ('// module attributes {comm.topology = "pcie-4gpu"} {\n'
             'module attributes {comm.world_size = 4 : i64} {\n}', None),
            ('module {\n  func.func @f() attributes {comm.topology = "x"} '
             '{\n    return\n  }\n}', None),
            ('module attributes {x = {comm.topology = "x"}} {\n}', None),
            ('gpu.module @g attributes {comm.topology = "x"} {\n}', None),
            ('"builtin.module"() <{sym_name = "m"}> ({\n'
             '  "func.func"() ({\n  }) {comm.topology = "x"} : () -> ()\n'
             '}) {comm.topology = "pcie-4gpu"} : () -> ()\n', "pcie-4gpu"),
        ]
        for text, want in cases:
            self.assertEqual(_module_topology(text), want, text)

    def test_topology_file_with_both_quotes(self):
        # MLIR's pass options cannot quote it: {...} put the braces into
        # the name. plan says so; simulate passes it as an argument.
        yaml = export_topology(self.tmp / "it's \"h100\".yaml")
        with self.assertRaisesRegex(ValueError, "holds both ' and \""):
            comm.plan(GRAD_STEP, topology=yaml, out=self.tmp / "p.mlir")
        self.assertFalse((self.tmp / "p.mlir").exists())
        self.assertEqual(comm.simulate(GRAD_STEP, topology=yaml)["ranks"], 4)
        for name in ("it's.yaml", 'a "b".yaml', "a{b}.yaml", "a=b,c.yaml"):
            yaml = export_topology(self.tmp / name)
            planned = comm.plan(GRAD_STEP, topology=yaml,
                                out=self.tmp / "p.mlir")
            self.assertEqual(comm.simulate(planned)["ranks"], 4, name)


class ErrorTest(TempDirTest):
    def test_syntax_error_is_located(self):
        bad = self.tmp / "bad.mlir"
        bad.write_text(BAD)
        for call in (lambda: comm.plan(bad, out=self.tmp / "p.mlir"),
                     lambda: comm.simulate(bad)):
            with self.assertRaises(comm.CommError) as cm:
                call()
            e = cm.exception
            self.assertIn("%s:2:44: error: expected ':'" % bad, str(e))
            self.assertEqual(e.returncode, 1)
            self.assertEqual(e.errors[0].file, str(bad))
            self.assertEqual((e.errors[0].line, e.errors[0].column), (2, 44))
            self.assertEqual(e.errors[0].message, "expected ':'")

    def test_unknown_topology(self):
        with self.assertRaises(comm.CommError) as cm:
            comm.simulate(GRAD_STEP, topology="dgx-z900")
        self.assertIn("%s:9:1: error: cannot load topology 'dgx-z900'" % GRAD_STEP,
                      str(cm.exception))

    def test_import_error(self):
        # A file that is not MLIR fails with comm-opt's located message.
        bad = self.tmp / "bad.stablehlo.mlir"
        bad.write_text('"func.func"() <{sym_name = "main"\n')
        with self.assertRaises(comm.CommError) as cm:
            comm.import_stablehlo(bad, self.tmp / "out.mlir")
        self.assertIn("%s:" % bad, str(cm.exception))

    def test_import_empty_file(self):
        # An empty file imported to a program of nothing, which failed only
        # when simulated.
        empty = self.tmp / "empty.stablehlo.mlir"
        empty.write_text("")
        with self.assertRaises(comm.CommError) as cm:
            comm.import_stablehlo(empty, self.tmp / "out.mlir")
        self.assertIn("%s:1:1: error: holds no function to import" % empty,
                      str(cm.exception))

    def test_errors_without_a_location(self):
        # "comm-sim: error: ..." and LLVM's "comm-opt: for the --backend
        # option: ..." are errors too (e.errors was empty).
        missing = self.tmp / "nope.mlir"
        with self.assertRaises(comm.CommError) as cm:
            comm.simulate(missing)
        error = cm.exception.errors[0]
        self.assertEqual((error.file, error.line, error.column),
                         (None, None, None))
        self.assertEqual(error.message, "cannot open input file '%s': "
                         "No such file or directory" % missing)
        self.assertEqual(str(error), "error: " + error.message)
        with self.assertRaises(comm.CommError) as cm:
            comm.plan(GRAD_STEP, backend="gloo", out=self.tmp / "p.mlir")
        self.assertIn("'gloo' is not a value of --backend",
                      cm.exception.errors[0].message)
        self.assertEqual(comm._tools.parse_diagnostics(
            "error: bare\ntopo.yaml: warning: w\nf.mlir:3:4: note: n\n"),
            [comm.Diagnostic(None, None, None, "error", "bare"),
             comm.Diagnostic("topo.yaml", None, None, "warning", "w"),
             comm.Diagnostic("f.mlir", 3, 4, "note", "n")])

    def test_pretty_stablehlo_says_generic_form(self):
        pretty = self.tmp / "step.stablehlo.mlir"
        pretty.write_text(PRETTY_STABLEHLO)
        with self.assertRaises(comm.CommError) as cm:
            comm.import_stablehlo(pretty, self.tmp / "out.mlir")
        text = str(cm.exception)
        self.assertIn("%s:2:3: error: Dialect `sdy' not found for custom op"
                      % pretty, text)  # the tool's stderr is kept
        self.assertIn("generic op form", text)
        self.assertIn("comm.stablehlo_text(lowered)", text)
        self.assertEqual(cm.exception.errors[0].line, 2)

    def test_plan_of_stablehlo_says_import_first(self):
        shlo = FIXTURES / "dp_step.shardy.mlir"
        for call in (lambda: comm.plan(shlo, out=self.tmp / "p.mlir"),
                     lambda: comm.simulate(shlo)):
            with self.assertRaises(comm.CommError) as cm:
                call()
            text = str(cm.exception)
            self.assertIn("-allow-unregistered-dialect", text)  # MLIR's
            self.assertIn("import it first (comm.import_stablehlo(path)", text)
        pretty = self.tmp / "pretty.mlir"
        pretty.write_text(PRETTY_STABLEHLO)
        with self.assertRaises(comm.CommError) as cm:
            comm.plan(pretty, out=self.tmp / "p.mlir")
        self.assertIn("import it first", str(cm.exception))
        self.assertIn("generic op form", str(cm.exception))
        # Other programs' errors get no hint.
        bad = self.tmp / "bad.mlir"
        bad.write_text(BAD)
        with self.assertRaises(comm.CommError) as cm:
            comm.plan(bad, out=self.tmp / "p.mlir")
        self.assertNotIn("import it first", str(cm.exception))


class CliTest(TempDirTest):
    def run_cli(self, *args):
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            [str(HERE.parent)] + [p for p in [env.get("PYTHONPATH")] if p])
        return subprocess.run([sys.executable, "-m", "comm"] + list(args),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              universal_newlines=True, env=env)

    def test_plan_and_simulate(self):
        out = self.tmp / "p.mlir"
        r = self.run_cli("plan", str(GRAD_STEP), "--topology", "dgx-h100",
                         "--strategy", "ddp", "-o", str(out))
        self.assertEqual(r.returncode, 0, r.stderr)
        r = self.run_cli("simulate", str(out), "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertGreater(json.loads(r.stdout)["step_time_us"], 0)
        r = self.run_cli("simulate", str(out))
        self.assertRegex(r.stdout, r"step time\s+[0-9.]+ us")
        r = self.run_cli("plan", str(GRAD_STEP))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("comm.world_size = 4", r.stdout)

    def test_error(self):
        bad = self.tmp / "bad.mlir"
        bad.write_text(BAD)
        r = self.run_cli("plan", str(bad))
        self.assertEqual(r.returncode, 1)
        self.assertIn("%s:2:44: error: expected ':'" % bad, r.stderr)

    def test_cost_params(self):
        params = REPO / "test" / "Pipelines" / "Inputs" / "slow-nvls.yaml"
        prog = REPO / "test" / "Pipelines" / "cost-params.mlir"
        out = self.tmp / "slow.mlir"
        r = self.run_cli("plan", str(prog), "--cost-params", str(params),
                         "-o", str(out))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("algorithm = nvls", out.read_text())
        trace = self.tmp / "t.json"
        r = self.run_cli("simulate", str(out), "--cost-params", str(params),
                         "--json", "--trace", str(trace))
        self.assertEqual(r.returncode, 0, r.stderr)
        report = json.loads(r.stdout)
        self.assertEqual(report["step_time_us"], comm.simulate(
            out, cost_params=params)["step_time_us"])
        self.assertEqual(report["trace"], str(trace))

    def test_import_of_pretty_stablehlo(self):
        pretty = self.tmp / "pretty.mlir"
        pretty.write_text(PRETTY_STABLEHLO)
        r = self.run_cli("import", str(pretty))
        self.assertEqual(r.returncode, 1)
        self.assertIn("Dialect `sdy' not found", r.stderr)
        self.assertIn("generic op form", r.stderr)

    def test_topology_with_both_quotes(self):
        yaml = export_topology(self.tmp / "it's \"h100\".yaml")
        r = self.run_cli("plan", str(GRAD_STEP), "--topology", str(yaml))
        self.assertEqual(r.returncode, 1)
        self.assertIn("error: topology", r.stderr)
        self.assertIn("holds both ' and \"", r.stderr)
        self.assertNotIn("Traceback", r.stderr)


class ImportTest(TempDirTest):
    def test_import_fixtures(self):
        # jax's two exports of the same data-parallel step import alike.
        times = {}
        for form in ("gspmd", "shardy"):
            src = FIXTURES / ("dp_step.%s.mlir" % form)
            out = comm.import_stablehlo(src, self.tmp / ("%s.comm.mlir" % form))
            text = out.read_text()
            self.assertIn("comm.world_size = 8", text)
            self.assertIn("comm.all_reduce", text)
            as_is = comm.simulate(out)
            self.assertEqual(as_is["ranks"], 8)
            planned = comm.simulate(
                comm.plan(out, out=self.tmp / ("%s.planned.mlir" % form)))
            self.assertLessEqual(planned["step_time_us"],
                                 as_is["step_time_us"] * 1.0001)
            times[form] = (as_is["step_time_us"], planned["step_time_us"])
        self.assertEqual(times["gspmd"], times["shardy"])

    def test_default_out(self):
        src = self.tmp / "dp.stablehlo.mlir"
        src.write_text((FIXTURES / "dp_step_4.gspmd.mlir").read_text())
        self.assertEqual(comm.import_stablehlo(src), self.tmp / "dp.comm.mlir")
        self.assertIn("comm.world_size = 4", (self.tmp / "dp.comm.mlir").read_text())


class FromJaxNameTest(unittest.TestCase):
    def test_name_with_a_slash_is_refused(self):
        # The name is the stem of the files from_jax writes: checked before
        # jax is imported or anything is written.
        for name in ("my step/v1", "..", "a\\b"):
            with self.assertRaisesRegex(ValueError, "is not a file name"):
                comm.from_jax(lambda x: x, 1.0, name=name,
                              workdir="/nonexistent/never-created")
        self.assertFalse(Path("/nonexistent/never-created").exists())

    def test_workdir_that_is_a_file_is_refused(self):
        with tempfile.NamedTemporaryFile() as f:
            with self.assertRaisesRegex(ValueError, "is a file, not a folder"):
                comm.from_jax(lambda x: x, 1.0, workdir=f.name)

    def test_arguments_are_checked_first(self):
        # An unknown strategy raised only after lowering, importing and
        # simulating, leaving the files behind; nothing is done now.
        with tempfile.TemporaryDirectory() as tmp:
            workdir = Path(tmp) / "work"
            with self.assertRaisesRegex(ValueError, "unknown strategy 'DDP'"):
                comm.from_jax(lambda x: x, 1.0, workdir=workdir,
                              strategies=("ddp", "DDP"))
            with self.assertRaisesRegex(ValueError, "unknown strategy"):
                comm.from_jax(lambda x: x, 1.0, workdir=workdir,
                              strategies=(s for s in ["fsdp"]))
            with self.assertRaisesRegex(TypeError, "topology must be a str"):
                comm.from_jax(lambda x: x, 1.0, workdir=workdir, topology=8)
            yaml = Path(tmp) / "it's \"h100\".yaml"
            yaml.write_text("")
            with self.assertRaisesRegex(ValueError, "holds both ' and"):
                comm.from_jax(lambda x: x, 1.0, workdir=workdir,
                              topology=yaml)
            self.assertFalse(workdir.exists())

    def test_docstring_names_the_files_it_overwrites(self):
        doc = " ".join(comm.from_jax.__doc__.split())
        for name in ("<name>.stablehlo.mlir", "<name>.comm.mlir",
                     "<name>.planned.mlir", "<name>.trace.json",
                     "<name>.planned.<strategy>.mlir", "overwrites"):
            self.assertIn(name, doc)


@unittest.skipUnless(importlib.util.find_spec("jax") is not None, "jax is not installed")
class FromJaxTest(TempDirTest):
    def test_data_parallel_psum(self):
        import jax
        import jax.numpy as jnp
        import numpy as np
        from jax.sharding import Mesh, PartitionSpec as P

        if len(jax.devices()) < 8:
            self.skipTest("needs 8 devices (XLA_FLAGS=%s)" % _FLAG)
        mesh = Mesh(np.array(jax.devices()[:8]), ("data",))
        shard_map = getattr(jax, "shard_map", None)
        if shard_map is None:
            from jax.experimental.shard_map import shard_map

        def grads(w, x):
            g = jnp.tanh(x @ w).T @ x                 # per-device gradient
            return jax.lax.psum(g, "data") / 8, jax.lax.psum(jnp.sum(x), "data")

        step = shard_map(grads, mesh=mesh, in_specs=(P(), P("data")),
                         out_specs=(P(), P()))
        w = jnp.zeros((512, 512), jnp.float32)
        x = jnp.ones((64, 512), jnp.float32)
        res = comm.from_jax(step, w, x, mesh=mesh, workdir=self.tmp, name="dp")
        self.assertEqual(res.stablehlo, self.tmp / "dp.stablehlo.mlir")
        self.assertIn('"stablehlo.all_reduce"', res.stablehlo.read_text())
        self.assertIn("comm.world_size = 8", res.imported.read_text())
        self.assertEqual(res.planned, self.tmp / "dp.planned.mlir")
        self.assertEqual(set(res.step_time_us),
                         {"as-is", "comm", "naive", "ddp", "horovod", "xla"})
        for key, t in res.step_time_us.items():
            self.assertGreater(t, 0, key)
        self.assertLessEqual(res.step_time_us["comm"],
                             res.step_time_us["as-is"] * 1.0001)
        self.assertTrue(json.loads(res.trace.read_text()))
        text = str(res)
        self.assertIn("dp on dgx-h100 (8 ranks)", text)
        for key in res.step_time_us:
            self.assertIn(key, text)

    def psum_step(self):
        import jax
        import jax.numpy as jnp
        import numpy as np
        from jax.sharding import Mesh, PartitionSpec as P

        if len(jax.devices()) < 8:
            self.skipTest("needs 8 devices (XLA_FLAGS=%s)" % _FLAG)
        mesh = Mesh(np.array(jax.devices()[:8]), ("d",))
        shard_map = getattr(jax, "shard_map", None)
        if shard_map is None:
            from jax.experimental.shard_map import shard_map

        def step(x):
            return jax.lax.psum(x, "d")

        return (shard_map(step, mesh=mesh, in_specs=P("d"), out_specs=P("d")),
                jnp.ones((64, 128), jnp.float32), mesh)

    def test_topology_none_names_the_one_used(self):
        # topology=None: the module's comm.topology, else the default, which
        # the result names (it said "step on None").
        step, x, mesh = self.psum_step()
        res = comm.from_jax(step, x, mesh=mesh, topology=None, strategies=(),
                            workdir=self.tmp)
        self.assertEqual(res.topology, comm.DEFAULT_TOPOLOGY)
        self.assertIn("step on %s (8 ranks)" % comm.DEFAULT_TOPOLOGY, str(res))
        self.assertIn("on %s:" % comm.DEFAULT_TOPOLOGY, repr(res))

    def test_workdir_files_are_overwritten(self):
        # As documented: its own files are replaced, others left alone.
        step, x, mesh = self.psum_step()
        (self.tmp / "step.comm.mlir").write_text("hand-edited\n")
        (self.tmp / "notes.txt").write_text("mine\n")
        res = comm.from_jax(step, x, mesh=mesh, strategies=("ddp",),
                            workdir=self.tmp)
        self.assertIn("comm.world_size = 8", res.imported.read_text())
        self.assertEqual((self.tmp / "notes.txt").read_text(), "mine\n")
        self.assertEqual(sorted(p.name for p in self.tmp.iterdir()),
                         ["notes.txt", "step.comm.mlir",
                          "step.planned.ddp.mlir", "step.stablehlo.mlir"])

    def test_jit_shardings_raise(self):
        # Partitioned by jit shardings, not shard_map: XLA's partitioner
        # would insert the collectives, and the import says so.
        import jax
        import jax.numpy as jnp
        import numpy as np
        from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

        if len(jax.devices()) < 8:
            self.skipTest("needs 8 devices (XLA_FLAGS=%s)" % _FLAG)
        mesh = Mesh(np.array(jax.devices()[:8]), ("data",))

        def loss(w, x):
            return jnp.mean(jnp.tanh(x @ w) ** 2)

        step = jax.jit(jax.grad(loss),
                       in_shardings=(NamedSharding(mesh, P()),
                                     NamedSharding(mesh, P("data"))),
                       out_shardings=NamedSharding(mesh, P()))
        with self.assertRaises(comm.CommError) as caught:
            comm.from_jax(step, jnp.zeros((64, 64)), jnp.ones((32, 64)),
                          mesh=mesh, workdir=self.tmp, name="auto")
        self.assertIn("this program is not partitioned yet", str(caught.exception))
        self.assertIn("jax.shard_map", str(caught.exception))


if __name__ == "__main__":
    unittest.main(verbosity=2)
