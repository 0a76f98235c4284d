//===- lib/Context.cpp - Initialization, options, finalization --*- C++ -*-===//
//
// Part of the comm project: a compiler for communication between GPUs.
//
//===----------------------------------------------------------------------===//
//
// commrt_init bootstraps over MPI (initializing it if nobody did), finds the
// node-local rank, picks the CUDA device, starts the backend and makes every
// rank agree on whether that worked. commrt_finalize undoes it.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#if COMMRT_HAVE_CUDA
#include "../cuda/Cuda.h"
#endif

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sched.h>
#include <unistd.h>

using namespace commrt;

namespace {

/// True if commrt called MPI_Init_thread (and must call MPI_Finalize).
bool ownsMpi = false;
/// A failed commrt_init gave up waiting for a rank: MPI_Finalize would wait
/// for it too, so the program ends without it.
bool mpiAbandoned = false;
/// Contexts between a successful init and their finalize.
int liveContexts = 0;
bool atExitRegistered = false;

void finalizeMpiAtExit() {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (ownsMpi && initialized && !finalized && !mpiAbandoned)
    MPI_Finalize();
}

commrt_status invalid(const std::string &what) {
  return setError(COMMRT_ERROR_INVALID_ARGUMENT,
                  "commrt: commrt_init: " + what);
}

/// Parses the integer environment variable \p name into \p value if set.
commrt_status envInt(const char *name, int64_t minimum, int64_t &value) {
  const char *text = std::getenv(name);
  if (!text || !*text)
    return COMMRT_SUCCESS;
  char *end = nullptr;
  errno = 0;
  long long parsed = std::strtoll(text, &end, 10);
  if (errno || *end || parsed < minimum)
    return invalid(format("environment variable %s='%s' is not an integer "
                          ">= %lld",
                          name, text, static_cast<long long>(minimum)));
  value = parsed;
  return COMMRT_SUCCESS;
}

/// Applies the environment to \p opts (see commrt_options).
commrt_status applyEnvironment(commrt_options &opts) {
  if (commrt_status s = envInt("COMMRT_TIMEOUT_MS", 0, opts.timeout_ms))
    return s;
  if (commrt_status s = envInt("COMMRT_VERBOSE", 0, opts.verbose))
    return s;
  if (commrt_status s = envInt("COMMRT_CUDA_DEVICE", -1, opts.cuda_device))
    return s;
  if (const char *policy = std::getenv("COMMRT_ON_ERROR")) {
    if (!std::strcmp(policy, "abort"))
      opts.on_error = COMMRT_ON_ERROR_ABORT;
    else if (!std::strcmp(policy, "return"))
      opts.on_error = COMMRT_ON_ERROR_RETURN;
    else if (*policy)
      return invalid(format("environment variable COMMRT_ON_ERROR='%s' is "
                            "neither 'abort' nor 'return'",
                            policy));
  }
  const char *backend = std::getenv("COMMRT_BACKEND");
  if (opts.backend == COMMRT_BACKEND_AUTO && backend && *backend) {
    if (!std::strcmp(backend, "mpi"))
      opts.backend = COMMRT_BACKEND_MPI;
    else if (!std::strcmp(backend, "nccl"))
      opts.backend = COMMRT_BACKEND_NCCL;
    else if (!std::strcmp(backend, "verbs"))
      opts.backend = COMMRT_BACKEND_VERBS;
    else if (std::strcmp(backend, "auto"))
      return invalid(format("environment variable COMMRT_BACKEND='%s' is not "
                            "one of mpi, nccl, verbs, auto",
                            backend));
  }
  return COMMRT_SUCCESS;
}

/// Reads COMMRT_DEBUG: a debug mode or a comma-separated list of them.
commrt_status applyDebugModes(commrt_context *ctx) {
  const char *debug = std::getenv("COMMRT_DEBUG");
  if (!debug || !*debug)
    return COMMRT_SUCCESS;
  std::string list = debug;
  for (size_t start = 0; start <= list.size();) {
    size_t end = list.find(',', start);
    if (end == std::string::npos)
      end = list.size();
    std::string mode = list.substr(start, end - start);
    if (mode == "desync")
      ctx->debugDesync = true;
    else if (mode == "checksum")
      ctx->debugChecksum = true;
    else
      return invalid(format("environment variable COMMRT_DEBUG='%s' is not "
                            "a debug mode commrt has; expected 'desync', "
                            "'checksum' or both, comma-separated",
                            debug));
    start = end + 1;
  }
  return COMMRT_SUCCESS;
}

/// Reads COMMRT_VALIDATE: 1 (the default) checks every collective across
/// its group before it runs, 0 does not.
commrt_status applyValidate(commrt_context *ctx) {
  const char *text = std::getenv("COMMRT_VALIDATE");
  if (!text || !*text)
    return COMMRT_SUCCESS;
  if (!std::strcmp(text, "0") || !std::strcmp(text, "1")) {
    ctx->validate = *text == '1';
    return COMMRT_SUCCESS;
  }
  return invalid(format("environment variable COMMRT_VALIDATE='%s' is "
                        "neither 1 (check every collective across its group "
                        "before it runs, the default) nor 0 (do not)",
                        text));
}

/// Duplicates \p parent with MPI_Comm_idup under the deadline.
commrt_status dupComm(commrt_context *ctx, MPI_Comm parent, MPI_Comm &out,
                      const char *what) {
  MPI_Request req;
  int err = MPI_Comm_idup(parent, &out, &req);
  if (err != MPI_SUCCESS)
    return setError(COMMRT_ERROR_BACKEND,
                    format("commrt: commrt_init: %s: %s", what,
                           mpiErrorString("MPI_Comm_idup", err).c_str()));
  // After the roll calls started, a step of the world's next operation:
  // a rank that never joins is named. Before, nobody can be asked.
  std::string step = format("commrt_init (%s)", what);
  if (commrt_status s =
          ctx->worldGroup
              ? waitExchange(ctx, &req, parent, step, nextWorldOperation(ctx))
              : waitMpi(ctx, &req, 1, step,
                        "waiting for ranks that have not called commrt_init "
                        "or ended before it; which ones cannot be asked "
                        "before this first step"))
    return s;
  MPI_Comm_set_errhandler(out, MPI_ERRORS_RETURN);
  return COMMRT_SUCCESS;
}

/// Sets \p id to rank / N and \p set when the environment variable
/// \p name gives N: a pretend node or socket, to try the two levels of a
/// hierarchical schedule on one machine.
commrt_status pretendLevel(commrt_context *ctx, const char *name, int &id,
                           bool &set) {
  int64_t size = 0;
  set = false;
  if (commrt_status s = envInt(name, 1, size))
    return s;
  if (size > 0) {
    id = static_cast<int>(ctx->rank / size);
    set = true;
  }
  return COMMRT_SUCCESS;
}

/// Sets ctx->nodeId: rank / COMMRT_NODE_SIZE when that is set, else the
/// lowest world rank of the shared-memory node.
commrt_status findNode(commrt_context *ctx) {
  bool set = false;
  if (commrt_status s = pretendLevel(ctx, "COMMRT_NODE_SIZE", ctx->nodeId, set))
    return s;
  if (set)
    return COMMRT_SUCCESS;
  int mine = ctx->rank;
  return allreduceMpi(ctx, &mine, &ctx->nodeId, 1, MPI_INT, MPI_MIN, ctx->node,
                      "commrt_init (finding the node)",
                      nextWorldOperation(ctx));
}

/// Sets ctx->socketId, the CPU socket (NUMA node) this rank's data lives
/// next to, which a hierarchical schedule whose group is inside one node
/// splits by: rank / COMMRT_SOCKET_SIZE when that is set, else the NUMA
/// node closest to the rank's GPU, else the NUMA node of the CPU the
/// process runs on (where the MPI launcher bound it); 0 where none is
/// known.
commrt_status findSocket(commrt_context *ctx) {
  bool set = false;
  if (commrt_status s =
          pretendLevel(ctx, "COMMRT_SOCKET_SIZE", ctx->socketId, set))
    return s;
  if (set)
    return COMMRT_SUCCESS;
  int node = -1;
#if COMMRT_HAVE_CUDA
  if (ctx->cudaDevice >= 0)
    node = cuda::hostNumaNode(ctx->cudaDevice);
#endif
  unsigned cpu = 0, numa = 0;
  if (node < 0 && getcpu(&cpu, &numa) == 0)
    node = static_cast<int>(numa);
  ctx->socketId = node < 0 ? 0 : node;
  return COMMRT_SUCCESS;
}

/// Frees \p comm unless an operation on it may still be pending.
void freeComm(commrt_context *ctx, MPI_Comm &comm) {
  if (comm != MPI_COMM_NULL && !ctx->pendingMpi)
    MPI_Comm_free(&comm);
  comm = MPI_COMM_NULL;
}

void teardown(commrt_context *ctx);

/// Ends a failed commrt_init with \p status. Where a wait gave up on ranks
/// that did not join (or on a rank that gave up so), the job cannot go on
/// and MPI cannot be finalized: under the abort policy \p policy the job
/// ends with the message, as after an operation's timeout; under the return
/// policy the error is returned and MPI is left unfinalized at exit.
commrt_status failInit(commrt_context *ctx, commrt_status status,
                       commrt_error_policy policy) {
  bool abandoned = ctx->pendingMpi;
  teardown(ctx);
  if (!abandoned)
    return status;
  mpiAbandoned = true;
  ctx->opts.on_error = policy;
  return raise(ctx, status, lastError(), /*fatal=*/true);
}

/// Frees everything a context holds except itself.
void teardown(commrt_context *ctx) {
  for (auto &comm : ctx->comms) {
    if (ctx->backend)
      ctx->backend->destroyComm(comm.get());
    freeComm(ctx, comm->mpi);
    freeComm(ctx, comm->checks);
    freeComm(ctx, comm->fingerprints);
  }
  ctx->comms.clear();
  ctx->cache.clear();
  // Requests abandoned after a timeout may still be owned by MPI or a GPU;
  // freeing their buffers could let a late message write into freed memory,
  // so they are deliberately leaked.
  for (auto &req : ctx->abandoned)
    (void)req.release();
  ctx->abandoned.clear();
  ctx->backend.reset();
#if COMMRT_HAVE_CUDA
  // Allocations still queued to be freed are released when their streams
  // get there.
  if (ctx->cudaScratchPool)
    (void)cuda::poolDestroy(ctx->cudaScratchPool);
  ctx->cudaScratchPool = nullptr;
#endif
  stopRollCalls(ctx);
  stopValidation(ctx);
  freeComm(ctx, ctx->p2p);
  freeComm(ctx, ctx->internal);
  freeComm(ctx, ctx->health);
  freeComm(ctx, ctx->checkP2p);
  freeComm(ctx, ctx->checkPermute);
  freeComm(ctx, ctx->node);
  freeComm(ctx, ctx->world);
}

/// Picks the CUDA device, or records why there is none.
void probeCuda(commrt_context *ctx) {
#if COMMRT_HAVE_CUDA
  int count = 0;
  if (cuda::deviceCount(count)) {
    ctx->cudaMissing = "cuda: " + lastError();
    return;
  }
  int64_t device = ctx->opts.cuda_device >= 0 ? ctx->opts.cuda_device
                                              : ctx->localRank % count;
  if (device >= count) {
    ctx->cudaMissing = format("cuda_device %lld is out of range (%d devices)",
                              static_cast<long long>(device), count);
    return;
  }
  if (cuda::setDevice(static_cast<int>(device))) {
    ctx->cudaMissing = lastError();
    return;
  }
  ctx->cudaDevice = static_cast<int>(device);
#else
  ctx->cudaMissing = "commrt was built without CUDA (COMMRT_ENABLE_CUDA=OFF)";
#endif
}

commrt_status initContext(int *argc, char ***argv, const commrt_options *user,
                          commrt_context **out) {
  if (!out)
    return invalid("ctx is NULL");
  *out = nullptr;
  if ((argc == nullptr) != (argv == nullptr))
    return invalid("argc and argv must both be NULL or both be set");

  commrt_options opts;
  commrt_options_default(&opts);
  if (user) {
    if (user->struct_size < static_cast<int64_t>(sizeof(int64_t)) ||
        user->struct_size > static_cast<int64_t>(sizeof(commrt_options)))
      return invalid(format("opts->struct_size is %lld; fill the options "
                            "with commrt_options_default first",
                            static_cast<long long>(user->struct_size)));
    std::memcpy(&opts, user, static_cast<size_t>(user->struct_size));
    opts.struct_size = sizeof(commrt_options);
  }
  if (commrt_status s = applyEnvironment(opts))
    return s;
  if (opts.backend < COMMRT_BACKEND_AUTO || opts.backend > COMMRT_BACKEND_VERBS)
    return invalid(
        format("unknown backend %d", static_cast<int>(opts.backend)));
  if (opts.on_error != COMMRT_ON_ERROR_ABORT &&
      opts.on_error != COMMRT_ON_ERROR_RETURN)
    return invalid(
        format("unknown error policy %d", static_cast<int>(opts.on_error)));
  if (opts.timeout_ms < 0)
    return invalid(format("timeout_ms %lld is negative",
                          static_cast<long long>(opts.timeout_ms)));
  if (opts.cuda_device < -1)
    return invalid(format("cuda_device %lld is invalid (-1 picks the local "
                          "rank's)",
                          static_cast<long long>(opts.cuda_device)));

  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (finalized)
    return setError(COMMRT_ERROR_INVALID_STATE,
                    "commrt: commrt_init: MPI was already finalized");
  if (!initialized) {
    int provided = 0;
    int err = MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided);
    if (err != MPI_SUCCESS)
      return setError(COMMRT_ERROR_BACKEND,
                      "commrt: commrt_init: " +
                          mpiErrorString("MPI_Init_thread", err));
    ownsMpi = true;
    if (!atExitRegistered) {
      // A failed init leaves MPI up so the caller can retry; make sure it is
      // finalized when the program ends.
      std::atexit(finalizeMpiAtExit);
      atExitRegistered = true;
    }
  }

