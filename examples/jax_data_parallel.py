"""A data-parallel training step from JAX, planned and simulated by comm.

Runs on the CPU (8 host "devices"); nothing runs on them: comm imports the
step's StableHLO, plans it for a DGX H100 with its own planner and the
naive, DDP, Horovod and XLA strategies, and simulates each plan.

    python3 -m venv /tmp/jax && /tmp/jax/bin/pip install jax -e ./python
    /tmp/jax/bin/python examples/jax_data_parallel.py [WORKDIR]

from a checkout where utils/demo.sh or utils/check.sh built comm (an
editable install finds build/bin by itself; otherwise set COMM_BIN_DIR).
See docs/Python.md.
"""
import os
import sys
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"  # before jax

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, PartitionSpec as P

import comm

mesh = Mesh(np.array(jax.devices()), ("data",))     # 8 CPU "devices"

def loss(params, x, y):
    w1, w2 = params
    return jnp.mean((jnp.tanh(x @ w1) @ w2 - y) ** 2)

def train_step(params, x, y):
    grads = jax.grad(loss)(params, x, y)            # this device's gradients
    grads = jax.lax.psum(grads, "data")             # all-reduced over 'data'
    return jax.tree.map(lambda p, g: p - 0.01 * g / 8, params, grads)

step = jax.shard_map(train_step, mesh=mesh,
                     in_specs=(P(), P("data"), P("data")), out_specs=P(),
                     check_vma=False)

params = (jnp.zeros((1024, 4096), jnp.float32), jnp.zeros((4096, 1024), jnp.float32))
x = jnp.ones((256, 1024), jnp.float32)              # 32 rows per device
y = jnp.ones((256, 1024), jnp.float32)

result = comm.from_jax(step, params, x, y, mesh=mesh, topology="dgx-h100",
                       workdir=sys.argv[1] if len(sys.argv) > 1 else None)
print(result)
print("comm's plan vs as-is: %.2fx" % result.speedup("comm"))
