//===- mpi/MpiBackend.h - MPI backend ---------------------------*- C++ -*-===//
//
// Part of the comm project: a compiler for communication between GPUs.
//
//===----------------------------------------------------------------------===//
//
// The mpi backend moves host buffers with MPI's non-blocking collectives and
// point-to-point calls; the core polls them with a deadline. f16 and bf16
// travel as MPI_UINT16_T with user-defined reduction ops that compute in f32.
//
//===----------------------------------------------------------------------===//

#ifndef COMMRT_MPI_MPIBACKEND_H
#define COMMRT_MPI_MPIBACKEND_H

#include "../lib/Internal.h"

#include <functional>

namespace commrt {
namespace mpi {

/// One started MPI operation: its MPI requests, the temporary buffers they
/// use, and what to do once they complete (average, copy).
class MpiRequest : public commrt_request {
public:
  using commrt_request::commrt_request;

  commrt_status poll(bool &done) override;

  std::vector<MPI_Request> requests;
  /// Temporary copies of send buffers that overlap the receive buffer.
  std::vector<char> scratch;
  /// Runs once after every request completed.
  std::function<void()> onComplete;
  /// Index in requests of a receive whose element count is checked, or -1.
  int checkedRecv = -1;
  MPI_Datatype recvType = MPI_DATATYPE_NULL;
  int recvCount = 0;

private:
  std::vector<MPI_Status> statuses;
};

class MpiBackend : public Backend {
public:
  explicit MpiBackend(commrt_context *ctx) : Backend(ctx) {}
  ~MpiBackend() override;

  commrt_backend kind() const override { return COMMRT_BACKEND_MPI; }
  const char *name() const override { return "mpi"; }
  commrt_status init() override;
  commrt_status createComm(commrt_comm *comm) override;
  void destroyComm(commrt_comm *comm) override;
  commrt_status post(const OpArgs &args,
                     std::unique_ptr<commrt_request> &req) override;

  /// The MPI datatype that carries \p dtype (MPI_UINT16_T for f16/bf16).
  static MPI_Datatype datatype(commrt_dtype dtype);
  /// The MPI op for \p op on \p dtype (user-defined for f16/bf16; avg is
  /// sum, divided when the operation completes).
  MPI_Op reduction(commrt_dtype dtype, commrt_redop op) const;

private:
  /// User-defined ops indexed [bf16 ? 1 : 0][sum, prod, min, max].
  MPI_Op halfOps[2][4] = {{MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL},
                          {MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL}};
};

} // namespace mpi
} // namespace commrt

#endif // COMMRT_MPI_MPIBACKEND_H
