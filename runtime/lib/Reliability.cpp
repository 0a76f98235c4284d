//===- lib/Reliability.cpp - Fault injection and checksums -----*- C++ -*-===//
//
// Part of the comm project: a compiler for communication between GPUs.
//
//===----------------------------------------------------------------------===//
//
// COMMRT_INJECT makes one rank exit, stop or corrupt what it sends at one
// operation, to rehearse failures. COMMRT_DEBUG=checksum makes transfers
// carry a checksum of their payload so that corruption is reported instead
// of computed with.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

using namespace commrt;

//===----------------------------------------------------------------------===//
// Fault injection
//===----------------------------------------------------------------------===//

namespace {

/// Parses a decimal integer >= 0 made of digits only.
bool parseCount(const std::string &text, int64_t &value) {
  if (text.empty() || text.size() > 18 ||
      text.find_first_not_of("0123456789") != std::string::npos)
    return false;
  value = std::strtoll(text.c_str(), nullptr, 10);
  return true;
}

const char *faultName(FaultKind kind) {
  switch (kind) {
  case FaultKind::Exit:
    return "exit";
  case FaultKind::Hang:
    return "hang";
  case FaultKind::Corrupt:
    return "corrupt";
  case FaultKind::None:
    break;
  }
  return "none";
}

/// The bytes this rank sends in \p args (null if none): the send buffer,
/// or a broadcast root's input.
const void *sentBytes(const commrt_context *ctx, const OpArgs &args,
                      size_t &bytes) {
  size_t block =
      static_cast<size_t>(args.count) * commrt_dtype_size(args.dtype);
  size_t group = args.comm ? args.comm->ranks.size() : 1;
  bytes = 0;
  switch (args.kind) {
  case OpKind::AllReduce:
  case OpKind::AllGather:
  case OpKind::Reduce:
  case OpKind::Send:
    bytes = block;
    return args.send;
  case OpKind::ReduceScatter:
  case OpKind::AllToAll:
    bytes = block * group;
    return args.send;
  case OpKind::Broadcast:
    if (args.comm->position != args.root)
      return nullptr;
    bytes = block;
    return args.send;
  case OpKind::Permute:
    if (args.sendTo < 0)
      return nullptr;
    bytes = block;
    return args.send;
  case OpKind::Recv:
  case OpKind::Barrier:
    break;
  }
  return nullptr;
}

} // namespace

bool commrt::parseFault(const char *text, int worldSize, Fault &fault,
                        std::string &why) {
  std::vector<std::string> fields(1);
  for (const char *c = text; *c; ++c) {
    if (*c == ':')
      fields.emplace_back();
    else
      fields.back() += *c;
  }
  if (fields.size() != 3) {
    why = format("it has %zu field%s, not 3", fields.size(),
                 fields.size() == 1 ? "" : "s");
    return false;
  }
  Fault parsed;
  if (fields[0] == "exit")
    parsed.kind = FaultKind::Exit;
  else if (fields[0] == "hang")
    parsed.kind = FaultKind::Hang;
  else if (fields[0] == "corrupt")
    parsed.kind = FaultKind::Corrupt;
  else {
    why = "unknown kind '" + fields[0] + "'";
    return false;
  }
  int64_t rank = 0, op = 0;
  if (!parseCount(fields[1], rank)) {
    why = "RANK '" + fields[1] + "' is not an integer >= 0";
    return false;
  }
  if (rank >= worldSize) {
    why = format("RANK %lld is outside the world of %d ranks",
                 static_cast<long long>(rank), worldSize);
    return false;
  }
  if (fields[2] == "init" || fields[2] == "create") {
    if (parsed.kind == FaultKind::Corrupt) {
      why = "corrupt flips bits an operation sends, so its OP must be the "
            "index of an operation, not '" +
            fields[2] + "'";
      return false;
    }
    parsed.point = fields[2] == "init" ? FaultPoint::Init : FaultPoint::Create;
  } else if (!parseCount(fields[2], op)) {
    why = "OP '" + fields[2] +
          "' is neither an integer >= 0 nor 'init' or 'create'";
    return false;
  }
  parsed.rank = static_cast<int>(rank);
  parsed.op = static_cast<uint64_t>(op);
  fault = parsed;
  return true;
}

