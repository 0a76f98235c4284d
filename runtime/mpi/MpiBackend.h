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
#include <tuple>

namespace commrt {
namespace mpi {

/// One started MPI operation: its MPI requests, the temporary buffers they
/// use, and what to do once they complete (average, copy).
class MpiBackend;

/// A receive that is posted only once its message arrived and has the size
/// it expects (mpi/Receive.cpp).
struct Expected {
  MPI_Comm comm = MPI_COMM_NULL;
  int source = 0, tag = 0;
  void *buf = nullptr;
  int count = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  /// Index in MpiRequest::requests of the receive once posted.
  size_t slot = 0;
};

class MpiRequest : public commrt_request {
public:
  MpiRequest(commrt_context *ctx, const OpArgs &args, MpiBackend &backend)
      : commrt_request(ctx, args), backend(backend) {}
  ~MpiRequest() override;

  commrt_status poll(bool &done) override;
  void abandon() override;

  MpiBackend &backend;
  std::vector<MPI_Request> requests;
  /// Temporary copies of send buffers that overlap the receive buffer.
  std::vector<char> scratch;
  /// Runs once after every request completed.
  std::function<void()> onComplete;
  /// The receive waiting for its message, if any.
  Expected expected;
  bool expecting = false;
  /// A message of the wrong size: taken off the wire into here (so that
  /// its sender completes) and reported.
  std::vector<char> refused;
  commrt_status refusal = COMMRT_SUCCESS;
  std::string refusalMessage;

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
  commrt_status check(const OpArgs &args) const override;

  /// Queues the receive \p req expects behind the earlier ones from the
  /// same source with the same tag on the same communicator (MPI matches
  /// them in posting order) and posts what already arrived.
  void expect(MpiRequest *req);
  /// Posts the receives waiting for messages from \p source with \p tag on
  /// \p comm that arrived, oldest first.
  void match(MPI_Comm comm, int source, int tag);
  /// match() for every receive waiting: a rank blocked elsewhere must still
  /// take the messages others wait to deliver (a send waits for its
  /// receive to be posted).
  void pollPending() override;
  /// Drops \p req from the queue of receives waiting for their message.
  void forget(MpiRequest *req);

  /// The MPI datatype that carries \p dtype (MPI_UINT16_T for f16/bf16).
  static MPI_Datatype datatype(commrt_dtype dtype);
  /// The MPI op for \p op on \p dtype (user-defined for f16/bf16; avg is
  /// sum, divided when the operation completes).
  MPI_Op reduction(commrt_dtype dtype, commrt_redop op) const;

private:
  using Key = std::tuple<MPI_Comm, int, int>;
  /// Posts what arrived for the receives waiting on \p key; drops the
  /// entry when none waits any more.
  void matchKey(const Key &key);
  /// Receives waiting for their message, by (communicator, source, tag).
  std::map<Key, std::deque<MpiRequest *>> waiting;
  /// User-defined ops indexed [bf16 ? 1 : 0][sum, prod, min, max].
  MPI_Op halfOps[2][4] = {{MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL},
                          {MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL}};
};

} // namespace mpi
} // namespace commrt

#endif // COMMRT_MPI_MPIBACKEND_H
