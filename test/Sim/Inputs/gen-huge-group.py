# One all_reduce over a group of N ranks (default 100,000): comm-sim run,
# comm-plan and comm-verify-schedule once did work quadratic in the group.
# With a second argument G, the N ranks form groups of G ranks each (N / G
# groups): the simulator copied every group for each group's instance.
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 100000
size = int(sys.argv[2]) if len(sys.argv) > 2 else n
groups = ", ".join(
    "[" + ", ".join(str(r) for r in range(first, first + size)) + "]"
    for first in range(0, n, size))
print("func.func @f(%x: tensor<1024xf32>) -> tensor<1024xf32> {")
print(f"  %0 = comm.all_reduce sum %x over [{groups}] : tensor<1024xf32>")
print("  return %0 : tensor<1024xf32>")
print("}")
