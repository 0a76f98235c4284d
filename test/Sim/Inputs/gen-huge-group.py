# One all_reduce over a group of N ranks (default 100,000): comm-sim run,
# comm-plan and comm-verify-schedule once did work quadratic in the group.
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 100000
group = ", ".join(str(r) for r in range(n))
print("func.func @f(%x: tensor<1024xf32>) -> tensor<1024xf32> {")
print(f"  %0 = comm.all_reduce sum %x over [[{group}]] : tensor<1024xf32>")
print("  return %0 : tensor<1024xf32>")
print("}")
