// RUN: comm-opt %s --convert-comm-to-emitc=target=cuda-verbs -verify-diagnostics -o /dev/null

// A host-staged transfer whose buffer is still in GPU memory (comm-route,
// which stages it, did not run) is an error, not a silent GPUDirect RDMA.
module attributes {comm.world_size = 4 : i64} {
  func.func @unstaged(%x: memref<64xf32>) {
    // expected-error @+1 {{plan route 'host_staged' of comm.send needs its buffers in pinned host memory on the verbs backend; run comm-route (backend=verbs) before comm-bufferize to stage them}}
    comm.buffer.send %x {pairs = array<i64: 0, 1>, plan = #comm.plan<route = host_staged>, tag = 1 : i64} : memref<64xf32>
    return
  }
}
