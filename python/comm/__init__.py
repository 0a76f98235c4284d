"""comm from Python: import JAX/StableHLO programs into comm, plan and
simulate them.

Drives comm's command-line tools (comm-opt, comm-sim) by subprocess. They
are found through $COMM_BIN_DIR, else on PATH, else in build/bin of the
checkout this package was loaded from. See docs/Python.md.

    import comm
    planned = comm.plan("examples/grad_step.mlir", topology="dgx-h100",
                        out="/tmp/grad_step.planned.mlir")
    print(comm.simulate(planned)["step_time_us"])
"""

from ._tools import CommError, Diagnostic, find_tool, has_pass, run_tool
from ._api import (DEFAULT_TOPOLOGY, STRATEGIES, import_stablehlo, plan,
                   simulate)
from ._jax import Result, from_jax, stablehlo_text

__version__ = "0.1.0"

# Tracebacks and reprs name them as comm.X.
for _cls in (CommError, Diagnostic, Result):
    _cls.__module__ = "comm"
del _cls

__all__ = ["CommError", "Diagnostic", "DEFAULT_TOPOLOGY", "STRATEGIES",
           "Result", "find_tool", "from_jax", "has_pass", "import_stablehlo",
           "plan", "run_tool", "simulate", "stablehlo_text"]
