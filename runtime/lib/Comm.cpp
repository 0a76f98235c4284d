//===- lib/Comm.cpp - Communicators of replica groups -----------*- C++ -*-===//
//
// Part of the comm project: a compiler for communication between GPUs.
//
//===----------------------------------------------------------------------===//
//
// commrt_comm_create turns XLA-style replica groups into the communicator of
// the calling rank's group: validate, check that every rank passed the same
// groups, MPI_Comm_split by group, let the backend build its own
// communicator on top, agree on the outcome, cache.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include <algorithm>

using namespace commrt;

std::string commrt::groupName(const std::vector<int> &ranks) {
  std::string out = "[";
  auto add = [&](const std::string &item) {
    if (out.size() > 1)
      out += ", ";
    out += item;
  };
  size_t n = ranks.size();
  for (size_t i = 0; i < n; ++i) {
    if (n > 16 && i == 8) {
      add("...");
      i = n - 4;
    }
    add(std::to_string(ranks[i]));
  }
  out += "]";
  if (n > 16)
    out += format(" (%zu ranks)", n);
  return out;
}

namespace {

commrt_status invalid(const std::string &what) {
  return setError(COMMRT_ERROR_INVALID_ARGUMENT,
                  "commrt: commrt_comm_create: " + what);
}

/// FNV-1a over the groups, to check that all ranks passed the same.
uint64_t hashGroups(const std::vector<int64_t> &ranks, int64_t groupSize) {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&](uint64_t v) {
    for (int i = 0; i < 8; ++i) {
      h ^= (v >> (8 * i)) & 0xff;
      h *= 1099511628211ull;
    }
  };
  mix(static_cast<uint64_t>(groupSize));
  mix(ranks.size());
  for (int64_t r : ranks)
    mix(static_cast<uint64_t>(r));
  return h;
}

/// Duplicates the communicator of \p comm into \p out, for \p what.
commrt_status dupGroup(commrt_context *ctx, commrt_comm *comm, MPI_Comm &out,
                       const char *what) {
  MPI_Request req;
  int err = MPI_Comm_idup(comm->mpi, &out, &req);
  if (err != MPI_SUCCESS)
    return setError(COMMRT_ERROR_BACKEND,
                    mpiErrorString("MPI_Comm_idup", err) + " (" + what + ")");
  // A step of the comm_create, which ends in the world's next operation
  // (every rank agrees on the outcome).
  if (commrt_status s = waitExchange(ctx, &req, comm->mpi,
                                     "comm_create of group " + comm->name +
                                         " (duplicating it for " + what + ")",
                                     nextWorldOperation(ctx))) {
    out = MPI_COMM_NULL;
    return s;
  }
  MPI_Comm_set_errhandler(out, MPI_ERRORS_RETURN);
  return COMMRT_SUCCESS;
}

