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
        self.assertEqual(planned["trace"], str(trace))
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
