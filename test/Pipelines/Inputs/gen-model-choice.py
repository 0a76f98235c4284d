#!/usr/bin/env python3
"""Writes a comm module with every kind of collective and point-to-point op
at every power-of-two size from 1 KiB to 1 GiB, over the whole world and
over groups of half of it, for test/Pipelines/model-choice-lowers.test.

usage: gen-model-choice.py TOPOLOGY RANKS
"""
import sys

topology, ranks = sys.argv[1], int(sys.argv[2])
half = ranks // 2
world = [list(range(ranks))]
halves = [list(range(half)), list(range(half, ranks))]


def groups(gs):
    return "[" + ", ".join("[" + ", ".join(map(str, g)) + "]" for g in gs) + "]"


def pairs(ps):
    return "[" + ", ".join(f"[{a}, {b}]" for a, b in ps) + "]"


ring = [(r, (r + 1) % ranks) for r in range(ranks)]
print(f'module attributes {{comm.topology = "{topology}"}} {{')
size = 1024
while size <= 1 << 30:
    n = size // 4  # f32 elements
    t = f"tensor<{n}xf32>"
    print(f"  func.func @s{size}(%x: {t}) -> {t} {{")
    for gs in (world, halves):
        g = len(gs[0])
        print(f"    %ar{g} = comm.all_reduce sum %x over {groups(gs)} : {t}")
        print(f"    %rs{g} = comm.reduce_scatter sum %x over {groups(gs)} dim 0"
              f" : {t} -> tensor<{n // g}xf32>")
        print(f"    %ag{g} = comm.all_gather %rs{g} over {groups(gs)} dim 0"
              f" : tensor<{n // g}xf32> -> {t}")
        print(f"    %aa{g} = comm.all_to_all %x over {groups(gs)} split 0"
              f" concat 0 : {t} -> {t}")
        print(f"    %bc{g} = comm.broadcast %x over {groups(gs)} root 1 : {t}")
        print(f"    %rd{g} = comm.reduce max %x over {groups(gs)} root 0 : {t}")
        print(f"    comm.barrier over {groups(gs)}")
    print(f"    %pm = comm.permute %x pairs {pairs(ring)} : {t}")
    print(f"    comm.send %x to {pairs(ring)} tag 1 : {t}")
    print(f"    %rv = comm.recv from {pairs(ring)} tag 1 : {t}")
    print(f"    return %ar{ranks} : {t}")
    print("  }")
    size *= 2
print("}")