commrt_status createComm(commrt_context *ctx, const int64_t *ranks,
                         int64_t numRanks, int64_t groupSize,
                         commrt_comm **out) {
  if (!ctx)
    return invalid("ctx is NULL");
  if (!out)
    return invalid("out is NULL");
  *out = nullptr;
  if (numRanks <= 0)
    return invalid(format("num_ranks %lld must be positive",
                          static_cast<long long>(numRanks)));
  if (!ranks)
    return invalid("ranks is NULL");
  if (groupSize <= 0 || numRanks % groupSize != 0)
    return invalid(format("group_size %lld does not divide num_ranks %lld "
                          "into whole groups",
                          static_cast<long long>(groupSize),
                          static_cast<long long>(numRanks)));
  if (numRanks > ctx->size)
    return invalid(format("%lld ranks given but the world has %d",
                          static_cast<long long>(numRanks), ctx->size));
  std::vector<int> seenAt(static_cast<size_t>(ctx->size), -1);
  for (int64_t i = 0; i < numRanks; ++i) {
    if (ranks[i] < 0 || ranks[i] >= ctx->size)
      return invalid(format("rank %lld (entry %lld) is outside the world of "
                            "%d ranks",
                            static_cast<long long>(ranks[i]),
                            static_cast<long long>(i), ctx->size));
    int &seen = seenAt[static_cast<size_t>(ranks[i])];
    if (seen >= 0)
      return invalid(format("rank %lld appears twice (entries %d and %lld)",
                            static_cast<long long>(ranks[i]), seen,
                            static_cast<long long>(i)));
    seen = static_cast<int>(i);
  }

  std::vector<int64_t> key(ranks, ranks + numRanks);
  auto cached = ctx->cache.find({key, groupSize});
  if (cached != ctx->cache.end()) {
    commrt_comm *comm = cached->second;
    if (comm)
      ++comm->references;
    *out = comm;
    return COMMRT_SUCCESS;
  }

  // Where this rank is: group index (color) and position (key).
  int where = seenAt[static_cast<size_t>(ctx->rank)];
  int color = where < 0 ? MPI_UNDEFINED : static_cast<int>(where / groupSize);
  int position = where < 0 ? -1 : static_cast<int>(where % groupSize);
  std::vector<int> members;
  if (where >= 0) {
    int64_t first = static_cast<int64_t>(color) * groupSize;
    for (int64_t i = 0; i < groupSize; ++i)
      members.push_back(static_cast<int>(ranks[first + i]));
  }
  std::string what =
      where >= 0 ? format("comm_create of group %s", groupName(members).c_str())
                 : std::string("comm_create (this rank is in no group)");

  // Every rank must pass the same groups, or the split below would pair
  // ranks that disagree: compare hashes (max of h and of ~h).
  uint64_t h = hashGroups(key, groupSize);
  unsigned long long mine[2] = {h, ~h}, all[2] = {0, 0};
  if (commrt_status s = allreduceMpi(ctx, mine, all, 2, MPI_UNSIGNED_LONG_LONG,
                                     MPI_MAX, ctx->world,
                                     what + " (checking that all ranks passed "
                                            "the same groups)"))
    return s;
  if (all[0] != h || ~all[1] != h)
    return raise(ctx, COMMRT_ERROR_INVALID_ARGUMENT,
                 format("commrt: commrt_comm_create: ranks passed different "
                        "groups (rank %d passed %lld ranks in groups of %lld); "
                        "every rank of the world must pass the same groups",
                        ctx->rank, static_cast<long long>(numRanks),
                        static_cast<long long>(groupSize)));

  MPI_Comm split = MPI_COMM_NULL;
  int err = MPI_Comm_split(ctx->world, color, position, &split);
  if (err != MPI_SUCCESS)
    return raise(ctx, COMMRT_ERROR_BACKEND,
                 format("commrt: %s on rank %d: %s", what.c_str(), ctx->rank,
                        mpiErrorString("MPI_Comm_split", err).c_str()));

  std::unique_ptr<commrt_comm> comm;
  commrt_status local = COMMRT_SUCCESS;
  if (where >= 0) {
    MPI_Comm_set_errhandler(split, MPI_ERRORS_RETURN);
    comm = std::make_unique<commrt_comm>();
    comm->ctx = ctx;
    comm->ranks = members;
    comm->position = position;
    comm->name = groupName(members);
    comm->mpi = split;
    // The group and the count of communicators created before it (the same
    // on every rank): two layouts may both hold a group of these ranks.
    std::vector<int64_t> world(members.begin(), members.end());
    world.push_back(-1 - static_cast<int64_t>(ctx->created));
    comm->id = hashGroups(world, static_cast<int64_t>(members.size()));
    injectSetupFault(ctx, FaultPoint::Create,
                     what + ", before the backend creates its communicator");
    local = ctx->backend->createComm(comm.get());
    if (!local && ctx->debugChecksum)
      // COMMRT_DEBUG=checksum: the checksums of broadcast, all_gather and
      // all_to_all.
      local = dupGroup(ctx, comm.get(), comm->checks, "checksums");
    if (!local && (ctx->validate || ctx->debugDesync))
      local = dupGroup(ctx, comm.get(), comm->fingerprints, "fingerprints");
    if (local)
      setError(local, format("commrt: %s on rank %d: %s", what.c_str(),
                             ctx->rank, lastError().c_str()));
  }
  commrt_status status = agree(ctx, local, ctx->world, what);
  if (status) {
    if (comm) {
      if (!local)
        ctx->backend->destroyComm(comm.get());
      for (MPI_Comm *c : {&comm->checks, &comm->fingerprints})
        if (*c != MPI_COMM_NULL)
          MPI_Comm_free(c);
      MPI_Comm_free(&comm->mpi);
    }
    // A local failure was not raised yet: apply the policy now.
    return local ? raise(ctx, local, lastError()) : status;
  }

  ++ctx->created;
  commrt_comm *handle = comm.get();
  if (comm) {
    comm->references = 1;
    ctx->comms.push_back(std::move(comm));
  }
  ctx->cache[{std::move(key), groupSize}] = handle;
  trace(ctx, 1, "%s: %s", what.c_str(),
        handle ? format("position %d", position).c_str() : "no communicator");
  *out = handle;
  return COMMRT_SUCCESS;
}