  auto ctx = std::make_unique<commrt_context>();
  ctx->opts = opts;
  if (commrt_status s = applyDebugModes(ctx.get()))
    return s;
  if (commrt_status s = applyValidate(ctx.get()))
    return s;
  // commrt_init returns its errors whatever the policy: the caller has no
  // context yet. The policy takes effect once init succeeded.
  ctx->opts.on_error = COMMRT_ON_ERROR_RETURN;
  MPI_Comm_rank(MPI_COMM_WORLD, &ctx->rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ctx->size);
  if (const char *inject = std::getenv("COMMRT_INJECT"); inject && *inject) {
    std::string why;
    if (!parseFault(inject, ctx->size, ctx->fault, why))
      return invalid(format("environment variable COMMRT_INJECT='%s' is "
                            "malformed: %s; expected KIND:RANK:OP with KIND "
                            "one of exit, hang, corrupt, RANK a world rank "
                            "and OP the index (from 0) of that rank's "
                            "operation, 'init' (in commrt_init) or 'create' "
                            "(in its first comm_create), e.g. exit:2:3",
                            inject, why.c_str()));
  }

  // The roll calls' communicator first: every later wait can then name the
  // ranks that did not join. This one cannot (a rank that never calls
  // commrt_init leaves the others here).
  commrt_status status =
      dupComm(ctx.get(), MPI_COMM_WORLD, ctx->health, "roll calls");
  if (!status)
    status = startRollCalls(ctx.get());
  if (!status) {
    // The world as a group for roll calls (Internal.h); its id is no
    // communicator's (theirs hash their ranks and creation count).
    auto world = std::make_unique<commrt_comm>();
    world->ctx = ctx.get();
    for (int r = 0; r < ctx->size; ++r)
      world->ranks.push_back(r);
    world->position = ctx->rank;
    world->name = groupName(world->ranks) + " (the world)";
    world->id = 0x776f726c64ULL; // "world"
    ctx->worldGroup = std::move(world);
    injectSetupFault(ctx.get(), FaultPoint::Init,
                     "in commrt_init, after its roll calls started");
  }
  if (!status)
    status = dupComm(ctx.get(), MPI_COMM_WORLD, ctx->world, "world");
  if (!status)
    status = dupComm(ctx.get(), MPI_COMM_WORLD, ctx->p2p, "point to point");
  if (!status)
    status = dupComm(ctx.get(), MPI_COMM_WORLD, ctx->internal, "permute");
  if (!status && ctx->debugChecksum)
    status = dupComm(ctx.get(), MPI_COMM_WORLD, ctx->checkP2p,
                     "checksums of point to point");
  if (!status && ctx->debugChecksum)
    status = dupComm(ctx.get(), MPI_COMM_WORLD, ctx->checkPermute,
                     "checksums of permute");
  if (!status)
    status = startValidation(ctx.get());
  if (!status) {
    int err = MPI_Comm_split_type(ctx->world, MPI_COMM_TYPE_SHARED, ctx->rank,
                                  MPI_INFO_NULL, &ctx->node);
    if (err != MPI_SUCCESS)
      status = setError(COMMRT_ERROR_BACKEND,
                        "commrt: commrt_init: " +
                            mpiErrorString("MPI_Comm_split_type", err));
    else {
      MPI_Comm_rank(ctx->node, &ctx->localRank);
      MPI_Comm_size(ctx->node, &ctx->localSize);
      cpu_set_t cpus;
      int cores = sched_getaffinity(0, sizeof(cpus), &cpus) == 0
                      ? CPU_COUNT(&cpus)
                      : static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
      ctx->oversubscribed = cores > 0 && ctx->localSize > cores;
    }
  }
  if (!status)
    status = findNode(ctx.get());
  if (status)
    return failInit(ctx.get(), status, opts.on_error);

