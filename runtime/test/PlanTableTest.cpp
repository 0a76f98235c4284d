//===- test/PlanTableTest.cpp - The compiler's table vs the runtime -*- C++
//-*-===//
//
// Part of the comm project: a compiler for communication between GPUs.
//
//===----------------------------------------------------------------------===//
//
// Reads the compiler's algorithm table as `comm-sim algorithms` prints it
// and holds the runtime to it on the mpi backend: commrt_collective_planned
// accepts exactly the algorithms the table says mpi realizes for each
// collective that takes a plan, and rejects the others with an error; the
// collectives the lowering passes no plan to (all_to_all, permute,
// sendrecv) may only list the backend's own exchange, `direct`. The
// runtime itself knows nothing of the compiler: test/Runtime/plan-table.test
// pipes the table in.
//
//   comm-sim algorithms --backend mpi > table && mpirun -np 4 \
//       commrt-plan-table-test table
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <vector>

using namespace test;

namespace {

/// collective name -> realized algorithm names on the mpi backend.
using Table = std::map<std::string, std::set<std::string>>;

bool readTable(const char *path, Table &table) {
  std::ifstream in(path);
  if (!in)
    return false;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#')
      continue;
    std::istringstream fields(line);
    std::string collective, backend, realized;
    if (!(fields >> collective >> backend >> realized))
      continue;
    if (backend != "mpi")
      continue;
    std::set<std::string> &algorithms = table[collective];
    if (realized == "-")
      continue;
    std::stringstream list(realized);
    std::string name;
    while (std::getline(list, name, ','))
      algorithms.insert(name);
  }
  return true;
}

const std::pair<commrt_collective, const char *> kPlanned[] = {
    {COMMRT_COLLECTIVE_ALL_REDUCE, "all_reduce"},
    {COMMRT_COLLECTIVE_REDUCE_SCATTER, "reduce_scatter"},
    {COMMRT_COLLECTIVE_ALL_GATHER, "all_gather"},
    {COMMRT_COLLECTIVE_BROADCAST, "broadcast"},
    {COMMRT_COLLECTIVE_REDUCE, "reduce"},
};

const commrt_algorithm kAlgorithms[] = {
    COMMRT_ALGORITHM_RING,         COMMRT_ALGORITHM_TREE,
    COMMRT_ALGORITHM_DIRECT,       COMMRT_ALGORITHM_HALVING_DOUBLING,
    COMMRT_ALGORITHM_HIERARCHICAL, COMMRT_ALGORITHM_NVLS,
};

} // namespace

int main(int argc, char **argv) {
  int64_t size = 0;
  const commrt_error_policy returnErrors = COMMRT_ON_ERROR_RETURN;
  commrt_context *ctx =
      test::initMpiTest(&argc, &argv, 60000, &size, &returnErrors);
  if (!ctx)
    return 1;

  Table table;
  if (argc < 2 || !readTable(argv[1], table)) {
    std::fprintf(stderr, "usage: %s <comm-sim algorithms output>\n", argv[0]);
    commrt_finalize(ctx);
    return 2;
  }

  std::vector<int64_t> world;
  for (int64_t i = 0; i < size; ++i)
    world.push_back(i);
  commrt_comm *comm = nullptr;
  CHECK_OK(commrt_comm_create(ctx, world.data(), size, size, &comm));

  // Every collective the runtime plans is in the table, and the runtime
  // accepts exactly what the table lists.
  const int64_t count = 8;
  std::vector<float> send(static_cast<size_t>(count * size), 1.0f);
  std::vector<float> recv(static_cast<size_t>(count * size), 0.0f);
  for (auto [kind, name] : kPlanned) {
    auto it = table.find(name);
    CHECK_MSG(it != table.end(), "the table has no row for %s on mpi", name);
    if (it == table.end())
      continue;
    for (commrt_algorithm algorithm : kAlgorithms) {
      std::string algorithmName = commrt_algorithm_name(algorithm);
      bool listed = it->second.count(algorithmName) != 0;
      commrt_plan plan{algorithm, 0, 0};
      commrt_status status = commrt_collective_planned(
          comm, kind, send.data(), recv.data(), count, COMMRT_F32, COMMRT_SUM,
          0, &plan, nullptr, nullptr);
      CHECK_MSG((status == COMMRT_SUCCESS) == listed,
                "%s with algorithm %s: the table says %s, the runtime %s (%s)",
                name, algorithmName.c_str(),
                listed ? "realized" : "not realized",
                status == COMMRT_SUCCESS ? "ran it" : "rejected it",
                status == COMMRT_SUCCESS ? "" : commrt_last_error());
    }
    table.erase(it);
  }
  // The rest take no plan in the lowering: only the backend's own exchange
  // may be listed for them, or a plan would be accepted and ignored.
  for (const auto &[name, algorithms] : table) {
    bool onlyDirect = algorithms.empty() || (algorithms.size() == 1 &&
                                             *algorithms.begin() == "direct");
    CHECK_MSG(onlyDirect,
              "%s: the table lists algorithms a plan cannot reach in the "
              "runtime (only 'direct', its own exchange, may be listed)",
              name.c_str());
  }
  CHECK_MSG(table.count("all_to_all") && table.count("permute") &&
                table.count("sendrecv") && table.count("barrier"),
            "the table misses a collective the mpi backend carries");

  commrt_comm_destroy(comm);
  int code = summary("plan-table");
  commrt_finalize(ctx);
  return code;
}
