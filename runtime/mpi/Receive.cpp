//===- mpi/Receive.cpp - Receives that check the message size ---*- C++ -*-===//
//
// Part of the comm project: a compiler for communication between GPUs.
//
//===----------------------------------------------------------------------===//
//
// A receive is posted only once its message arrived: MPI_Improbe matches
// the message and gives its size, and MPI_Imrecv receives exactly that
// message. A message of another size is refused before it touches the
// buffer: it is received into scratch (so that its sender completes) and
// the receive fails, naming both sizes. A plain MPI_Irecv would truncate a
// larger message, which Open MPI 4.1's shared-memory transport (single
// copy with CMA, messages above 4 KiB) turns into a write of the whole
// message past the end of the buffer.
//
// MPI matches receives from one source with one tag in the order they were
// posted; here they are matched in that order too: the receives waiting on
// one (communicator, source, tag) form a queue, and only its head probes.
//
//===----------------------------------------------------------------------===//

#include "MpiBackend.h"

#include <algorithm>
#include <climits>

using namespace commrt;
using namespace commrt::mpi;

namespace {

/// "20 bytes (5 i32)".
std::string sizeText(MPI_Count bytes, commrt_dtype dtype) {
  size_t elt = commrt_dtype_size(dtype);
  if (bytes % static_cast<MPI_Count>(elt))
    return format("%lld bytes", static_cast<long long>(bytes));
  return format("%lld bytes (%lld %s)", static_cast<long long>(bytes),
                static_cast<long long>(bytes / static_cast<MPI_Count>(elt)),
                commrt_dtype_name(dtype));
}

/// Posts the receive of \p req for the probed message \p msg of \p bytes.
void receive(MpiRequest &req, MPI_Message &msg, MPI_Count bytes) {
  const Expected &e = req.expected;
  const OpArgs &args = req.args;
  size_t elt = commrt_dtype_size(args.dtype);
  MPI_Count want =
      static_cast<MPI_Count>(e.count) * static_cast<MPI_Count>(elt);
  MPI_Request &slot = req.requests[e.slot];
  int err = MPI_SUCCESS;
  if (bytes == want) {
    err = MPI_Imrecv(e.buf, e.count, e.type, &msg, &slot);
  } else {
    // Take it off the wire, so that the sender completes; the caller's
    // buffer is left alone. In units of 8 bytes when too large for an int
    // count of bytes.
    MPI_Count unit = bytes > INT_MAX && bytes % 8 == 0 ? 8 : 1;
    if (bytes / unit <= INT_MAX) {
      req.refused.resize(static_cast<size_t>(bytes));
      err = MPI_Imrecv(req.refused.data(), static_cast<int>(bytes / unit),
                       unit == 8 ? MPI_UINT64_T : MPI_BYTE, &msg, &slot);
    }
    std::string sizes =
        format("sent %s, but this receive takes %d %s (%lld bytes)",
               sizeText(bytes, args.dtype).c_str(), e.count,
               commrt_dtype_name(args.dtype), static_cast<long long>(want));
    if (args.comm) {
      // A step of a schedule the group did not validate: the collective
      // is broken on this rank, and others may wait for it.
      req.refusal = COMMRT_ERROR_BACKEND;
      req.refusalMessage = format(
          "in a transfer of the planned schedule, rank %d %s; the ranks "
          "disagree on the operation (COMMRT_VALIDATE=0 skipped the check "
          "that names them), and the message was dropped",
          args.comm->ranks[static_cast<size_t>(e.source)], sizes.c_str());
    } else {
      req.refusal = COMMRT_ERROR_INVALID_ARGUMENT;
      req.mismatch = true;
      req.refusalMessage = format("rank %d %s; the message was dropped and "
                                  "the buffer left untouched",
                                  e.source, sizes.c_str());
    }
  }
  if (err != MPI_SUCCESS) {
    req.refusal = COMMRT_ERROR_BACKEND;
    req.refusalMessage = "mpi backend: " + mpiErrorString("MPI_Imrecv", err);
  }
}

} // namespace

void MpiBackend::expect(MpiRequest *req) {
  const Expected &e = req->expected;
  waiting[Key(e.comm, e.source, e.tag)].push_back(req);
  match(e.comm, e.source, e.tag);
}

void MpiBackend::match(MPI_Comm comm, int source, int tag) {
  matchKey(Key(comm, source, tag));
}

void MpiBackend::pollPending() {
  for (auto it = waiting.begin(); it != waiting.end();) {
    Key key = (it++)->first;
    matchKey(key);
  }
}

void MpiBackend::matchKey(const Key &key) {
  auto it = waiting.find(key);
  if (it == waiting.end())
    return;
  auto [comm, source, tag] = key;
  std::deque<MpiRequest *> &queue = it->second;
  while (!queue.empty()) {
    MpiRequest &head = *queue.front();
    int flag = 0;
    MPI_Message msg = MPI_MESSAGE_NULL;
    MPI_Status status;
    int err = MPI_Improbe(source, tag, comm, &flag, &msg, &status);
    if (err != MPI_SUCCESS) {
      head.refusal = COMMRT_ERROR_BACKEND;
      head.refusalMessage =
          "mpi backend: " + mpiErrorString("MPI_Improbe", err);
    } else if (!flag) {
      return;
    } else {
      MPI_Count bytes = 0;
      MPI_Get_elements_x(&status, MPI_BYTE, &bytes);
      receive(head, msg, bytes);
    }
    head.expecting = false;
    queue.pop_front();
  }
  waiting.erase(it);
}

void MpiBackend::forget(MpiRequest *req) {
  const Expected &e = req->expected;
  req->expecting = false;
  auto it = waiting.find(Key(e.comm, e.source, e.tag));
  if (it == waiting.end())
    return;
  std::deque<MpiRequest *> &queue = it->second;
  queue.erase(std::remove(queue.begin(), queue.end(), req), queue.end());
  if (queue.empty())
    waiting.erase(it);
}
