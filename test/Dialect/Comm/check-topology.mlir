// RUN: comm-opt %s -split-input-file -verify-diagnostics -comm-check-topology=explain

/// Every rank exists on two DGX H100 machines: no error, and each pair's path
/// is explained (NVSwitch inside a machine, the network between machines).
module attributes {comm.topology = "dgx-h100x2", comm.world_size = 16 : i64} {
  func.func @paths(%x: tensor<4xf32>) -> tensor<4xf32> {
    // expected-remark @+2 {{pair [0, 1]: n0.gpu0 -> n0.gpu1 NVS (NVLink through an NVSwitch), 370.8 GB/s bottleneck at n0.gpu0 - n0.nvswitch, 0.30 us}}
    // expected-remark @+1 {{pair [1, 9]: n0.gpu1 -> n1.gpu1 NET (across the network), 48.0 GB/s bottleneck at n0.gpu1 - n0.pcie0, 2.20 us}}
    %0 = comm.permute %x pairs [[0, 1], [1, 9]] : tensor<4xf32>
    %1 = comm.all_reduce sum %0 over [[0, 1, 2, 3, 4, 5, 6, 7], [8, 9, 10, 11, 12, 13, 14, 15]] : tensor<4xf32>
    return %1 : tensor<4xf32>
  }
}

// -----

/// A rank beyond the GPUs of the topology.
module attributes {comm.topology = "dgx-h100"} {
  func.func @too_many_ranks(%x: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{rank 8 is not a GPU of topology 'dgx-h100' (8 GPUs, ranks 0-7); for 9 ranks use 'dgx-h100x2'}}
    %0 = comm.all_reduce sum %x over [[0, 8]] : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----

/// A point-to-point pair naming a missing rank.
module attributes {comm.topology = "pcie-4gpu"} {
  func.func @missing_peer(%x: tensor<4xf32>) {
    // expected-error @+1 {{rank 4 is not a GPU of topology 'pcie-4gpu' (4 GPUs, ranks 0-3); for 5 ranks use 'pcie-4gpux2'}}
    comm.send %x to [[0, 4]] tag 0 : tensor<4xf32>
    return
  }
}

// -----

/// More ranks than GPUs.
// expected-error @+1 {{comm.world_size is 16 but topology 'dgx-h100' has 8 GPUs; for 16 ranks use 'dgx-h100x2'}}
module attributes {comm.topology = "dgx-h100", comm.world_size = 16 : i64} {
}

// -----

/// No topology named anywhere.
// expected-error @+1 {{no topology: add a 'comm.topology' module attribute (a preset such as "dgx-h100", a cluster "dgx-h100x4", or a .xml/.yaml file) or pass topology=<preset|file> to the pass}}
module {
}

// -----

/// A topology that cannot be loaded.
// expected-error @+1 {{cannot load topology 'dgx-h9000': unknown topology preset 'dgx-h9000'}}
module attributes {comm.topology = "dgx-h9000"} {
}

// -----

/// The host preset's ranks are processes; a bigger world names host<N>.
module attributes {comm.topology = "host"} {
  func.func @host_too_small(%x: tensor<6xf32>) -> tensor<6xf32> {
    // expected-error @+1 {{rank 4 is not a rank of topology 'host' (4 ranks, ranks 0-3); for 6 ranks use 'host6'}}
    %0 = comm.all_reduce sum %x over [[0, 1, 2, 3, 4, 5]] : tensor<6xf32>
    return %0 : tensor<6xf32>
  }
}
