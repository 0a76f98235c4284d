//===- lib/Internal.h - commrt internal declarations ------------*- C++ -*-===//
//
// Part of the comm project: a compiler for communication between GPUs.
//
//===----------------------------------------------------------------------===//
//
// The structures behind the opaque handles of commrt.h, the backend
// interface every backend folder implements, and the helpers for errors,
// timeouts and the MPI bootstrap shared by all of them.
//
//===----------------------------------------------------------------------===//

#ifndef COMMRT_LIB_INTERNAL_H
#define COMMRT_LIB_INTERNAL_H

#include "Error.h"
#include "commrt.h"

#include <mpi.h>

#include <chrono>
#include <cstdarg>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

namespace commrt {

class Backend;

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

/// True for the statuses the abort policy ends the job on.
bool isFatal(commrt_status status);

/// Stores \p message and, if \p status is fatal and \p ctx's policy is
/// abort, prints it prefixed with the rank and calls MPI_Abort.
commrt_status raise(commrt_context *ctx, commrt_status status,
                    const std::string &message);
/// The same with the decision made by the caller: \p fatal errors end the
/// job under the abort policy whatever their status (ranks that disagree on
/// an operation get INVALID_ARGUMENT, and the job cannot go on).
commrt_status raise(commrt_context *ctx, commrt_status status,
                    const std::string &message, bool fatal);

/// Prints "[commrt rank R] message" on stderr and aborts the world with
/// \p code. Does not return.
[[noreturn]] void abortWorld(commrt_context *ctx, const std::string &message,
                             int code);

/// Runs \p body, turning a C++ exception (only std::bad_alloc is expected)
/// into a status so that none crosses the C ABI.
template <typename Body>
commrt_status guard(const char *function, Body &&body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc &) {
    return setError(COMMRT_ERROR_OUT_OF_MEMORY, std::string("commrt: ") +
                                                    function +
                                                    ": out of host memory");
  } catch (...) {
    return setError(COMMRT_ERROR_INTERNAL, std::string("commrt: ") + function +
                                               ": unexpected C++ exception");
  }
}

/// "MPI_Xxx failed: <MPI_Error_string>" for a non-success MPI error code.
std::string mpiErrorString(const char *call, int code);

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

/// True if \p dtype is one of the enumerators.
bool isValidDtype(commrt_dtype dtype);
/// True for f32, f64, f16 and bf16.
bool isFloatDtype(commrt_dtype dtype);
/// True if \p op is one of the enumerators.
bool isValidRedop(commrt_redop op);
/// Static name of \p op ("sum", ...).
const char *redopName(commrt_redop op);
/// Static name of \p backend ("mpi", ...).
const char *backendName(commrt_backend backend);
/// Static name of \p space ("hbm", ...).
const char *spaceName(commrt_memory_space space);
/// True if \p space is one of the enumerators.
bool isValidSpace(commrt_memory_space space);

/// True if the byte ranges [a, a + aBytes) and [b, b + bBytes) share a byte.
inline bool overlaps(const void *a, size_t aBytes, const void *b,
                     size_t bBytes) {
  auto x = reinterpret_cast<uintptr_t>(a), y = reinterpret_cast<uintptr_t>(b);
  return aBytes && bBytes && x < y + bBytes && y < x + aBytes;
}

/// Checks that \p comm (of a collective) is set, not destroyed and not
/// failed.
commrt_status checkUsable(const char *fn, commrt_comm *comm);

/// Checks count >= 0 and that count * element size fits; sets *bytes.
commrt_status checkCount(const char *what, int64_t count, commrt_dtype dtype,
                         size_t *bytes);

//===----------------------------------------------------------------------===//
// Timeouts
//===----------------------------------------------------------------------===//

using Clock = std::chrono::steady_clock;