namespace {
/// Exits or stops this rank for the fault \p kind, saying so after
/// \p where; returns for the other kinds.
void failNow(FaultKind kind, const std::string &where) {
  switch (kind) {
  case FaultKind::Exit:
    std::fprintf(stderr, "%s: exiting without MPI_Finalize\n", where.c_str());
    std::fflush(stderr);
    std::fflush(stdout);
    _exit(1);
  case FaultKind::Hang:
    std::fprintf(stderr, "%s: stopping for good\n", where.c_str());
    std::fflush(stderr);
    std::fflush(stdout);
    for (;;)
      pause();
  case FaultKind::Corrupt:
  case FaultKind::None:
    break;
  }
}
} // namespace

void commrt::warnUnstruckFault(const commrt_context *ctx) {
  const Fault &fault = ctx->fault;
  if (fault.kind == FaultKind::None || fault.rank != ctx->rank || fault.struck)
    return;
  std::string spec = format("%s:%d:", faultName(fault.kind), fault.rank);
  std::string why;
  if (fault.point == FaultPoint::Create) {
    spec += "create";
    why = "this rank created no group";
  } else {
    spec += std::to_string(fault.op);
    why = format("this rank posted %llu operation(s), numbered from 0",
                 static_cast<unsigned long long>(ctx->posted));
  }
  std::fprintf(stderr,
               "[commrt rank %d] warning: COMMRT_INJECT=%s never struck: "
               "%s\n",
               ctx->rank, spec.c_str(), why.c_str());
}

void commrt::injectSetupFault(commrt_context *ctx, FaultPoint point,
                              const std::string &what) {
  const Fault &fault = ctx->fault;
  if (fault.kind == FaultKind::None || fault.point != point ||
      fault.rank != ctx->rank)
    return;
  ctx->fault.struck = true;
  const char *op = point == FaultPoint::Init ? "init" : "create";
  failNow(fault.kind,
          format("[commrt rank %d] COMMRT_INJECT=%s:%d:%s: %s", ctx->rank,
                 faultName(fault.kind), fault.rank, op, what.c_str()));
}

commrt_status commrt::injectFault(commrt_context *ctx, uint64_t index,
                                  OpArgs &args, std::vector<char> &copy) {
  const Fault &fault = ctx->fault;
  if (fault.kind == FaultKind::None || fault.point != FaultPoint::Operation ||
      fault.rank != ctx->rank || fault.op != index)
    return COMMRT_SUCCESS;
  std::string where =
      format("[commrt rank %d] COMMRT_INJECT=%s:%d:%llu: operation #%llu (%s)",
             ctx->rank, faultName(fault.kind), fault.rank,
             static_cast<unsigned long long>(fault.op),
             static_cast<unsigned long long>(index), describe(args).c_str());
  ctx->fault.struck = true;
  failNow(fault.kind, where);
  if (fault.kind != FaultKind::Corrupt)
    return COMMRT_SUCCESS;
  size_t bytes = 0;
  const void *data = sentBytes(ctx, args, bytes);
  if (!data || !bytes) {
    std::fprintf(stderr,
                 "%s: sends no data from this rank; nothing to "
                 "corrupt\n",
                 where.c_str());
    return COMMRT_SUCCESS;
  }
  if (isGpuMemory(ctx, data))
    return setError(COMMRT_ERROR_UNAVAILABLE,
                    "COMMRT_INJECT=corrupt flips bits in host buffers only, "
                    "and this send buffer is GPU memory");
  copy.assign(static_cast<const char *>(data),
              static_cast<const char *>(data) + bytes);
  copy[bytes / 2] ^= 1;
  args.send = copy.data();
  std::fprintf(stderr,
               "%s: flipped bit 0 of byte %zu of the %zu bytes it "
               "sends\n",
               where.c_str(), bytes / 2, bytes);
  return COMMRT_SUCCESS;
}

