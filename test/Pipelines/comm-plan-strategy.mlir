// RUN: comm-opt %s --comm-plan="topology=dgx-h100 strategy=naive" | FileCheck %s --check-prefix=NAIVE
// RUN: comm-opt %s --comm-plan="topology=dgx-h100 strategy=ddp" | FileCheck %s --check-prefix=DDP
// RUN: comm-opt %s --comm-plan="topology=dgx-h100 strategy=horovod" | FileCheck %s --check-prefix=HVD
// RUN: comm-opt %s --comm-plan="topology=dgx-h100 strategy=xla" | FileCheck %s --check-prefix=XLA
// RUN: comm-opt %s --comm-plan="topology=dgx-h100 strategy=comm" | FileCheck %s --check-prefix=COMM
// RUN: comm-opt %s --comm-plan="topology=dgx-h100 strategy=horovod" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=HVDPIPE
// RUN: not comm-opt %s --comm-plan="topology=dgx-h100 strategy=megatron" 2>&1 | FileCheck %s --check-prefix=BAD

// A four-layer data-parallel backward as a framework hands it over: 600 us
// of compute per layer, a 2 MiB weight gradient and a 4 KiB bias gradient
// each, every gradient all-reduced on its own once the backward is done.
// Each strategy buckets and schedules it as its framework would.
func.func @backward(%x: tensor<524288xf32>, %b: tensor<1024xf32>)
    -> (tensor<524288xf32>, tensor<1024xf32>, tensor<524288xf32>, tensor<1024xf32>,
        tensor<524288xf32>, tensor<1024xf32>, tensor<524288xf32>, tensor<1024xf32>) {
  %g4, %b4 = comm.compute "layer4.backward"(%x, %b) time_us 600.0 : (tensor<524288xf32>, tensor<1024xf32>) -> (tensor<524288xf32>, tensor<1024xf32>)
  %g3, %b3 = comm.compute "layer3.backward"(%g4, %b4) time_us 600.0 : (tensor<524288xf32>, tensor<1024xf32>) -> (tensor<524288xf32>, tensor<1024xf32>)
  %g2, %b2 = comm.compute "layer2.backward"(%g3, %b3) time_us 600.0 : (tensor<524288xf32>, tensor<1024xf32>) -> (tensor<524288xf32>, tensor<1024xf32>)
  %g1, %b1 = comm.compute "layer1.backward"(%g2, %b2) time_us 600.0 : (tensor<524288xf32>, tensor<1024xf32>) -> (tensor<524288xf32>, tensor<1024xf32>)
  %r4 = comm.all_reduce avg %g4 over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<524288xf32>
  %s4 = comm.all_reduce avg %b4 over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<1024xf32>
  %r3 = comm.all_reduce avg %g3 over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<524288xf32>
  %s3 = comm.all_reduce avg %b3 over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<1024xf32>
  %r2 = comm.all_reduce avg %g2 over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<524288xf32>
  %s2 = comm.all_reduce avg %b2 over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<1024xf32>
  %r1 = comm.all_reduce avg %g1 over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<524288xf32>
  %s1 = comm.all_reduce avg %b1 over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<1024xf32>
  return %r4, %s4, %r3, %s3, %r2, %s2, %r1, %s1
      : tensor<524288xf32>, tensor<1024xf32>, tensor<524288xf32>, tensor<1024xf32>,
        tensor<524288xf32>, tensor<1024xf32>, tensor<524288xf32>, tensor<1024xf32>
}

// naive: the program as written, one blocking call per tensor, no plan.
// NAIVE-LABEL: func.func @backward
// NAIVE-COUNT-4: comm.compute
// NAIVE-COUNT-8: comm.all_reduce avg %{{.*}} over {{\[\[}}0, 1, 2, 3, 4, 5, 6, 7]] : tensor<{{524288|1024}}xf32>
// NAIVE-NEXT: return
// NAIVE-NOT: comm.start
// NAIVE-NOT: comm.pack