/// A point in time after which a wait gives up; 0 ms means never.
class Deadline {
public:
  explicit Deadline(int64_t timeoutMs)
      : start(Clock::now()), timeoutMs(timeoutMs) {}
  /// Compared in milliseconds: a timeout past 2^63 ns (292 years) would
  /// overflow the clock's nanoseconds and expire at once.
  bool expired() const { return timeoutMs > 0 && elapsedMs() >= timeoutMs; }
  int64_t elapsedMs() const {
    return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() -
                                                                 start)
        .count();
  }
  int64_t timeout() const { return timeoutMs; }

private:
  Clock::time_point start;
  int64_t timeoutMs;
};

/// Pauses between polls. With a core per rank: spin for tens of
/// microseconds, then poll with sched_yield, and sleep only in long waits.
/// With more ranks than cores on the node (\p oversubscribed): yield after
/// a few polls and sleep soon, so that the rank that has work gets a core.
class Backoff {
public:
  explicit Backoff(bool oversubscribed) : oversubscribed(oversubscribed) {}
  void pause();

private:
  bool oversubscribed;
  unsigned polls = 0;
  Clock::time_point since;
};

//===----------------------------------------------------------------------===//
// Operations
//===----------------------------------------------------------------------===//

enum class OpKind {
  AllReduce,
  ReduceScatter,
  AllGather,
  AllToAll,
  Broadcast,
  Reduce,
  Barrier,
  Send,
  Recv,
  Permute
};

/// "all_reduce", ...
const char *opName(OpKind kind);

/// Everything a backend needs to start one operation. Validated by the core
/// before it reaches a backend.
struct OpArgs {
  OpKind kind = OpKind::Barrier;
  commrt_comm *comm = nullptr; ///< Collectives; NULL for p2p and permute.
  const void *send = nullptr;
  void *recv = nullptr;
  /// Elements: all_reduce/broadcast/reduce/send/recv/permute: the buffer;
  /// reduce_scatter: per rank received; all_gather: per rank sent;
  /// all_to_all: per peer.
  int64_t count = 0;
  commrt_dtype dtype = COMMRT_F32;
  commrt_redop op = COMMRT_SUM;
  int root = 0;      ///< Position in the group.
  int peer = -1;     ///< World rank (send/recv).
  int tag = 0;       ///< send/recv.
  int sendTo = -1;   ///< permute: world rank this rank sends to, or -1.
  int recvFrom = -1; ///< permute: world rank this rank receives from, or -1.
  commrt_stream *stream = nullptr;
  /// The group agreed on this operation's sizes (lib/Validate.cpp): the
  /// transfers of its schedule may post receives without checking the
  /// size of what arrives first.
  bool validated = false;
};

/// "all_reduce on group [0, 1]", "send to rank 3 (tag 7)", "permute".
std::string describe(const OpArgs &args);

/// What COMMRT_INJECT asks for (lib/Reliability.cpp).
enum class FaultKind { None, Exit, Hang, Corrupt };
/// Where a fault strikes: at an operation, or in a set-up step (OP `init`
/// or `create`).
enum class FaultPoint { Operation, Init, Create };
struct Fault {
  FaultKind kind = FaultKind::None;
  FaultPoint point = FaultPoint::Operation;
  int rank = -1;   ///< World rank that fails.
  uint64_t op = 0; ///< Index of the operation it fails at, from 0.
  /// Whether it struck (a corrupt fault, or any at `create`, returns).
  bool struck = false;
};

} // namespace commrt

//===----------------------------------------------------------------------===//
// Handles
//===----------------------------------------------------------------------===//

/// A started operation. Backends derive from it.
struct commrt_request {
  commrt_request(commrt_context *ctx, const commrt::OpArgs &args)
      : ctx(ctx), args(args) {}
  virtual ~commrt_request() = default;

  /// Drives progress; sets \p done when complete. A failure sets the
  /// backend's message with commrt::setError and returns its status.
  virtual commrt_status poll(bool &done) = 0;
  /// Called when a wait gave up: the backend stops what it can (nccl
  /// aborts the communicator). The request is then kept, not freed, until
  /// finalize, because the backend may still own its buffers.
  virtual void abandon() {}