//===----------------------------------------------------------------------===//
// Checksums
//===----------------------------------------------------------------------===//

uint64_t commrt::checksum(const void *data, size_t bytes) {
  constexpr uint64_t prime = 1099511628211ull;
  // Four lanes (words 4k, 4k+1, ...) so that the multiplications overlap.
  uint64_t h[4] = {1469598103934665603ull ^ bytes, 0x9e3779b97f4a7c15ull,
                   0xc2b2ae3d27d4eb4full, 0x165667b19e3779f9ull};
  const auto *p = static_cast<const unsigned char *>(data);
  size_t words = bytes / 8, i = 0;
  // Each step (h ^ w) * odd is a bijection of h for a given word, so a
  // change confined to one word always changes its lane, and the xor of
  // the lanes below.
  for (; i + 4 <= words; i += 4)
    for (int l = 0; l < 4; ++l) {
      uint64_t w;
      std::memcpy(&w, p + 8 * (i + l), 8);
      h[l] = (h[l] ^ w) * prime;
    }
  for (; i < words; ++i) {
    uint64_t w;
    std::memcpy(&w, p + 8 * i, 8);
    h[0] = (h[0] ^ w) * prime;
  }
  for (size_t j = 8 * words; j < bytes; ++j)
    h[0] = (h[0] ^ p[j]) * prime;
  // The multiplications carry low bits upwards only; mix the high ones down
  // (a bijection too).
  uint64_t out = 0;
  for (int l = 0; l < 4; ++l) {
    uint64_t x = h[l];
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    out ^= x;
  }
  return out;
}

namespace {

/// An operation of the mpi backend plus the exchange of its checksums.
/// Completes when both did, then compares.
class ChecksumRequest : public commrt_request {
public:
  ChecksumRequest(commrt_context *ctx, const OpArgs &args,
                  std::unique_ptr<commrt_request> inner)
      : commrt_request(ctx, args), inner(std::move(inner)) {}

  commrt_status poll(bool &done) override {
    done = false;
    if (!innerDone) {
      if (commrt_status s = inner->poll(innerDone))
        return s;
      if (!innerDone)
        return COMMRT_SUCCESS;
    }
    int flag = 1;
    if (!requests.empty()) {
      int err = MPI_Testall(static_cast<int>(requests.size()), requests.data(),
                            &flag, MPI_STATUSES_IGNORE);
      if (err != MPI_SUCCESS)
        return setError(COMMRT_ERROR_BACKEND,
                        "checksum exchange: " +
                            mpiErrorString("MPI_Testall", err));
    }
    if (!flag)
      return COMMRT_SUCCESS;
    if (commrt_status s = verify())
      return s;
    done = true;
    return COMMRT_SUCCESS;
  }

  void abandon() override { inner->abandon(); }

  /// Sends \p sum (kept in this request) to \p peer.
  int send(uint64_t sum, int peer, int tag, MPI_Comm comm) {
    sent.push_back(sum);
    requests.push_back(MPI_REQUEST_NULL);
    return MPI_Isend(&sent.back(), 1, MPI_UINT64_T, peer, tag, comm,
                     &requests.back());
  }

  /// Receives a sum from \p peer into received[slot].
  int receive(size_t slot, int peer, int tag, MPI_Comm comm) {
    requests.push_back(MPI_REQUEST_NULL);
    return MPI_Irecv(&received[slot], 1, MPI_UINT64_T, peer, tag, comm,
                     &requests.back());
  }

  std::unique_ptr<commrt_request> inner;
  bool innerDone = false;
  std::vector<MPI_Request> requests;
  /// Reserved up front: MPI holds pointers into both.
  std::vector<uint64_t> sent, received;
  /// Broadcast root: the checksum of its input.
  uint64_t rootInput = 0;

private:
  commrt_status corrupted(const std::string &what) {
    return setError(COMMRT_ERROR_BACKEND,
                    "payload corrupted (COMMRT_DEBUG=checksum): " + what);
  }

