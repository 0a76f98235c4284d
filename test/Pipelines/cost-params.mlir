// The planner's cost model takes parameters calibrated for the user's own
// machine (comm-sim calibrate --nccl-tests ... --write-params): a pass
// option, the comm-plan option, or the module's comm.cost_params.
//
// RUN: comm-opt %s --comm-select-algorithm=topology=dgx-h100 | FileCheck %s --check-prefix=DEFAULT
// RUN: comm-opt %s --comm-select-algorithm="topology=dgx-h100 cost-params=%S/Inputs/slow-nvls.yaml" | FileCheck %s --check-prefix=SLOW
// RUN: comm-opt %s --comm-plan="topology=dgx-h100 cost-params=%S/Inputs/slow-nvls.yaml" | FileCheck %s --check-prefix=SLOW
// RUN: sed 's|comm.world_size = 8 : i64}|comm.world_size = 8 : i64, comm.cost_params = "%S/Inputs/slow-nvls.yaml"}|' %s > %t.mlir
// RUN: comm-opt %t.mlir --comm-select-algorithm=topology=dgx-h100 | FileCheck %s --check-prefix=SLOW
// RUN: comm-sim run %s --topology dgx-h100 --json > %t.default.json
// RUN: comm-sim run %t.mlir --topology dgx-h100 --json > %t.slow.json
// RUN: %python %comm_src/utils/compare-step.py %t.default.json %t.slow.json
// RUN: not comm-opt %s --comm-select-algorithm="topology=dgx-h100 cost-params=%t.missing.yaml" 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not comm-opt %s --comm-plan="topology=dgx-h100 cost-params=%S/Inputs/bad-params.yaml" 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not comm-sim run %s --topology dgx-h100 --cost-params %S/Inputs/bad-params.yaml 2>&1 | FileCheck %s --check-prefix=BAD
// Latencies must be non-negative and under a second; the error names the
// value's line and column.
// RUN: sed -e 's/^nvlink_efficiency: 7/nvlink_efficiency: 0.9/' -e 's/^p2p_latency_us:  8/p2p_latency_us: -800/' %S/Inputs/bad-params.yaml > %t.negative.yaml
// RUN: not comm-sim run %s --topology dgx-h100 --cost-params %t.negative.yaml 2>&1 | FileCheck %s --check-prefix=NEGLAT
// RUN: sed -e 's/^nvlink_efficiency: 7/nvlink_efficiency: 0.9/' -e 's/ll: 0.896141/ll: 1e300/' %S/Inputs/bad-params.yaml > %t.huge.yaml
// RUN: not comm-opt %s --comm-plan="topology=dgx-h100 cost-params=%t.huge.yaml" 2>&1 | FileCheck %s --check-prefix=HUGELAT
// An unknown algorithm or link class is named at its line.
// RUN: sed -e 's/^nvlink_efficiency: 7/nvlink_efficiency: 0.9/' -e 's/^  tree: /  trees: /' %S/Inputs/bad-params.yaml > %t.algo.yaml
// RUN: not comm-sim run %s --topology dgx-h100 --cost-params %t.algo.yaml 2>&1 | FileCheck %s --check-prefix=BADALGO
// BADALGO: algo.yaml:20: error: unknown algorithm 'trees' in base_latency_us; expected one of ring, tree, direct, halving_doubling, hierarchical, nvls
// RUN: sed -e 's/^nvlink_efficiency: 7/nvlink_efficiency: 0.9/' -e 's/^  pcie: /  pci: /' %S/Inputs/bad-params.yaml > %t.class.yaml
// RUN: not comm-sim run %s --topology dgx-h100 --cost-params %t.class.yaml 2>&1 | FileCheck %s --check-prefix=BADCLASS
// BADCLASS: class.yaml:24: error: unknown link class 'pci' in step_latency_us; expected nvlink, pcie or network
// A row left out took the default without a word.
// RUN: sed -e 's/^nvlink_efficiency: 7/nvlink_efficiency: 0.9/' -e '/^  tree: /d' %S/Inputs/bad-params.yaml > %t.norow.yaml
// RUN: not comm-sim run %s --topology dgx-h100 --cost-params %t.norow.yaml 2>&1 | FileCheck %s --check-prefix=NOROW
// NOROW: norow.yaml: error: base_latency_us has no 'tree' row; expected one for each of ring, tree, direct, halving_doubling, hierarchical, nvls
// RUN: sed -e 's/^nvlink_efficiency: 7/nvlink_efficiency: 0.9/' -e '/^  pcie: /d' %S/Inputs/bad-params.yaml > %t.noclass.yaml
// RUN: not comm-sim run %s --topology dgx-h100 --cost-params %t.noclass.yaml 2>&1 | FileCheck %s --check-prefix=NOCLASS
// NOCLASS: noclass.yaml: error: step_latency_us has no 'pcie' row; expected one for each of nvlink, pcie and network
// Keys after the document's end were dropped without a word.
// RUN: cp %S/Inputs/slow-nvls.yaml %t.second.yaml && echo 'nvlink_efficiency: 0.5' >> %t.second.yaml
// RUN: not comm-sim run %s --topology dgx-h100 --cost-params %t.second.yaml 2>&1 | FileCheck %s --check-prefix=SECOND
// SECOND: second.yaml: error: the file holds more than one YAML document (a '...' or '---' before the end); the parameters are one document
// comm-compile takes the parameters too, and -v shows them in the pipeline.
// RUN: comm-compile %s --topology dgx-h100 --target cpu-mpi --cost-params %S/Inputs/slow-nvls.yaml -v -o %t.o 2>&1 | FileCheck %s --check-prefix=COMPILE

// COMPILE: comm-select-algorithm{{.*}}cost-params={{.*}}slow-nvls.yaml
// DEFAULT: comm.all_reduce sum {{.*}} plan <algorithm = nvls
// SLOW-NOT: algorithm = nvls
// SLOW: comm.all_reduce sum {{.*}} plan <algorithm = {{ring|tree|halving_doubling}}
// MISSING: cost-params.mlir:[[@LINE+4]]:1: error: cannot read cost model parameters '{{.*}}missing.yaml': No such file or directory
// NEGLAT: error: {{.*}}negative.yaml:27:17: error: a latency must be in [0, 1000000] microseconds (one second), got -800 (in 'p2p_latency_us: -800')
// HUGELAT: error: cannot use cost model parameters {{.*}}huge.yaml:23:43: error: a latency must be in [0, 1000000] microseconds (one second), got 1e+300 (in 'nvlink:          { simple: 13.4479, ll: 1e300, ll128: 2.7687 }')
// BAD: cost-params.mlir:[[@LINE+1]]:1: error: cannot use cost model parameters '{{.*}}bad-params.yaml': {{.*}}bad-params.yaml:3:20: error: an efficiency must be in (0, 1], got 7 (in 'nvlink_efficiency: 7')
module attributes {comm.world_size = 8 : i64} {
  func.func @big(%x: tensor<67108864xf32>) -> tensor<67108864xf32> {
    %0 = comm.all_reduce sum %x over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<67108864xf32>
    return %0 : tensor<67108864xf32>
  }
}