  commrt_context *ctx;
  commrt::OpArgs args;
  bool completed = false;
  /// Set when the request failed; later polls return it again.
  commrt_status failedStatus = COMMRT_SUCCESS;
  std::string failedMessage;
  /// Collectives: the index of this operation among those posted on its
  /// communicator (names it in a roll call after a timeout).
  uint64_t sequence = 0;
  /// COMMRT_INJECT=corrupt: the corrupted copy of the send buffer, which
  /// must live as long as the transfer.
  std::vector<char> injected;
  /// Failed because the ranks disagree on what to run (a collective's
  /// fingerprints differ, a message of another size arrived). Nothing
  /// moved, so the communicator stays usable; the abort policy still ends
  /// the job.
  bool mismatch = false;
};

/// The communicator of one group.
struct commrt_comm {
  commrt_context *ctx = nullptr;
  std::vector<int> ranks;       ///< World ranks in group order.
  int position = -1;            ///< Position of this rank in ranks.
  std::string name;             ///< "[0, 1, 2, 3]".
  MPI_Comm mpi = MPI_COMM_NULL; ///< The group's MPI communicator.
  void *backendData = nullptr;  ///< Owned by the backend.
  int references = 0;
  bool failed = false; ///< An operation timed out or failed fatally.
  std::string failure; ///< Why, for later calls.
  /// Planned collectives started on this communicator (tags their
  /// transfers apart).
  uint32_t schedules = 0;
  /// Node and socket ids of each position (2 per position), gathered by
  /// the first hierarchical schedule.
  std::vector<int> placeOfPosition;
  /// Operations checked by COMMRT_DEBUG=desync on this communicator.
  uint64_t debugSequence = 0;
  /// Operations posted on this communicator (see commrt_request::sequence).
  uint64_t posted = 0;
  /// Identifies the group across ranks: FNV-1a of its world ranks and of
  /// the number of layouts created before it.
  uint64_t id = 0;
  /// Operations whose transfers were started on this communicator (in the
  /// order they were posted; see lib/Validate.cpp). A rank whose
  /// communicator failed tells the others this count, so that they know
  /// which operations it will never start.
  uint64_t started = 0;
  /// Validated operations not started yet, oldest first: they start in
  /// this order whatever order the caller waits in.
  std::deque<commrt_request *> unstarted;
  /// The fingerprints of the cross-rank validation (and of COMMRT_DEBUG=
  /// desync), in call order: a duplicate of mpi, whose collectives start
  /// later, once validated.
  MPI_Comm fingerprints = MPI_COMM_NULL;
  /// COMMRT_DEBUG=checksum: carries the checksums of broadcast, all_gather
  /// and all_to_all (a duplicate of mpi, so they cannot meet its
  /// transfers).
  MPI_Comm checks = MPI_COMM_NULL;
};

/// A stream: CUDA or host.
struct commrt_stream {
  commrt_context *ctx = nullptr;
  void *cuda = nullptr; ///< cudaStream_t, or NULL for a host stream.
  bool owned = false;   ///< Destroy the CUDA stream with the handle.
};

/// An event: CUDA or host.
struct commrt_event {
  commrt_context *ctx = nullptr;
  void *cuda = nullptr; ///< cudaEvent_t, or NULL for a host event.
  bool recorded = false;
  commrt::Clock::time_point when; ///< Host events: when recorded.
};

/// The runtime state of one process.
namespace commrt {
class RollCalls;
/// Host scratch for the planned schedules, kept across calls: allocating
/// and first touching tens of MiB on every call costs more than moving
/// them. A block is handed out uninitialized; blocks given back are kept
/// while the pool holds at most `limit` bytes.
class ScratchPool {
public:
  struct Block {
    std::unique_ptr<char[]> data;
    size_t bytes = 0;
  };
  /// The smallest kept block of at least \p bytes, else a new one; null
  /// data when memory runs out.
  Block take(size_t bytes);
  void give(Block block);
  size_t keptBytes() const { return kept; }

