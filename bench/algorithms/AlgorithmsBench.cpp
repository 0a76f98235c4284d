//===- bench/algorithms/AlgorithmsBench.cpp - Planned schedules -*- C++ -*-===//
//
// Part of the comm project: a compiler for communication between GPUs.
//
//===----------------------------------------------------------------------===//
//
// comm-bench-algorithms: times f32 collectives (all_reduce, reduce_scatter,
// all_gather, broadcast, reduce; sums) run as the runtime's planned
// schedules (commrt_collective_planned: ring, tree, direct,
// halving-doubling, hierarchical; with channels and chunks) side by side
// with the backend's own collective (the default plan: MPI's on the mpi
// backend) on the same buffers, in one run. Prints, per collective and size,
// the median over the rounds of the slowest rank's time and the ratio to
// the default. Every result is compared with the default's. Run with
//   mpirun -np 4 --oversubscribe build/bin/comm-bench-algorithms
//
//===----------------------------------------------------------------------===//

#include "comm/CostModel/CostModel.h"
#include "commrt.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mpi.h>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

struct Variant {
  const char *name;
  commrt_plan plan;
};

struct Collective {
  const char *name;
  commrt_collective kind;
  const char *profileKind; ///< its CollectiveKind in HostProfile.cpp
  mlir::comm::CollectiveKind modelKind;
};

const Collective kCollectives[] = {
    {"all_reduce", COMMRT_COLLECTIVE_ALL_REDUCE, "AllReduce",
     mlir::comm::CollectiveKind::AllReduce},
    {"reduce_scatter", COMMRT_COLLECTIVE_REDUCE_SCATTER, "ReduceScatter",
     mlir::comm::CollectiveKind::ReduceScatter},
    {"all_gather", COMMRT_COLLECTIVE_ALL_GATHER, "AllGather",
     mlir::comm::CollectiveKind::AllGather},
    {"broadcast", COMMRT_COLLECTIVE_BROADCAST, "Broadcast",
     mlir::comm::CollectiveKind::Broadcast},
    {"reduce", COMMRT_COLLECTIVE_REDUCE, "Reduce",
     mlir::comm::CollectiveKind::Reduce},
};

/// "4 KiB", "1 MiB".
std::string formatSize(int64_t bytes) {
  if (bytes >= (1 << 20))
    return std::to_string(bytes >> 20) + " MiB";
  if (bytes >= (1 << 10))
    return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " B";
}

void usage(FILE *out) {
  std::fprintf(
      out,
      "usage: mpirun -np N comm-bench-algorithms [--rounds R] "
      "[--collective NAME]... [--profile [--write-params FILE]]\n"
      "Times the runtime's planned schedules (ring, tree, direct,\n"
      "halving_doubling, hierarchical; channels and chunks) against the\n"
      "backend's own collective at 4 KiB, 1 MiB and 64 MiB (the larger\n"
      "buffer), f32 sums, and checks every result against the default's.\n"
      "  --rounds R          median of R timed rounds after one warm-up "
      "(default 20)\n"
      "  --collective NAME   all_reduce (default), reduce_scatter, "
      "all_gather,\n"
      "                      broadcast, reduce or all; may repeat\n"
      "  --profile           the host profile comm plans with: every\n"
      "                      schedule without channels or chunks at 256 "
      "B,\n"
      "                      1, 4 and 64 KiB, 1, 4, 16 and 64 MiB, then "
      "the\n"
      "                      rows of lib/CostModel/HostProfile.cpp (calls\n"
      "                      of up to 1 MiB timed back to back, 32 at "
      "most)\n"
      "  --write-params FILE with --profile: write a cost-model parameters\n"
      "                      file holding this machine's profile; plan for\n"
      "                      it with --cost-params FILE (comm-opt's\n"
      "                      comm-plan option, comm-compile, comm-sim)\n"
      "Environment: COMMRT_NODE_SIZE=k makes k consecutive ranks a node "
      "(for\n"
      "hierarchical on one machine).\n");
}