  probeCuda(ctx.get());
  if (commrt_status s = findSocket(ctx.get()))
    return failInit(ctx.get(), s, opts.on_error);

  commrt_backend kind = opts.backend;
  if (kind == COMMRT_BACKEND_AUTO) {
#if COMMRT_HAVE_NCCL
    kind = ctx->cudaDevice >= 0 ? COMMRT_BACKEND_NCCL : COMMRT_BACKEND_MPI;
#else
    kind = COMMRT_BACKEND_MPI;
#endif
  }
  ctx->backendKind = kind;
  ctx->opts.backend = kind;
  if (ctx->debugChecksum && kind != COMMRT_BACKEND_MPI) {
    commrt_status s = invalid(
        format("COMMRT_DEBUG=checksum checks the host transfers of the mpi "
               "backend only, and this is the %s backend",
               backendName(kind)));
    return failInit(ctx.get(), s, opts.on_error);
  }

  commrt_status local = COMMRT_SUCCESS;
  switch (kind) {
  case COMMRT_BACKEND_NCCL:
    local = createNcclBackend(ctx.get(), ctx->backend);
    break;
  case COMMRT_BACKEND_VERBS:
    local = createVerbsBackend(ctx.get(), ctx->backend);
    break;
  default:
    local = createMpiBackend(ctx.get(), ctx->backend);
    break;
  }
  if (!local)
    local = ctx->backend->init();
  if (local)
    setError(local, "commrt: commrt_init: " + lastError());
  status = agree(ctx.get(), local, ctx->world,
                 format("commrt_init (%s backend)", backendName(kind)));
  if (status)
    return failInit(ctx.get(), status, opts.on_error);