commrt_status checkComm(const char *fn, commrt_comm *comm) {
  if (!comm)
    return setError(COMMRT_ERROR_INVALID_ARGUMENT,
                    std::string("commrt: ") + fn + ": comm is NULL");
  return COMMRT_SUCCESS;
}

} // namespace

extern "C" commrt_status
commrt_comm_create(commrt_context *ctx, const int64_t *ranks, int64_t num_ranks,
                   int64_t group_size, commrt_comm **out) {
  return guard("commrt_comm_create", [&] {
    return createComm(ctx, ranks, num_ranks, group_size, out);
  });
}

extern "C" commrt_status commrt_comm_rank(commrt_comm *comm, int64_t *rank) {
  if (commrt_status s = checkComm("commrt_comm_rank", comm))
    return s;
  if (!rank)
    return setError(COMMRT_ERROR_INVALID_ARGUMENT,
                    "commrt: commrt_comm_rank: rank is NULL");
  *rank = comm->position;
  return COMMRT_SUCCESS;
}

extern "C" commrt_status commrt_comm_size(commrt_comm *comm, int64_t *size) {
  if (commrt_status s = checkComm("commrt_comm_size", comm))
    return s;
  if (!size)
    return setError(COMMRT_ERROR_INVALID_ARGUMENT,
                    "commrt: commrt_comm_size: size is NULL");
  *size = static_cast<int64_t>(comm->ranks.size());
  return COMMRT_SUCCESS;
}

extern "C" commrt_status
commrt_comm_world_rank(commrt_comm *comm, int64_t index, int64_t *world_rank) {
  if (commrt_status s = checkComm("commrt_comm_world_rank", comm))
    return s;
  if (!world_rank)
    return setError(COMMRT_ERROR_INVALID_ARGUMENT,
                    "commrt: commrt_comm_world_rank: world_rank is NULL");
  if (index < 0 || index >= static_cast<int64_t>(comm->ranks.size()))
    return setError(COMMRT_ERROR_INVALID_ARGUMENT,
                    format("commrt: commrt_comm_world_rank: index %lld is "
                           "outside group %s",
                           static_cast<long long>(index), comm->name.c_str()));
  *world_rank = comm->ranks[static_cast<size_t>(index)];
  return COMMRT_SUCCESS;
}

extern "C" commrt_status commrt_comm_destroy(commrt_comm *comm) {
  if (!comm)
    return COMMRT_SUCCESS;
  if (comm->references <= 0)
    return setError(COMMRT_ERROR_INVALID_STATE,
                    format("commrt: commrt_comm_destroy: the communicator of "
                           "group %s was already destroyed",
                           comm->name.c_str()));
  --comm->references;
  return COMMRT_SUCCESS;
}