double now() {
  return std::chrono::duration<double, std::micro>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void fail(const char *what) {
  std::fprintf(stderr, "comm-bench-algorithms: %s: %s\n", what,
               commrt_last_error());
  std::exit(1);
}

/// Writes the default parameters with `profile` as the host profile, for
/// --cost-params.
int writeParams(const char *path, mlir::comm::HostProfile profile,
                int64_t ranks, int rounds) {
  char host[256] = "unknown";
  gethostname(host, sizeof host - 1);
  std::time_t t = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&t));
  profile.source = "comm-bench-algorithms --profile on " + std::string(host) +
                   ", " + std::to_string(ranks) + " ranks, median of " +
                   std::to_string(rounds) + " rounds, " + date;
  mlir::comm::CostParams params = mlir::comm::getDefaultCostParams();
  params.hostProfile =
      std::make_shared<const mlir::comm::HostProfile>(std::move(profile));
  std::error_code error;
  llvm::raw_fd_ostream os(path, error, llvm::sys::fs::OF_Text);
  if (error) {
    std::fprintf(stderr, "comm-bench-algorithms: cannot write '%s': %s\n", path,
                 error.message().c_str());
    return 1;
  }
  os << "# Cost model parameters with this machine's host profile, written\n"
        "# by comm-bench-algorithms --profile --write-params; plan with\n"
        "# --cost-params "
     << path << "\n";
  mlir::comm::printCostParams(params, os);
  std::printf("wrote the host profile to %s (plan with --cost-params %s)\n",
              path, path);
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  int rounds = 20;
  bool profile = false;
  const char *paramsPath = nullptr;
  std::vector<Collective> chosen;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--rounds") && i + 1 < argc) {
      rounds = std::max(1, std::atoi(argv[++i]));
    } else if (!std::strcmp(argv[i], "--collective") && i + 1 < argc) {
      const char *name = argv[++i];
      bool all = !std::strcmp(name, "all"), found = all;
      for (const Collective &c : kCollectives)
        if (all || !std::strcmp(name, c.name)) {
          chosen.push_back(c);
          found = true;
        }
      if (!found) {
        std::fprintf(stderr,
                     "comm-bench-algorithms: unknown collective '%s' "
                     "(expected all_reduce, reduce_scatter, all_gather, "
                     "broadcast, reduce or all)\n",
                     name);
        return 2;
      }
    } else if (!std::strcmp(argv[i], "--profile")) {
      profile = true;
    } else if (!std::strcmp(argv[i], "--write-params") && i + 1 < argc) {
      paramsPath = argv[++i];
    } else if (!std::strcmp(argv[i], "--help")) {
      usage(stdout);
      return 0;
    } else {
      std::fprintf(stderr, "comm-bench-algorithms: unknown argument '%s'\n",
                   argv[i]);
      usage(stderr);
      return 2;
    }
  }
  if (paramsPath && !profile) {
    std::fprintf(stderr, "comm-bench-algorithms: --write-params needs "
                         "--profile (it writes the profile's rows)\n");
    return 2;
  }
  if (chosen.empty())
    chosen.push_back(kCollectives[0]);
  commrt_options opts;
  commrt_options_default(&opts);
  opts.backend = COMMRT_BACKEND_MPI;
  commrt_context *ctx = nullptr;
  if (commrt_init(&argc, &argv, &opts, &ctx))
    fail("commrt_init");
  int64_t rank = 0, size = 0;
  commrt_rank(ctx, &rank);
  commrt_world_size(ctx, &size);
  std::vector<int64_t> ranks;
  for (int64_t r = 0; r < size; ++r)
    ranks.push_back(r);
  commrt_comm *comm = nullptr;
  if (commrt_comm_create(ctx, ranks.data(), size, size, &comm))
    fail("commrt_comm_create");

  std::vector<Variant> variants = {
      {"default (MPI)", {COMMRT_ALGORITHM_DEFAULT, 0, 0}},
      {"ring", {COMMRT_ALGORITHM_RING, 1, 0}},
      {"ring 2ch 1MiB", {COMMRT_ALGORITHM_RING, 2, 1 << 20}},
      {"tree", {COMMRT_ALGORITHM_TREE, 1, 0}},
      {"tree 256KiB", {COMMRT_ALGORITHM_TREE, 1, 256 << 10}},
      {"direct", {COMMRT_ALGORITHM_DIRECT, 1, 0}},
      {"halving_doubling", {COMMRT_ALGORITHM_HALVING_DOUBLING, 1, 0}},
      {"hierarchical", {COMMRT_ALGORITHM_HIERARCHICAL, 1, 0}},
  };
  std::vector<int64_t> sizes = {4 << 10, 1 << 20, 64 << 20};
  if (profile)
    sizes = {256,     1 << 10, 4 << 10,  64 << 10,
             1 << 20, 4 << 20, 16 << 20, 64 << 20};
  std::string profileRows;
  mlir::comm::HostProfile measured;
  measured.ranks = static_cast<unsigned>(size);
  measured.bytes.assign(sizes.begin(), sizes.end());
  for (const Collective &c : chosen) {
    bool blocked = c.kind == COMMRT_COLLECTIVE_REDUCE_SCATTER ||
                   c.kind == COMMRT_COLLECTIVE_ALL_GATHER;
    std::vector<const Variant *> used;
    for (const Variant &v : variants)
      if ((!blocked || v.plan.algorithm != COMMRT_ALGORITHM_TREE) &&
          (!profile || (v.plan.channels <= 1 && v.plan.chunk_bytes == 0)))
        used.push_back(&v);
    if (rank == 0) {
      std::printf("planned %s, f32 sum, %lld ranks, median of %d rounds "
                  "(slowest rank)\n%-18s",
                  c.name, static_cast<long long>(size), rounds, "variant");
      for (int64_t bytes : sizes)
        std::printf(" %12s", formatSize(bytes).c_str());
      std::printf("\n");
    }
    std::vector<std::vector<double>> table(used.size());
    for (int64_t bytes : sizes) {
      // `count` is the element count commrt takes: the smaller buffer's
      // for reduce_scatter and all_gather.
      int64_t total = bytes / 4, count = blocked ? total / size : total;
      int64_t sendCount =
          c.kind == COMMRT_COLLECTIVE_ALL_GATHER ? count : total;
      int64_t recvCount =
          c.kind == COMMRT_COLLECTIVE_REDUCE_SCATTER ? count : total;
      std::vector<float> send(static_cast<size_t>(sendCount)),
          recv(static_cast<size_t>(recvCount)), want;
      for (int64_t i = 0; i < sendCount; ++i)
        send[static_cast<size_t>(i)] = static_cast<float>((i + rank) % 13);
      for (size_t v = 0; v < used.size(); ++v) {
        std::vector<double> times;
        // The profile times small collectives back to back, as a program
        // runs them (after one barrier per round, not one per call, whose
        // exit skew would be charged to every call): up to 32 calls of up
        // to 1 MiB in all per round.
        int reps = profile ? static_cast<int>(std::clamp<int64_t>(
                                 (int64_t(1) << 20) / bytes, 1, 32))
                           : 1;
        for (int r = 0; r < rounds + 1; ++r) {
          // Reduce leaves non-roots' buffers as they were: start each round
          // from the same state.
          std::fill(recv.begin(), recv.end(), -1.0f);
          MPI_Barrier(MPI_COMM_WORLD);
          double t0 = now();
          for (int k = 0; k < reps; ++k)
            if (commrt_collective_planned(
                    comm, c.kind, send.data(), recv.data(), count, COMMRT_F32,
                    COMMRT_SUM, 0, &used[v]->plan, nullptr, nullptr))
              fail(used[v]->name);
          double local = (now() - t0) / reps, slowest = 0;
          MPI_Allreduce(&local, &slowest, 1, MPI_DOUBLE, MPI_MAX,
                        MPI_COMM_WORLD);
          if (r > 0) // The first round warms up.
            times.push_back(slowest);
        }
        if (v == 0) {
          want = recv;
        } else if (recv != want) {
          std::fprintf(stderr,
                       "comm-bench-algorithms: %s %s differs from the "
                       "default at %lld bytes on rank %lld\n",
                       c.name, used[v]->name, static_cast<long long>(bytes),
                       static_cast<long long>(rank));
          MPI_Abort(MPI_COMM_WORLD, 1);
        }
        std::nth_element(times.begin(), times.begin() + times.size() / 2,
                         times.end());
        table[v].push_back(times[times.size() / 2]);
      }
    }
    if (rank == 0) {
      for (size_t v = 0; v < used.size(); ++v) {
        std::printf("%-18s", used[v]->name);
        for (size_t s = 0; s < sizes.size(); ++s)
          std::printf(" %9.1f us", table[v][s]);
        std::printf("\n");
      }
      std::printf("ratio to the default (lower is faster)\n");
      for (size_t v = 1; v < used.size(); ++v) {
        std::printf("%-18s", used[v]->name);
        for (size_t s = 0; s < sizes.size(); ++s)
          std::printf(" %12.3f", table[v][s] / table[0][s]);
        std::printf("\n");
      }
      std::printf("\n");
      std::fflush(stdout);
      for (size_t v = 0; profile && v < used.size(); ++v)
        measured.rows.push_back(
            {c.modelKind,
             v == 0 ? std::nullopt
                    : mlir::comm::symbolizeAlgorithm(used[v]->name),
             llvm::SmallVector<double, 4>(table[v].begin(), table[v].end())});
      for (size_t v = 0; profile && v < used.size(); ++v) {
        std::string row =
            std::string("        {K::") + c.profileKind + ", " +
            (v == 0 ? std::string("mpi") : std::string("A::") + used[v]->name) +
            ", {";
        for (size_t s = 0; s < sizes.size(); ++s) {
          char cell[32];
          std::snprintf(cell, sizeof cell, "%s%.1f", s ? ", " : "",
                        table[v][s]);
          row += cell;
        }
        profileRows += row + "}},\n";
      }
    }
  }
  if (rank == 0 && profile)
    std::printf(
        "rows of lib/CostModel/HostProfile.cpp (sizes {%s}):\n%s",
        [&] {
          std::string list;
          for (int64_t bytes : sizes)
            list += (list.empty() ? "" : ", ") + std::to_string(bytes);
          return list;
        }()
            .c_str(),
        profileRows.c_str());
  int status = 0;
  if (rank == 0 && paramsPath)
    status = writeParams(paramsPath, std::move(measured), size, rounds);
  commrt_comm_destroy(comm);
  commrt_finalize(ctx);
  return status;
}