  commrt_status verify() {
    size_t block =
        static_cast<size_t>(args.count) * commrt_dtype_size(args.dtype);
    switch (args.kind) {
    case OpKind::Recv: {
      uint64_t got = checksum(args.recv, block);
      if (got != received[0])
        return corrupted(format("the %zu bytes received from rank %d (tag "
                                "%d) on rank %d have checksum %016llx, but "
                                "rank %d sent data with checksum %016llx",
                                block, args.peer, args.tag, ctx->rank,
                                static_cast<unsigned long long>(got), args.peer,
                                static_cast<unsigned long long>(received[0])));
      return COMMRT_SUCCESS;
    }
    case OpKind::Permute: {
      if (args.recvFrom < 0)
        return COMMRT_SUCCESS;
      uint64_t got = checksum(args.recv, block);
      if (got != received[0])
        return corrupted(format("the %zu bytes received from rank %d on rank "
                                "%d have checksum %016llx, but rank %d sent "
                                "data with checksum %016llx",
                                block, args.recvFrom, ctx->rank,
                                static_cast<unsigned long long>(got),
                                args.recvFrom,
                                static_cast<unsigned long long>(received[0])));
      return COMMRT_SUCCESS;
    }
    case OpKind::Broadcast: {
      commrt_comm *comm = args.comm;
      uint64_t want = comm->position == args.root ? rootInput : received[0];
      uint64_t got = checksum(args.recv, block);
      if (got != want)
        return corrupted(format(
            "the %zu-byte result on rank %d has checksum %016llx, but the "
            "root, rank %d, broadcast data with checksum %016llx",
            block, ctx->rank, static_cast<unsigned long long>(got),
            comm->ranks[static_cast<size_t>(args.root)],
            static_cast<unsigned long long>(want)));
      return COMMRT_SUCCESS;
    }
    case OpKind::AllGather:
    case OpKind::AllToAll: {
      // Block j of the result came from position j, which sent the
      // checksum of what it sent here.
      const char *what = args.kind == OpKind::AllGather ? "the chunk of rank"
                                                        : "the block from rank";
      commrt_comm *comm = args.comm;
      std::string bad;
      for (size_t j = 0; j < comm->ranks.size(); ++j) {
        uint64_t got =
            checksum(static_cast<const char *>(args.recv) + j * block, block);
        if (got == received[j])
          continue;
        bad += format("%s%s %d has checksum %016llx here, but rank %d sent "
                      "data with checksum %016llx",
                      bad.empty() ? "" : "; ", what, comm->ranks[j],
                      static_cast<unsigned long long>(got), comm->ranks[j],
                      static_cast<unsigned long long>(received[j]));
      }
      if (!bad.empty())
        return corrupted(format("on rank %d, ", ctx->rank) + bad);
      return COMMRT_SUCCESS;
    }
    default:
      return COMMRT_SUCCESS;
    }
  }
};

} // namespace

std::vector<uint64_t> commrt::sentChecksums(const commrt_context *ctx,
                                            const OpArgs &args) {
  if (!ctx->debugChecksum)
    return {};
  size_t block =
      static_cast<size_t>(args.count) * commrt_dtype_size(args.dtype);
  switch (args.kind) {
  case OpKind::Send:
  case OpKind::AllGather:
    return {checksum(args.send, block)};
  case OpKind::Permute:
    if (args.sendTo < 0)
      return {};
    return {checksum(args.send, block)};
  case OpKind::Broadcast:
    if (args.comm->position != args.root)
      return {};
    return {checksum(args.send, block)};
  case OpKind::AllToAll: {
    std::vector<uint64_t> sums;
    for (size_t p = 0; p < args.comm->ranks.size(); ++p)
      sums.push_back(
          checksum(static_cast<const char *>(args.send) + p * block, block));
    return sums;
  }
  default:
    return {};
  }
}

