// RUN: comm-opt %s --split-input-file --comm-lower-to-emitc=target=cuda-verbs -verify-diagnostics -o /dev/null
// RUN: comm-opt %s --split-input-file --comm-bufferize --convert-comm-to-emitc=target=cuda-verbs -verify-diagnostics -o /dev/null

// Without a topology the lowering still checks a route against the backend
// (comm-route in the pipeline, the conversion itself when run alone): the
// verbs backend moves every byte through the NIC.
module attributes {comm.world_size = 4 : i64} {
  func.func @verbs_pcie(%x: tensor<64xf32>) {
    // expected-error @+1 {{plan route 'pcie' of comm.send is not realized on the verbs backend, which moves data through the NIC (expected gdr or host_staged)}}
    comm.send %x to [[0, 1]] tag 1 plan <route = pcie> : tensor<64xf32>
    return
  }
}