  ctx->opts.on_error = opts.on_error;
  trace(ctx.get(), 1,
        "commrt_init: %s backend, world %d ranks, local rank %d of %d%s, "
        "cuda device %d%s%s, timeout %lld ms, on error %s",
        backendName(kind), ctx->size, ctx->localRank, ctx->localSize,
        ctx->oversubscribed ? " (more ranks than cores)" : "", ctx->cudaDevice,
        ctx->cudaDevice < 0 ? ": " : "",
        ctx->cudaDevice < 0 ? ctx->cudaMissing.c_str() : "",
        static_cast<long long>(ctx->opts.timeout_ms),
        ctx->opts.on_error == COMMRT_ON_ERROR_ABORT ? "abort" : "return");
  ++liveContexts;
  *out = ctx.release();
  return COMMRT_SUCCESS;
}

commrt_status badContext(const char *fn) {
  return setError(COMMRT_ERROR_INVALID_ARGUMENT,
                  std::string("commrt: ") + fn + ": ctx is NULL");
}

commrt_status badOut(const char *fn) {
  return setError(COMMRT_ERROR_INVALID_ARGUMENT,
                  std::string("commrt: ") + fn + ": output pointer is NULL");
}

/// Shared body of the queries.
template <typename T, typename Get>
commrt_status query(const char *fn, commrt_context *ctx, T *out, Get get) {
  if (!ctx)
    return badContext(fn);
  if (!out)
    return badOut(fn);
  *out = get(ctx);
  return COMMRT_SUCCESS;
}

} // namespace

