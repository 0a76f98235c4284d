#!/usr/bin/env python3
"""Writes a data-parallel backward for test/Sim/overlap.test: LAYERS layers
of COMPUTE us (default 1000), each layer's 64 MiB of gradients all-reduced
over 8 ranks right after it, in its own comm.start (async) or blocking; an
async program waits for every token at the end. With STREAMS > 1 the
layers' transfers go round-robin on plan streams 0..STREAMS-1.

usage: gen-backward.py LAYERS async|blocking [STREAMS [COMPUTE]]
"""
import sys

layers, mode = int(sys.argv[1]), sys.argv[2]
streams = int(sys.argv[3]) if len(sys.argv) > 3 else 1
compute = float(sys.argv[4]) if len(sys.argv) > 4 else 1000.0
t = "tensor<16777216xf32>"
print('module attributes {comm.topology = "dgx-h100"} {')
print(f"  func.func @backward(%g: {t}, %w: tensor<64xf32>) -> {t} {{")
for i in reversed(range(layers)):
    print(f'    comm.compute "layer{i}.backward"(%w) time_us {compute}'
          " : (tensor<64xf32>) -> ()")
    plan = f" plan <stream = {i % streams}>" if streams > 1 else ""
    ar = f"comm.all_reduce sum %g over [[0, 1, 2, 3, 4, 5, 6, 7]]{plan} : {t}"
    if mode == "async":
        print(f"    %t{i} = comm.start {{")
        print(f"      %r = {ar}")
        print(f"      comm.yield %r : {t}")
        print("    }")
    else:
        print(f"    %r{i} = {ar}")
if mode == "async":
    for i in range(layers):
        print(f"    %r{i} = comm.wait %t{i} : {t}")
print(f"    return %r0 : {t}")
print("  }")
print("}")