  static constexpr size_t limit = size_t(512) << 20;

private:
  std::multimap<size_t, std::unique_ptr<char[]>> blocks;
  size_t kept = 0;
};
} // namespace commrt

struct commrt_context {
  commrt_options opts{};
  /// What commrt_set_user_data attached, released first by commrt_finalize.
  void *userData = nullptr;
  void (*releaseUserData)(commrt_context *, void *) = nullptr;
  /// COMMRT_DEBUG=desync: every collective of generated code first checks
  /// that its group agrees on what it runs (commrt_debug_check).
  bool debugDesync = false;
  /// COMMRT_DEBUG=checksum: transfers carry a checksum of their payload.
  bool debugChecksum = false;
  /// Collectives are checked across their group before they run
  /// (lib/Validate.cpp); COMMRT_VALIDATE=0 turns it off.
  bool validate = true;
  /// The message and the op of that check.
  MPI_Datatype fingerprintType = MPI_DATATYPE_NULL;
  MPI_Op fingerprintOp = MPI_OP_NULL;
  /// Validated operations are being started (see startAgreed).
  bool startingValidated = false;
  /// COMMRT_INJECT: the fault this rank injects, if any.
  commrt::Fault fault;
  /// Operations posted through the common entry (counts for COMMRT_INJECT).
  uint64_t posted = 0;
  commrt_backend backendKind = COMMRT_BACKEND_MPI;
  int rank = 0, size = 1, localRank = 0, localSize = 1;
  /// Identifies this rank's node: the lowest world rank on it, or
  /// rank / COMMRT_NODE_SIZE when that is set.
  int nodeId = 0;
  /// Identifies this rank's CPU socket within its node (its NUMA node), or
  /// rank / COMMRT_SOCKET_SIZE when that is set.
  int socketId = 0;
  /// More ranks on this node than cores this process may run on.
  bool oversubscribed = false;
  MPI_Comm world = MPI_COMM_NULL;    ///< Bootstrap and comm_create.
  MPI_Comm p2p = MPI_COMM_NULL;      ///< User send/recv (mpi backend).
  MPI_Comm internal = MPI_COMM_NULL; ///< permute (mpi backend).
  MPI_Comm node = MPI_COMM_NULL;     ///< Ranks of this node.
  /// Roll calls after a timeout (lib/Reliability.cpp).
  MPI_Comm health = MPI_COMM_NULL;
  /// COMMRT_DEBUG=checksum: checksums of send/recv and of permute.
  MPI_Comm checkP2p = MPI_COMM_NULL, checkPermute = MPI_COMM_NULL;
  /// The roll-call state: the posted receive of questions, answers in
  /// flight, and what this rank waits for now (what it answers).
  std::shared_ptr<commrt::RollCalls> rollCalls;
  const commrt_request *waitingFor = nullptr;
  /// What this rank waits in outside a request (a desync check, a
  /// validation exchange): answered to roll calls before waitingFor. The
  /// exchange is for operation #waitingInSequence of the communicator
  /// whose id is waitingInComm: a rank in it has reached that operation.
  const std::string *waitingIn = nullptr;
  uint64_t waitingInComm = 0, waitingInSequence = 0;
  std::unique_ptr<commrt::Backend> backend;

  /// Cached communicators by (flattened groups, group size); the value is
  /// NULL on ranks that are in no group.
  std::map<std::pair<std::vector<int64_t>, int64_t>, commrt_comm *> cache;
  /// Layouts created (entries of cache), the same count on every rank.
  uint64_t created = 0;
  std::vector<std::unique_ptr<commrt_comm>> comms;
  /// The whole world as a group for roll calls: the exchanges every rank
  /// joins outside a communicator (comm_create's checks, host barriers)
  /// are its operations, so that a rank that never joins one is named, and
  /// what it waits in instead. No MPI communicator of its own (they run on
  /// world); NULL until roll calls start.
  std::unique_ptr<commrt_comm> worldGroup;
  /// Declared before the requests below, so it outlives them.
  std::shared_ptr<commrt::ScratchPool> scratch =
      std::make_shared<commrt::ScratchPool>();