// ddp: the first bucket holds at most 1 MiB, so layer 4's 2 MiB weight
// gradient goes alone and first, as soon as layer 4 is done; everything
// else (8 MiB less 2) fits one 25 MiB bucket, sent after layer 1 (with
// no compute left to hide it, blocking).
// DDP-LABEL: func.func @backward
// DDP: comm.compute "layer4.backward"
// DDP-NEXT: comm.start
// DDP-NEXT: comm.all_reduce avg %{{.*}} : tensor<524288xf32>
// DDP: comm.compute "layer1.backward"
// DDP-NEXT: comm.pack {{.*}} -> tensor<1576960xf32>
// DDP-NEXT: comm.all_reduce avg %{{.*}} : tensor<1576960xf32>
// DDP-NEXT: comm.unpack
// DDP-NOT: comm.start
// DDP-NOT: plan
// DDP: return

// horovod: tensors ready at 600, 1200, 1800 and 2400 us fall in the 1 ms
// cycles 0, 1, 1 and 2: three buckets, each started when its last member
// is computed (the last blocking: nothing is left to overlap it).
// HVDPIPE: comm-fuse{backend=nccl cost-params= cycle-us=1.000000e+03 explain=false first-bucket-bytes=1048576 joint=true max-tensors=0 mode=cycle threshold-bytes=134217728 topology=dgx-h100},
// HVDPIPE-NEXT: comm-decompose{backend=nccl explain=false hierarchical=false hierarchical-if-faster=false split-all-reduce=false to-p2p=unsupported topology=},
// HVDPIPE-NEXT: comm-route{backend=nccl choose=true explain=false topology=dgx-h100},
// HVDPIPE-NEXT: comm-schedule{
// HVD-LABEL: func.func @backward
// HVD: comm.compute "layer4.backward"
// HVD-NEXT: comm.start
// HVD-NEXT: comm.pack {{.*}} -> tensor<525312xf32>
// HVD: comm.compute "layer3.backward"
// HVD-NEXT: comm.compute "layer2.backward"
// HVD-NEXT: comm.start
// HVD-NEXT: comm.pack {{.*}} -> tensor<1050624xf32>
// HVD: comm.compute "layer1.backward"
// HVD-NEXT: comm.pack {{.*}} -> tensor<525312xf32>
// HVD-NOT: comm.start
// HVD-NOT: plan
// HVD: return

// xla: one combined all-reduce of everything (8 MiB < 30 MiB), after the
// last gradient is computed.
// XLA-LABEL: func.func @backward
// XLA: comm.compute "layer1.backward"
// XLA-NEXT: comm.pack {{.*}} -> tensor<2101248xf32>
// XLA-NEXT: comm.all_reduce avg %{{.*}} : tensor<2101248xf32>
// XLA-NOT: plan
// XLA: return

// comm: buckets from the cost model, each started as soon as it is
// complete, with the algorithm and protocol the model picks.
// COMM-LABEL: func.func @backward
// COMM: comm.compute "layer4.backward"
// COMM-NEXT: comm.start
// COMM: plan <algorithm =
// COMM: comm.compute "layer3.backward"
// COMM-NEXT: comm.start
// COMM: comm.compute "layer1.backward"
// COMM: return

// BAD: for the --strategy option: 'megatron' is not a value of --strategy (expected comm, naive, ddp, horovod or xla)

// Every enum-valued option lists its values on a wrong one.
// RUN: not comm-opt %s --comm-plan="topology=dgx-h100 backend=gloo" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADBACKEND
// BADBACKEND: for the --backend option: 'gloo' is not a value of --backend (expected mpi, nccl or verbs)
// RUN: not comm-opt %s --comm-fuse="mode=bogus" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADMODE
// BADMODE: for the --mode option: 'bogus' is not a value of --mode (expected threshold, cost or cycle)