extern "C" commrt_status commrt_options_default(commrt_options *opts) {
  if (!opts)
    return setError(COMMRT_ERROR_INVALID_ARGUMENT,
                    "commrt: commrt_options_default: opts is NULL");
  std::memset(opts, 0, sizeof(*opts));
  opts->struct_size = sizeof(commrt_options);
  opts->backend = COMMRT_BACKEND_AUTO;
  opts->timeout_ms = 60000;
  opts->cuda_device = -1;
  opts->verbose = 0;
  opts->on_error = COMMRT_ON_ERROR_ABORT;
  return COMMRT_SUCCESS;
}

extern "C" commrt_status commrt_init(int *argc, char ***argv,
                                     const commrt_options *opts,
                                     commrt_context **ctx) {
  return guard("commrt_init",
               [&] { return initContext(argc, argv, opts, ctx); });
}

extern "C" commrt_status commrt_finalize(commrt_context *ctx) {
  return guard("commrt_finalize", [&]() -> commrt_status {
    if (!ctx)
      return COMMRT_SUCCESS;
    if (ctx->groupDepth > 0)
      return setError(COMMRT_ERROR_INVALID_STATE,
                      "commrt: commrt_finalize: called inside "
                      "commrt_group_start/end");
    trace(ctx, 1, "commrt_finalize");
    warnUnstruckFault(ctx);
    if (auto release = std::exchange(ctx->releaseUserData, nullptr))
      release(ctx, std::exchange(ctx->userData, nullptr));
    teardown(ctx);
    delete ctx;
    if (--liveContexts == 0 && ownsMpi) {
      int finalized = 0;
      MPI_Finalized(&finalized);
      if (!finalized) {
        int err = MPI_Finalize();
        if (err != MPI_SUCCESS)
          return setError(COMMRT_ERROR_BACKEND,
                          "commrt: commrt_finalize: " +
                              mpiErrorString("MPI_Finalize", err));
      }
    }
    return COMMRT_SUCCESS;
  });
}