  int groupDepth = 0;
  /// Blocking operations started inside the open group.
  std::vector<std::unique_ptr<commrt_request>> groupBlocking;
  /// Every operation started inside the open group (owned elsewhere).
  std::vector<commrt_request *> groupStarted;
  /// Requests given up after a timeout (see commrt_request::abandon).
  std::vector<std::unique_ptr<commrt_request>> abandoned;
  /// An MPI operation was given up while still pending: the communicators
  /// are then not freed at finalize (MPI would progress the pending
  /// operation on a freed communicator).
  bool pendingMpi = false;

  int cudaDevice = -1;     ///< -1: no CUDA device in use.
  std::string cudaMissing; ///< Why cudaDevice is -1.
  /// The stream-ordered pool of the schedules' device scratch (a
  /// cudaMemPool_t; null until first used, or where the device has none).
  void *cudaScratchPool = nullptr;
  bool cudaScratchPoolTried = false;
};

namespace commrt {

/// The interface of a backend (mpi/, nccl/, verbs/).
class Backend {
public:
  explicit Backend(commrt_context *ctx) : ctx(ctx) {}
  virtual ~Backend() = default;

  virtual commrt_backend kind() const = 0;
  /// "mpi", "nccl", "verbs".
  virtual const char *name() const = 0;
  /// Local start-up after the MPI bootstrap; may use ctx->world
  /// collectively. The core agrees on the outcome across ranks.
  virtual commrt_status init() = 0;
  /// Sets up \p comm (whose ranks, position and mpi are filled in); called
  /// on the members of the group only, collectively over them.
  virtual commrt_status createComm(commrt_comm *comm) = 0;
  /// Frees what createComm made; local.
  virtual void destroyComm(commrt_comm *comm) = 0;
  /// Starts one operation.
  virtual commrt_status post(const OpArgs &args,
                             std::unique_ptr<commrt_request> &req) = 0;
  /// Group brackets (see commrt_group_start/end); \p started holds the
  /// requests started since the outermost start.
  virtual commrt_status groupStart() { return COMMRT_SUCCESS; }
  virtual commrt_status groupEnd(const std::vector<commrt_request *> &started) {
    (void)started;
    return COMMRT_SUCCESS;
  }
  /// The local checks of \p args that post would otherwise fail on; the
  /// core runs them before the cross-rank validation, so that they fail at
  /// the call as before.
  virtual commrt_status check(const OpArgs &args) const {
    (void)args;
    return COMMRT_SUCCESS;
  }
  /// Advances what waits for the core to poll (the mpi backend's receives
  /// waiting for their message); called by every wait loop, whatever it
  /// waits for.
  virtual void pollPending() {}
  /// The memory space of the buffers the backend moves.
  virtual commrt_memory_space bufferSpace() const { return COMMRT_HOST; }
  /// True if operations posted on one stream run in the order they were
  /// posted (nccl): a schedule is then enqueued whole instead of advanced
  /// by polling.
  virtual bool streamOrdered() const { return false; }
  /// The stream the backend runs on when a caller passes none (nccl's
  /// own), so that a schedule's local steps follow its transfers.
  virtual commrt_stream *ownStream() { return nullptr; }

protected:
  commrt_context *ctx;
};

/// Factories; each returns UNAVAILABLE with a message when the backend was
/// not built.
commrt_status createMpiBackend(commrt_context *ctx,
                               std::unique_ptr<Backend> &out);
commrt_status createNcclBackend(commrt_context *ctx,
                                std::unique_ptr<Backend> &out);
commrt_status createVerbsBackend(commrt_context *ctx,
                                 std::unique_ptr<Backend> &out);

/// Starts the transfers of \p posted (\p args as the caller passed it,
/// \p posted as the backend sees it after COMMRT_INJECT; \p corrupted the
/// injected copy it sends) as the schedule \p plan names, or as the
/// backend's own operation when \p plan is NULL or names none, and adds
/// COMMRT_DEBUG=checksum's exchange: lib/Ops.cpp.
commrt_status startOp(commrt_context *ctx, const OpArgs &args,
                      const OpArgs &posted, const commrt_plan *plan,
                      std::vector<char> corrupted,
                      std::unique_ptr<commrt_request> &out);

/// Starts \p args (a collective validated by the core) as the schedule
/// \p plan describes: lib/Schedule.cpp.
commrt_status postPlanned(commrt_context *ctx, const OpArgs &args,
                          const commrt_plan &plan,
                          std::unique_ptr<commrt_request> &out);

//===----------------------------------------------------------------------===//
// MPI bootstrap helpers (lib/Bootstrap.cpp)
//===----------------------------------------------------------------------===//

/// Waits for \p reqs with the context's deadline; \p what names the step
/// for the timeout message ("comm_create on group [...]"), and \p unnamed
/// says whom it waited for (no roll call names them).
commrt_status
waitMpi(commrt_context *ctx, MPI_Request *reqs, int count,
        const std::string &what,
        const char *unnamed = "waiting for ranks that did not join");

/// Waits for \p reqs, an exchange every member of \p comm joins as its
/// operation #\p sequence there, with the context's deadline. Meanwhile
/// this rank answers roll calls with \p what; on timeout its own roll call
/// names the members that did not join and what they wait in instead.
commrt_status waitInGroup(commrt_context *ctx, MPI_Request *reqs, int count,
                          const std::string &what, commrt_comm *comm,
                          uint64_t sequence);

/// The operation of a group that an exchange is a step of: its roll call
/// asks that group's members how far they are there (waitInGroup). No
/// group: the exchange is an operation of its own (waitExchange).
struct PartOf {
  commrt_comm *group = nullptr;
  uint64_t sequence = 0;
};

/// The world group's next operation, for the set-up steps that precede it
/// and that not every rank takes (duplicating a communicator, a group's
/// exchanges in comm_create): they do not count as operations, so that
/// every rank numbers the world's operations alike. None before roll calls
/// started.
PartOf nextWorldOperation(commrt_context *ctx);

/// Waits for \p req, an exchange posted on \p comm: a step of \p partOf
/// when it names a group (waitInGroup); otherwise, on the world (after roll
/// calls started), the world group's next operation; elsewhere waitMpi.
commrt_status waitExchange(commrt_context *ctx, MPI_Request *req, MPI_Comm comm,
                           const std::string &what, PartOf partOf = {});

/// "[0, 1, 2, 3]"; groups of more than 16 ranks are abbreviated.
std::string groupName(const std::vector<int> &ranks);

/// The communicator of this rank whose id is \p id (the world group too),
/// the one with the most operations posted if several share it; NULL if
/// none.
commrt_comm *findCommById(commrt_context *ctx, uint64_t id);

/// The exchanges below wait through waitExchange, with \p partOf.
///
/// Non-blocking allreduce with the deadline, on \p comm.
commrt_status allreduceMpi(commrt_context *ctx, const void *send, void *recv,
                           int count, MPI_Datatype type, MPI_Op op,
                           MPI_Comm comm, const std::string &what,
                           PartOf partOf = {});

/// Non-blocking barrier with the deadline, on \p comm.
commrt_status barrierMpi(commrt_context *ctx, MPI_Comm comm,
                         const std::string &what, PartOf partOf = {});

/// Non-blocking allgather of \p bytes from every rank with the deadline, on
/// \p comm.
commrt_status allgatherMpi(commrt_context *ctx, const void *send, void *recv,
                           int bytes, MPI_Comm comm, const std::string &what,
                           PartOf partOf = {});

/// Non-blocking broadcast with the deadline, on \p comm.
commrt_status bcastMpi(commrt_context *ctx, void *buf, int count,
                       MPI_Datatype type, int root, MPI_Comm comm,
                       const std::string &what, PartOf partOf = {});

/// Agrees on a local outcome across \p comm: returns SUCCESS if every rank
/// succeeded; otherwise the local failure (message kept) or, on ranks that
/// succeeded, REMOTE naming the first failing rank.
commrt_status agree(commrt_context *ctx, commrt_status local, MPI_Comm comm,
                    const std::string &what, PartOf partOf = {});

/// Polls \p req once; a failure is decorated with the op, group and rank,
/// made sticky, and raised with the context's policy.
commrt_status pollRequest(commrt_request *req, bool &done);

/// Waits for \p req with the context's timeout and error policy; on a
/// timeout or failure calls abandon() and marks the communicator failed.
commrt_status waitRequest(commrt_request *req);

/// Waits for \p req and frees it, or keeps it in ctx->abandoned if the wait
/// failed (its buffers may still be in use).
commrt_status completeRequest(std::unique_ptr<commrt_request> req);

//===----------------------------------------------------------------------===//
// Cross-rank validation (lib/Validate.cpp)
//===----------------------------------------------------------------------===//

/// Creates the MPI datatype and op of the fingerprint exchange (when the
/// validation or COMMRT_DEBUG=desync is on); stopValidation frees them.
commrt_status startValidation(commrt_context *ctx);
void stopValidation(commrt_context *ctx);

/// Starts the validated operations of every communicator whose turn came
/// (their group agreed and all before them started). Every wait calls it,
/// whatever it waits for: another rank may wait for these transfers.
void startAgreed(commrt_context *ctx);

/// Whether \p args (a collective) is checked across its group first.
bool validates(const commrt_context *ctx, const OpArgs &args);

/// Like startOp, once the group agreed on \p args: exchanges its
/// fingerprint and returns a request that starts the transfers when every
/// member passed the same, or fails on every member, naming the two ranks
/// that differ and what each passed, before any buffer is touched.
commrt_status startValidated(commrt_context *ctx, const OpArgs &args,
                             const OpArgs &posted, const commrt_plan *plan,
                             std::vector<char> corrupted,
                             std::unique_ptr<commrt_request> &out);

//===----------------------------------------------------------------------===//
// Fault injection, checksums (lib/Reliability.cpp)
//===----------------------------------------------------------------------===//

/// Parses a COMMRT_INJECT value into \p fault; on failure \p why says what
/// is wrong. \p worldSize bounds the rank.
bool parseFault(const char *text, int worldSize, Fault &fault,
                std::string &why);

/// Warns, on the rank it names, of a fault that never struck (an OP past
/// the operations this rank posted, a `create` on a rank that created no
/// group): a test of failure handling would otherwise pass untested.
void warnUnstruckFault(const commrt_context *ctx);

/// Applies ctx->fault if operation \p index of this rank is the one: exits,
/// stops, or points \p args.send at a corrupted copy kept in \p copy.
commrt_status injectFault(commrt_context *ctx, uint64_t index, OpArgs &args,
                          std::vector<char> &copy);

/// Applies ctx->fault if it strikes this rank at set-up step \p point
/// (`init`: in commrt_init once its roll calls are up; `create`: in the
/// first comm_create, inside this rank's group set-up), \p what naming it.
void injectSetupFault(commrt_context *ctx, FaultPoint point,
                      const std::string &what);

/// The payload checksum of COMMRT_DEBUG=checksum: FNV-1a over 64-bit words
/// with a final mix (any change confined to one word changes it).
uint64_t checksum(const void *data, size_t bytes);

/// COMMRT_DEBUG=checksum: the checksums of what this rank sends in \p args
/// (the caller's buffers, before any injection), taken before the
/// operation starts: an in-place all_to_all overwrites what it sends.
/// Empty without the mode.
std::vector<uint64_t> sentChecksums(const commrt_context *ctx,
                                    const OpArgs &args);

/// COMMRT_DEBUG=checksum: wraps \p req (started from \p args) so that it
/// also exchanges the checksums of the payload (\p sent, from
/// sentChecksums) and fails if the data arrived changed. No-op for the
/// operations it does not cover.
commrt_status addChecksum(commrt_context *ctx, const OpArgs &args,
                          const std::vector<uint64_t> &sent,
                          std::unique_ptr<commrt_request> &req);

//===----------------------------------------------------------------------===//
// Roll calls and failure notices (lib/RollCall.cpp)
//===----------------------------------------------------------------------===//

/// Creates ctx->rollCalls and posts the receives of questions and notices.
commrt_status startRollCalls(commrt_context *ctx);
/// Answers the roll calls of other ranks and collects their failure
/// notices; called while waiting.
void answerRollCalls(commrt_context *ctx);
/// Asks the other members of \p comm which operation they are in and
/// returns, for a timeout message, which ranks did not join this rank's
/// operation #\p sequence there.
std::string rollCall(commrt_context *ctx, commrt_comm *comm, uint64_t sequence);
/// Tells every other rank that operation #\p sequence of \p comm (null
/// for point to point), described by \p what, failed here with
/// \p message, so that their roll calls name this rank and the reason once
/// it leaves, and so that they do not wait for operations it will not
/// start.
void announceFailure(commrt_context *ctx, commrt_comm *comm, uint64_t sequence,
                     const std::string &what, const std::string &message);
/// True if a member of \p comm announced a failure after which it never
/// starts its operation #\p sequence there; \p why then says who and why.
bool peerGaveUp(commrt_context *ctx, const commrt_comm *comm, uint64_t sequence,
                std::string &why);

/// Finds, while this rank waits in operation #sequence of a group, ranks
/// that wait for each other in different groups. From time to time it asks
/// the other members, without blocking the wait, what each waits in. A
/// member that has not reached this operation and waits in operation #t of
/// another group, which this rank (blocked here) has not reached, cannot go
/// on, and neither can this rank: the ranks issued the collectives of the
/// two groups in different orders.
class DeadlockProbe {
public:
  /// Nothing is allocated or asked before a quarter of the timeout (50 ms
  /// to 1 s) has passed: a short wait costs nothing.
  DeadlockProbe(commrt_context *ctx, commrt_comm *comm, uint64_t sequence);
  ~DeadlockProbe();
  /// Called while waiting, \p waitedMs into the wait: asks when a probe is
  /// due and collects the answers. True when they show a deadlock, which
  /// \p why then describes.
  bool found(int64_t waitedMs, std::string &why);
  /// Drops the probe in flight (before a roll call asks the same ranks).
  void cancel();
  /// After found(): this rank's communicator of the other group. It is
  /// failed too (its order is broken) and the other members are told, so
  /// that those waiting in it stop at once.
  void abandonOther(const std::string &message);

private:
  struct Impl;
  commrt_context *ctx;
  commrt_comm *comm; ///< Null: a wait outside a group (asks nothing).
  uint64_t sequence;
  std::unique_ptr<Impl> impl; ///< Made when the first probe is due.
};
/// Cancels the posted receives; answers in flight are let go.
void stopRollCalls(commrt_context *ctx);

/// Prints "[commrt rank R] message" on stderr if verbose >= \p level.
void trace(commrt_context *ctx, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/// Whether \p ptr is GPU memory (false without a CUDA device in use).
bool isGpuMemory(const commrt_context *ctx, const void *ptr);

/// The cudaStream_t to run on: \p stream's, or NULL (the default stream).
inline void *cudaStreamOf(commrt_stream *stream) {
  return stream ? stream->cuda : nullptr;
}

} // namespace commrt

#endif // COMMRT_LIB_INTERNAL_H