commrt_status commrt::addChecksum(commrt_context *ctx, const OpArgs &args,
                                  const std::vector<uint64_t> &sent,
                                  std::unique_ptr<commrt_request> &req) {
  if (!ctx->debugChecksum)
    return COMMRT_SUCCESS;
  size_t group = args.comm ? args.comm->ranks.size() : 1;
  auto check = std::make_unique<ChecksumRequest>(ctx, args, nullptr);
  ChecksumRequest &c = *check;
  c.sent.reserve(group);
  c.received.assign(group, 0);
  int err = MPI_SUCCESS;
  // Point to point on its own communicator with the same tag: MPI keeps
  // the order of messages between two ranks with one tag, so the i-th
  // checksum goes with the i-th transfer.
  switch (args.kind) {
  case OpKind::Send:
    err = c.send(sent[0], args.peer, args.tag, ctx->checkP2p);
    break;
  case OpKind::Recv:
    err = c.receive(0, args.peer, args.tag, ctx->checkP2p);
    break;
  case OpKind::Permute:
    if (args.recvFrom >= 0)
      err = c.receive(0, args.recvFrom, 0, ctx->checkPermute);
    if (err == MPI_SUCCESS && args.sendTo >= 0)
      err = c.send(sent[0], args.sendTo, 0, ctx->checkPermute);
    break;
  case OpKind::Broadcast: {
    // The root sends the checksum of its input to every member; each
    // compares it with the checksum of its result.
    commrt_comm *comm = args.comm;
    if (comm->position == args.root) {
      c.rootInput = sent[0];
      for (size_t p = 0; p < group && err == MPI_SUCCESS; ++p)
        if (static_cast<int>(p) != comm->position)
          err = c.send(c.rootInput, static_cast<int>(p), 0, comm->checks);
    } else {
      err = c.receive(0, args.root, 0, comm->checks);
    }
    break;
  }
  case OpKind::AllGather: {
    // Every member sends the checksum of its chunk to every other.
    commrt_comm *comm = args.comm;
    uint64_t mine = sent[0];
    c.received[static_cast<size_t>(comm->position)] = mine;
    for (size_t p = 0; p < group && err == MPI_SUCCESS; ++p)
      if (static_cast<int>(p) != comm->position)
        err = c.receive(p, static_cast<int>(p), 1, comm->checks);
    for (size_t p = 0; p < group && err == MPI_SUCCESS; ++p)
      if (static_cast<int>(p) != comm->position)
        err = c.send(mine, static_cast<int>(p), 1, comm->checks);
    break;
  }
  case OpKind::AllToAll: {
    // Every member sends each other member the checksum of the block it
    // sends it; its own block is copied locally and checked too.
    commrt_comm *comm = args.comm;
    size_t me = static_cast<size_t>(comm->position);
    c.received[me] = sent[me];
    for (size_t p = 0; p < group && err == MPI_SUCCESS; ++p)
      if (p != me)
        err = c.receive(p, static_cast<int>(p), 2, comm->checks);
    for (size_t p = 0; p < group && err == MPI_SUCCESS; ++p)
      if (p != me)
        err = c.send(sent[p], static_cast<int>(p), 2, comm->checks);
    break;
  }
  default:
    // Reductions change the data on the way: a checksum of the inputs says
    // nothing about the result. Barriers carry none.
    return COMMRT_SUCCESS;
  }
  if (err != MPI_SUCCESS) {
    // The operation itself is started: give it up like a failed one.
    req->abandon();
    ctx->pendingMpi = true;
    ctx->abandoned.push_back(std::move(req));
    return setError(COMMRT_ERROR_BACKEND,
                    "checksum exchange: " +
                        mpiErrorString("MPI_Isend/MPI_Irecv", err));
  }
  c.inner = std::move(req);
  c.sequence = c.inner->sequence;
  req = std::move(check);
  return COMMRT_SUCCESS;
}