extern "C" commrt_status commrt_abort(commrt_context *ctx,
                                      const char *message) {
  abortWorld(
      ctx, std::string("commrt_abort: ") + (message ? message : "(no message)"),
      1);
}

extern "C" commrt_status commrt_set_user_data(commrt_context *ctx, void *data,
                                              void (*release)(commrt_context *,
                                                              void *)) {
  if (!ctx)
    return setError(COMMRT_ERROR_INVALID_ARGUMENT,
                    "commrt: commrt_set_user_data: ctx is NULL");
  ctx->userData = data;
  ctx->releaseUserData = release;
  return COMMRT_SUCCESS;
}

extern "C" commrt_status commrt_get_user_data(commrt_context *ctx,
                                              void **data) {
  return query("commrt_get_user_data", ctx, data,
               [](commrt_context *c) { return c->userData; });
}

extern "C" commrt_status commrt_rank(commrt_context *ctx, int64_t *rank) {
  return query("commrt_rank", ctx, rank,
               [](commrt_context *c) { return c->rank; });
}

extern "C" commrt_status commrt_world_size(commrt_context *ctx, int64_t *size) {
  return query("commrt_world_size", ctx, size,
               [](commrt_context *c) { return c->size; });
}

extern "C" commrt_status commrt_local_rank(commrt_context *ctx, int64_t *rank) {
  return query("commrt_local_rank", ctx, rank,
               [](commrt_context *c) { return c->localRank; });
}

