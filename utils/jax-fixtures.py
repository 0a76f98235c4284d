#!/usr/bin/env python3
"""Write real JAX programs' StableHLO as fixtures for the StableHLO importer.

Usage:
  python3 -m venv /work/jax-venv && /work/jax-venv/bin/pip install jax
  /work/jax-venv/bin/python utils/jax-fixtures.py [--out DIR] [--verify]
                                                  [--only NAME ...]

Runs on the CPU: before importing jax it puts
XLA_FLAGS=--xla_force_host_platform_device_count=8 in its environment, so
that the 8 meshes' devices are 8 host "devices". No GPU is needed.

Each program is a jax.shard_map over a jax.sharding.Mesh, so its
collectives are explicit in the lowered StableHLO:

  dp_step        data-parallel MLP training step, grads pmean'd over 'data'
                 (8-device 1-D mesh)
  dp_step_4      the same step on a 4-device 1-D mesh (for 4 MPI ranks)
  tp_mlp         Megatron MLP on a 2x4 ('data','model') mesh: column-parallel
                 matmul, gelu, row-parallel matmul, psum over 'model',
                 grads pmean'd over 'data'
  fsdp_step      FSDP step: params sharded over 8 devices, all_gather
                 (tiled) before use, grads psum_scatter'ed (tiled)
  moe_dispatch   top-1 MoE layer: all_to_all tokens -> experts, expert FFN,
                 all_to_all back (8-device 'expert' axis)
  ppermute_ring  halo exchange: ppermute to both ring neighbours
  ring_reduce_loop  ring all-reduce written as a fori_loop of ppermutes
                 (a stablehlo.while around a collective_permute)
  collective_broadcast  jax.lax.pbroadcast from device 3; jax lowers it only
                 for GPUs, so this one is lowered with
                 lowering_platforms=('cuda',) (all others for the CPU)

Each is lowered with jax.jit(f).lower(...) from arguments that carry their
NamedSharding, and written in MLIR's generic op form without locations, once
per partitioner:

  DIR/<name>.gspmd.mlir    jax_use_shardy_partitioner=False: the shard_map
                           body is a private func.call'ed function between
                           @Sharding / @SPMDFullToShardShape and
                           @SPMDShardToFullShape custom_calls
  DIR/<name>.shardy.mlir   jax_use_shardy_partitioner=True: the body is an
                           sdy.manual_computation region, with an sdy.mesh

Each partitioner's export runs in its own subprocess, so each lowers from a
fresh jax configuration. --out defaults to
test/Conversion/StableHLOToComm/Inputs (relative to the repository root).
--verify also runs every CPU-lowered program on the 8 host devices and
checks it against an unsharded reference computation. DIR/README.md
describes the fixtures and is rewritten each run.
"""
import argparse
import os
import subprocess
import sys

_FLAG = "--xla_force_host_platform_device_count=8"
if _FLAG not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " " + _FLAG).strip()
os.environ.setdefault("JAX_PLATFORMS", "cpu")

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_OUT = os.path.join(REPO, "test", "Conversion", "StableHLOToComm", "Inputs")
FORMS = ("gspmd", "shardy")
LR = 0.1


# --------------------------------------------------------------------------
# The programs. Each builder returns a dict with
#   fn:       the jitted-ready function (a shard_map, possibly wrapped)
#   args:     concrete example arguments (numpy), sharded as in `specs`
#   specs:    PartitionSpec pytree matching args (used for NamedSharding)
#   mesh:     the Mesh
#   ref:      optional unsharded reference function for --verify
#   platform: optional lowering platform ('cuda' for collective_broadcast)
#   doc:      README text
# --------------------------------------------------------------------------