extern "C" commrt_status commrt_local_size(commrt_context *ctx, int64_t *size) {
  return query("commrt_local_size", ctx, size,
               [](commrt_context *c) { return c->localSize; });
}

extern "C" commrt_status commrt_cuda_device(commrt_context *ctx,
                                            int64_t *device) {
  return query("commrt_cuda_device", ctx, device,
               [](commrt_context *c) { return c->cudaDevice; });
}

extern "C" commrt_status commrt_get_backend(commrt_context *ctx,
                                            commrt_backend *backend) {
  if (!ctx)
    return badContext("commrt_get_backend");
  if (!backend)
    return badOut("commrt_get_backend");
  *backend = ctx->backendKind;
  return COMMRT_SUCCESS;
}

extern "C" commrt_status commrt_set_timeout(commrt_context *ctx,
                                            int64_t timeout_ms) {
  if (!ctx)
    return badContext("commrt_set_timeout");
  if (timeout_ms < 0)
    return setError(COMMRT_ERROR_INVALID_ARGUMENT,
                    format("commrt: commrt_set_timeout: timeout_ms %lld is "
                           "negative",
                           static_cast<long long>(timeout_ms)));
  ctx->opts.timeout_ms = timeout_ms;
  return COMMRT_SUCCESS;
}

extern "C" commrt_status commrt_set_error_policy(commrt_context *ctx,
                                                 commrt_error_policy policy) {
  if (!ctx)
    return badContext("commrt_set_error_policy");
  if (policy != COMMRT_ON_ERROR_ABORT && policy != COMMRT_ON_ERROR_RETURN)
    return setError(COMMRT_ERROR_INVALID_ARGUMENT,
                    format("commrt: commrt_set_error_policy: unknown policy %d",
                           static_cast<int>(policy)));
  ctx->opts.on_error = policy;
  return COMMRT_SUCCESS;
}

extern "C" commrt_status commrt_host_max(commrt_context *ctx, double value,
                                         double *max) {
  if (!ctx)
    return badContext("commrt_host_max");
  if (!max)
    return badOut("commrt_host_max");
  return guard("commrt_host_max", [&] {
    return allreduceMpi(ctx, &value, max, 1, MPI_DOUBLE, MPI_MAX, ctx->world,
                        "commrt_host_max");
  });
}

extern "C" commrt_status commrt_host_barrier(commrt_context *ctx) {
  if (!ctx)
    return badContext("commrt_host_barrier");
  return guard("commrt_host_barrier", [&] {
    return barrierMpi(ctx, ctx->world, "commrt_host_barrier");
  });
}