def _programs():
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.sharding import Mesh, PartitionSpec as P

    shard_map = getattr(jax, "shard_map", None)
    if shard_map is None:  # older jax
        from jax.experimental.shard_map import shard_map

    devices = jax.devices()
    if len(devices) < 8:
        sys.exit("error: need 8 devices, got %d (XLA_FLAGS=%r)" %
                 (len(devices), os.environ.get("XLA_FLAGS")))

    def rng(seed):
        return np.random.default_rng(seed)

    def normal(r, shape, scale=1.0):
        return (r.standard_normal(shape) * scale).astype(np.float32)

    def to_varying(tree, axes):
        """Mark replicated values as per-device so that jax.grad yields local
        (unreduced) gradients; the reduction is then written explicitly."""
        axes = (axes,) if isinstance(axes, str) else tuple(axes)

        def one(x):
            aval = jax.typeof(x)
            mat = getattr(aval, "mat", None)
            vma = mat.varying if mat is not None else getattr(aval, "vma", ())
            missing = tuple(a for a in axes if a not in vma)
            return jax.lax.pcast(x, missing, to="varying") if missing else x
        return jax.tree_util.tree_map(one, tree)

    def sgd(params, grads):
        return jax.tree_util.tree_map(lambda p, g: p - LR * g, params, grads)

    # ---- MLP pieces shared by dp_step / fsdp_step -------------------------
    def mlp(params, x):
        h = x
        for i, (w, b) in enumerate(params):
            h = h @ w + b
            if i + 1 < len(params):
                h = jax.nn.relu(h)
        return h

    def xent(params, x, labels):
        logits = mlp(params, x)
        logp = jax.nn.log_softmax(logits)
        onehot = jax.nn.one_hot(labels, logits.shape[-1], dtype=logits.dtype)
        return -jnp.mean(jnp.sum(onehot * logp, axis=-1))

    def mlp_params(r, dims):
        return tuple((normal(r, (a, b), (2.0 / a) ** 0.5),
                      normal(r, (b,), 0.01)) for a, b in zip(dims, dims[1:]))

    progs = {}

    # ---- 1. data parallel --------------------------------------------------
    def dp(name, ndev, seed):
        mesh = Mesh(np.array(devices[:ndev]), ("data",))
        dims = (256, 512, 512, 16)
        per_dev = 8
        r = rng(seed)
        params = mlp_params(r, dims)
        x = normal(r, (ndev * per_dev, dims[0]))
        y = r.integers(0, dims[-1], (ndev * per_dev,)).astype(np.int32)
        pspec = tuple((P(), P()) for _ in params)

        def body(params, x, y):
            local = to_varying(params, "data")
            loss, grads = jax.value_and_grad(xent)(local, x, y)
            grads = jax.lax.pmean(grads, "data")
            return sgd(params, grads), jax.lax.pmean(loss, "data")

        def dp_step(params, x, y):
            return shard_map(body, mesh=mesh, in_specs=(pspec, P("data"), P("data")),
                             out_specs=(pspec, P()))(params, x, y)
        dp_step.__name__ = name

        def ref(params, x, y):
            loss, grads = jax.value_and_grad(xent)(params, x, y)
            return sgd(params, grads), loss

        nbytes = sum(w.nbytes + b.nbytes for w, b in params) + x.nbytes + y.nbytes
        progs[name] = dict(
            fn=dp_step, args=(params, x, y), specs=(pspec, P("data"), P("data")),
            mesh=mesh, ref=ref,
            doc=("Data-parallel SGD step of a %s ReLU MLP (f32) with softmax "
                 "cross-entropy on int32 labels. Mesh: 1-D, %d devices, axis "
                 "'data'. Params replicated (P()), batch %d x %d sharded over "
                 "'data' (%d rows per device). jax.grad on each device, then "
                 "pmean of every gradient and of the loss over 'data' "
                 "(all_reduce add + divide), SGD lr %g. Returns (new params, "
                 "loss). Inputs total %.2f MB."
                 % ("-".join(map(str, dims)), ndev, ndev * per_dev, dims[0],
                    per_dev, LR, nbytes / 1e6)))

    dp("dp_step", 8, 1)
    dp("dp_step_4", 4, 2)

    # ---- 2. tensor parallel (Megatron MLP) ---------------------------------
    def build_tp():
        mesh = Mesh(np.array(devices[:8]).reshape(2, 4), ("data", "model"))
        B, D, F = 32, 256, 1024
        r = rng(3)
        params = (normal(r, (D, F), D ** -0.5), normal(r, (F,), 0.01),
                  normal(r, (F, D), F ** -0.5), normal(r, (D,), 0.01))
        x = normal(r, (B, D))
        t = normal(r, (B, D))
        pspec = (P(None, "model"), P("model"), P("model", None), P())

        def local_loss(params, x, t):
            w1, b1, w2, b2 = params
            h = jax.nn.gelu(x @ w1 + b1)                 # column-parallel
            y = jax.lax.psum(h @ w2, "model") + b2       # row-parallel
            return jnp.mean((y - t) ** 2)

        def body(params, x, t):
            local = to_varying(params, "data")
            loss, grads = jax.value_and_grad(local_loss)(local, x, t)
            grads = jax.lax.pmean(grads, "data")
            return sgd(params, grads), jax.lax.pmean(loss, "data")

        def tp_mlp(params, x, t):
            return shard_map(body, mesh=mesh,
                             in_specs=(pspec, P("data", None), P("data", None)),
                             out_specs=(pspec, P()))(params, x, t)

        def ref(params, x, t):
            def loss(params):
                w1, b1, w2, b2 = params
                y = jax.nn.gelu(x @ w1 + b1) @ w2 + b2
                return jnp.mean((y - t) ** 2)
            l, g = jax.value_and_grad(loss)(params)
            return sgd(params, g), l

        progs["tp_mlp"] = dict(
            fn=tp_mlp, args=(params, x, t),
            specs=(pspec, P("data", None), P("data", None)), mesh=mesh, ref=ref,
            doc=("Megatron-style tensor-parallel MLP training step. Mesh: 2x4, "
                 "axes ('data','model'). W1 %dx%d sharded P(None,'model') "
                 "(column-parallel, %dx%d per device), b1 P('model'), W2 %dx%d "
                 "P('model',None) (row-parallel), b2 P(). x, target %dx%d "
                 "sharded P('data',None). Forward: gelu(x@W1+b1)@W2, psum over "
                 "'model' (all_reduce in groups of 4: [[0,1,2,3],[4,5,6,7]]), "
                 "+b2, MSE loss. Gradients and loss pmean'd over 'data' "
                 "(all_reduce in groups of 2: [[0,4],[1,5],[2,6],[3,7]]), SGD "
                 "lr %g. Returns (new params, loss)."
                 % (D, F, D, F // 4, F, D, B, D, LR)))

    build_tp()

    # ---- 3. FSDP -----------------------------------------------------------
    def build_fsdp():
        n = 8
        mesh = Mesh(np.array(devices[:n]), ("fsdp",))
        dims = (256, 512, 512, 256)
        per_dev = 8
        r = rng(4)
        params = mlp_params(r, dims)
        x = normal(r, (n * per_dev, dims[0]))
        t = normal(r, (n * per_dev, dims[-1]))
        pspec = tuple((P("fsdp", None), P("fsdp")) for _ in params)

        def mse(params, x, t):
            return jnp.mean((mlp(params, x) - t) ** 2)

        def body(shards, x, t):
            full = jax.tree_util.tree_map(
                lambda p: jax.lax.all_gather(p, "fsdp", axis=0, tiled=True), shards)
            full = to_varying(full, "fsdp")  # all_gather's result already is
            loss, grads = jax.value_and_grad(mse)(full, x, t)
            gshards = jax.tree_util.tree_map(
                lambda g: jax.lax.psum_scatter(g, "fsdp", scatter_dimension=0,
                                               tiled=True) / n, grads)
            return sgd(shards, gshards), jax.lax.pmean(loss, "fsdp")

        def fsdp_step(params, x, t):
            return shard_map(body, mesh=mesh,
                             in_specs=(pspec, P("fsdp"), P("fsdp")),
                             out_specs=(pspec, P()))(params, x, t)

        def ref(params, x, t):
            l, g = jax.value_and_grad(mse)(params, x, t)
            return sgd(params, g), l

        progs["fsdp_step"] = dict(
            fn=fsdp_step, args=(params, x, t), specs=(pspec, P("fsdp"), P("fsdp")),
            mesh=mesh, ref=ref,
            doc=("FSDP (ZeRO-3 style) training step of a %s ReLU MLP with MSE "
                 "loss. Mesh: 1-D, 8 devices, axis 'fsdp'. Every weight and "
                 "bias sharded on dim 0 (P('fsdp',None) / P('fsdp')), batch "
                 "%d rows sharded P('fsdp'). Each parameter is all_gather'ed "
                 "(axis 0, tiled) before use, jax.grad runs on the gathered "
                 "parameters, and each gradient is psum_scatter'ed (dim 0, "
                 "tiled -> stablehlo.reduce_scatter) and divided by 8; SGD on "
                 "the local shards; loss pmean'd. Returns (new param shards, "
                 "loss)." % ("-".join(map(str, dims)), n * per_dev)))

    build_fsdp()

    # ---- 4. MoE dispatch ---------------------------------------------------
    def build_moe():
        E, T, D, F, C = 8, 64, 128, 256, 16
        mesh = Mesh(np.array(devices[:E]), ("expert",))
        r = rng(5)
        wg = normal(r, (D, E), D ** -0.5)
        w_in = normal(r, (E, D, F), D ** -0.5)
        w_out = normal(r, (E, F, D), F ** -0.5)
        x = normal(r, (E * T, D))

        def route(x, wg):
            probs = jax.nn.softmax(x @ wg, axis=-1)                 # [T,E]
            idx = jnp.argmax(probs, axis=-1)                        # [T]
            gate = jnp.max(probs, axis=-1)                          # [T]
            onehot = jax.nn.one_hot(idx, E, dtype=jnp.int32)        # [T,E]
            pos = jnp.sum((jnp.cumsum(onehot, axis=0) - 1) * onehot, axis=-1)
            keep = (pos < C).astype(x.dtype)
            dispatch = (onehot.astype(x.dtype)[:, :, None] *
                        jax.nn.one_hot(pos, C, dtype=x.dtype)[:, None, :] *
                        keep[:, None, None])                        # [T,E,C]
            return idx, gate, keep, dispatch

        def body(x, wg, w_in, w_out):
            _, gate, _, dispatch = route(x, wg)
            send = jnp.einsum("tec,td->ecd", dispatch, x)            # [E,C,D]
            recv = jax.lax.all_to_all(send, "expert", 0, 0, tiled=True)
            h = jax.nn.relu(jnp.einsum("scd,df->scf", recv, w_in[0]))
            out = jnp.einsum("scf,fd->scd", h, w_out[0])
            back = jax.lax.all_to_all(out, "expert", 0, 0, tiled=True)
            return jnp.einsum("tec,ecd->td", dispatch * gate[:, None, None], back)

        specs = (P("expert"), P(), P("expert"), P("expert"))

        def moe_dispatch(x, wg, w_in, w_out):
            return shard_map(body, mesh=mesh, in_specs=specs,
                             out_specs=P("expert"))(x, wg, w_in, w_out)

        def ref(x, wg, w_in, w_out):
            def chunk(xc):
                idx, gate, keep, _ = route(xc, wg)
                h = jax.nn.relu(jnp.einsum("td,tdf->tf", xc, w_in[idx]))
                y = jnp.einsum("tf,tfd->td", h, w_out[idx])
                return y * (gate * keep)[:, None]
            return jax.vmap(chunk)(x.reshape(E, T, D)).reshape(E * T, D)

        progs["moe_dispatch"] = dict(
            fn=moe_dispatch, args=(x, wg, w_in, w_out), specs=specs, mesh=mesh,
            ref=ref,
            doc=("Top-1 (Switch) MoE layer, forward. Mesh: 1-D, 8 devices, "
                 "axis 'expert', one expert per device. Tokens %dx%d sharded "
                 "P('expert') (%d per device), router %dx%d replicated, expert "
                 "weights W_in %dx%dx%d / W_out %dx%dx%d sharded P('expert'). "
                 "Each device routes its tokens (softmax, argmax, cumsum "
                 "positions, capacity %d per expert), packs an %dx%dx%d "
                 "dispatch buffer, all_to_all (split 0, concat 0, tiled) to "
                 "the experts, runs the expert FFN (dot_general, relu, "
                 "dot_general), all_to_all back, and combines with the gate."
                 % (E * T, D, T, D, E, E, D, F, E, F, D, C, E, C, D)))

    build_moe()

    # ---- 5. ppermute -------------------------------------------------------
    def build_ring():
        n, rows, D = 8, 16, 128
        mesh = Mesh(np.array(devices[:n]), ("ring",))
        x = normal(rng(6), (n * rows, D))
        right = [(i, (i + 1) % n) for i in range(n)]
        left = [(i, (i - 1) % n) for i in range(n)]

        def body(x):
            from_left = jax.lax.ppermute(x, "ring", right)
            from_right = jax.lax.ppermute(x, "ring", left)
            return 0.5 * x + 0.25 * (from_left + from_right)

        def ppermute_ring(x):
            return shard_map(body, mesh=mesh, in_specs=P("ring"),
                             out_specs=P("ring"))(x)

        def ref(x):
            c = x.reshape(n, rows, D)
            y = 0.5 * c + 0.25 * (jnp.roll(c, 1, 0) + jnp.roll(c, -1, 0))
            return y.reshape(n * rows, D)

        progs["ppermute_ring"] = dict(
            fn=ppermute_ring, args=(x,), specs=(P("ring"),), mesh=mesh, ref=ref,
            doc=("Halo exchange on a ring. Mesh: 1-D, 8 devices, axis 'ring'. "
                 "x %dx%d sharded P('ring') (%dx%d per device); two ppermutes "
                 "(collective_permute) shift it to the right neighbour "
                 "(i -> i+1 mod 8) and to the left (i -> i-1 mod 8); "
                 "y = x/2 + (left + right)/4." % (n * rows, D, rows, D)))

        def loop_body(x):
            def step(_, carry):
                acc, msg = carry
                msg = jax.lax.ppermute(msg, "ring", right)
                return acc + msg, msg
            acc, _ = jax.lax.fori_loop(0, n - 1, step, (x, x))
            return acc

        def ring_reduce_loop(x):
            return shard_map(loop_body, mesh=mesh, in_specs=P("ring"),
                             out_specs=P("ring"))(x)

        def ref_loop(x):
            s = x.reshape(n, rows, D).sum(0)
            return jnp.tile(s, (n, 1))

        progs["ring_reduce_loop"] = dict(
            fn=ring_reduce_loop, args=(x,), specs=(P("ring"),), mesh=mesh,
            ref=ref_loop,
            doc=("Ring all-reduce written by hand: jax.lax.fori_loop of 7 "
                 "steps, each a ppermute i -> i+1 mod 8 and an add, so a "
                 "collective_permute inside a stablehlo.while (in the loop "
                 "body's private function @closed_call, reached by func.call "
                 "from the while body). Mesh: 1-D, 8 "
                 "devices, axis 'ring'; x %dx%d sharded P('ring'); every "
                 "device ends with the sum of all 8 shards." % (n * rows, D)))

    build_ring()

    # ---- 6. collective_broadcast --------------------------------------------
    def build_bcast():
        n, rows, D = 8, 4, 256
        mesh = Mesh(np.array(devices[:n]), ("data",))
        x = normal(rng(7), (n * rows, D))

        def body(x):
            return jax.lax.pbroadcast(x, ("data",), 3)

        def collective_broadcast(x):
            return shard_map(body, mesh=mesh, in_specs=P("data"),
                             out_specs=P("data"))(x)

        progs["collective_broadcast"] = dict(
            fn=collective_broadcast, args=(x,), specs=(P("data"),), mesh=mesh,
            ref=None, platform="cuda",
            doc=("jax.lax.pbroadcast(x, ('data',), source=3): every device "
                 "gets device 3's shard. Mesh: 1-D, 8 devices, axis 'data'; "
                 "x %dx%d sharded P('data'). jax registers pbroadcast's "
                 "lowering (stablehlo.collective_broadcast; the source is "
                 "moved to the front of each replica group) for GPUs only, so "
                 "this fixture is lowered with lowering_platforms=('cuda',); "
                 "it is not run by --verify." % (n * rows, D)))

    build_bcast()
    return progs


def _shardings(mesh, specs):
    import jax
    from jax.sharding import NamedSharding, PartitionSpec as P
    return jax.tree_util.tree_map(lambda s: NamedSharding(mesh, s), specs,
                                  is_leaf=lambda s: isinstance(s, P))


def _abstract(args, shardings):
    import jax
    return jax.tree_util.tree_map(
        lambda a, s: jax.ShapeDtypeStruct(a.shape, a.dtype, sharding=s),
        args, shardings)


def _worker(form, out, only, verify):
    import jax
    import jaxlib
    import numpy as np

    jax.config.update("jax_use_shardy_partitioner", form == "shardy")
    jax.config.update("jax_include_full_tracebacks_in_locations", False)
    header = ("// Generated by utils/jax-fixtures.py with jax %s, jaxlib %s "
              "(%s export); do not edit.\n"
              % (jax.__version__, jaxlib.__version__, form))
    progs = _programs()
    for name, p in progs.items():
        if only and name not in only:
            continue
        shardings = _shardings(p["mesh"], p["specs"])
        jitted = jax.jit(p["fn"])
        traced = jitted.trace(*_abstract(p["args"], shardings))
        if p.get("platform"):
            lowered = traced.lower(lowering_platforms=(p["platform"],))
        else:
            lowered = traced.lower()
        module = lowered.compiler_ir("stablehlo")
        text = module.operation.get_asm(print_generic_op_form=True,
                                        enable_debug_info=False)
        extra = ""
        if p.get("platform"):
            extra = ("// Lowered with lowering_platforms=('%s',): jax has no "
                     "CPU lowering for this collective.\n" % p["platform"])
        path = os.path.join(out, "%s.%s.mlir" % (name, form))
        with open(path, "w") as f:
            f.write(header + extra + text)
            if not text.endswith("\n"):
                f.write("\n")
        print("wrote %s (%d bytes)" % (os.path.relpath(path), os.path.getsize(path)))

        if verify and p.get("ref") is not None:
            args = jax.device_put(p["args"], shardings)
            got = jitted(*args)
            want = jax.jit(p["ref"])(*p["args"])
            gl, wl = jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)
            assert len(gl) == len(wl), name
            worst = max(float(np.max(np.abs(np.asarray(g) - np.asarray(w)) /
                                     (1e-3 + np.abs(np.asarray(w)))))
                        for g, w in zip(gl, wl))
            status = "ok" if worst < 1e-3 else "MISMATCH"
            print("verify %s/%s: %s (max rel err %.2e)" % (name, form, status, worst))
            if status != "ok":
                sys.exit(1)


README = """\
# StableHLO fixtures from real JAX programs

Generated by `utils/jax-fixtures.py` with jax {jax}, jaxlib {jaxlib}; do not
edit by hand. Regenerate (CPU only, no GPU needed; the script sets
`XLA_FLAGS=--xla_force_host_platform_device_count=8` itself):

    python3 -m venv /work/jax-venv && /work/jax-venv/bin/pip install jax=={jax}
    /work/jax-venv/bin/python utils/jax-fixtures.py --out test/Conversion/StableHLOToComm/Inputs --verify

Each program is a `jax.shard_map` under `jax.jit`, lowered with
`jax.jit(f).trace(*args).lower()` from arguments that carry their
`NamedSharding`, and printed with
`module.operation.get_asm(print_generic_op_form=True, enable_debug_info=False)`
(MLIR generic op form, no locations). Two files per program, each lowered in
its own process:

- `<name>.gspmd.mlir`: `jax_use_shardy_partitioner=False`. `@main` takes the
  global shapes (`mhlo.sharding` on the arguments), wraps the body in
  `stablehlo.custom_call @Sharding` + `@SPMDFullToShardShape` ... `@Sharding`
  + `@SPMDShardToFullShape`, and the per-device body is a private function
  (`@shmap_body`) reached by `func.call`.
- `<name>.shardy.mlir`: `jax_use_shardy_partitioner=True` (jax's default).
  An `sdy.mesh` op names the mesh, arguments carry `sdy.sharding`, and the
  per-device body is the region of an `sdy.manual_computation` (in_shardings,
  out_shardings, manual_axes), ending in `sdy.return`.

In both, every collective has `channel_handle = <handle = 1, type = 1>` (jax
uses the same handle 1 for all of them, so handles are not unique) and
`use_global_device_ids` where the op has it; `replica_groups` /
`source_target_pairs` hold global device ids, which here are the mesh's
row-major positions (the meshes use devices 0..n-1 in order). Module
attributes: `mhlo.num_partitions` = mesh size, `mhlo.num_replicas` = 1.

jax also emits private helper functions (`@relu`, `@log_softmax`, `@argmax`,
`@cumsum`, `@_one_hot`, `@closed_call` for a fori_loop body, ...) that the
per-device body reaches by `func.call`; they take per-device shapes. In the
Shardy form those calls sit inside the `sdy.manual_computation` region. MLIR
treats an op of an unregistered dialect with one region as a possible symbol
table, so `mlir-opt --allow-unregistered-dialect` (MLIR 22) rejects such a
call ("'func.call' op 'relu' does not reference a valid function") unless the
`sdy` dialect is registered. Shardy files with such calls: {sdy_calls}.
The GSPMD files and the other Shardy files parse and verify with
`mlir-opt --allow-unregistered-dialect`.

`--verify` runs every program but `collective_broadcast` on 8 host devices and
compares it with an unsharded jax reference.

| fixture | mesh | collectives | description |
| --- | --- | --- | --- |
{rows}
"""


def _collectives(paths):
    import re
    ops = ("all_reduce", "all_gather", "reduce_scatter", "all_to_all",
           "collective_permute", "collective_broadcast")
    counts = {}
    for path in paths:
        text = open(path).read()
        for op in ops:
            c = len(re.findall(r'"stablehlo\.%s"' % op, text))
            counts[op] = max(counts.get(op, 0), c)
    return ", ".join("%s x%d" % (op, c) for op, c in counts.items() if c)


def _write_readme(out, only):
    import jax
    import jaxlib
    progs = _programs()
    rows = []
    for name, p in progs.items():
        mesh = p["mesh"]
        shape = "x".join(str(s) for s in mesh.devices.shape)
        axes = ",".join("'%s'" % a for a in mesh.axis_names)
        paths = [os.path.join(out, "%s.%s.mlir" % (name, f)) for f in FORMS]
        paths = [q for q in paths if os.path.exists(q)]
        rows.append("| `%s` | %s (%s) | %s | %s |" % (
            name, shape, axes, _collectives(paths), p["doc"]))
    sdy_calls = []
    for name in progs:
        path = os.path.join(out, "%s.shardy.mlir" % name)
        if os.path.exists(path) and '"func.call"' in open(path).read():
            sdy_calls.append("`%s.shardy.mlir`" % name)
    with open(os.path.join(out, "README.md"), "w") as f:
        f.write(README.format(jax=jax.__version__, jaxlib=jaxlib.__version__,
                              rows="\n".join(rows),
                              sdy_calls=", ".join(sdy_calls) or "none"))
    print("wrote %s" % os.path.relpath(os.path.join(out, "README.md")))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=DEFAULT_OUT,
                    help="output folder (default: %(default)s)")
    ap.add_argument("--verify", action="store_true",
                    help="also run each program and compare with a reference")
    ap.add_argument("--only", nargs="*", default=[], help="fixture names")
    ap.add_argument("--_worker", choices=FORMS, help=argparse.SUPPRESS)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    if a._worker:
        _worker(a._worker, a.out, set(a.only), a.verify)
        return
    for form in FORMS:
        cmd = [sys.executable, os.path.abspath(__file__), "--_worker", form,
               "--out", a.out]
        if a.verify:
            cmd.append("--verify")
        if a.only:
            cmd += ["--only"] + a.only
        rc = subprocess.call(cmd)
        if rc:
            sys.exit("error: %s export failed (exit %d)" % (form, rc))
    _write_readme(a.out, a.only)


if __name__ == "__main__":
    main()
