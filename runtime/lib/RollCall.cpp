//===- lib/RollCall.cpp - Roll calls and failure notices --------*- C++ -*-===//
//
// Part of the comm project: a compiler for communication between GPUs.
//
//===----------------------------------------------------------------------===//
//
// After a timeout, a roll call asks the other members of the group what
// they are doing, so that the message can name the ranks that did not join.
// A rank that fails an operation in return mode first tells every other
// rank (a failure notice): their roll calls then say why it left instead of
// "did not answer", and a rank waiting in an operation that the failed rank
// will never start stops waiting at once.
//
// Everything travels on ctx->health, apart from the traffic of operations:
// questions, answers and notices, each with its own tag. Ranks answer and
// collect notices while they wait in any commrt call.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

using namespace commrt;

namespace commrt {

/// A question: "how far are you on this group?", numbered by the asker.
struct Question {
  uint64_t number = 0;
  uint64_t comm = 0; ///< commrt_comm::id.
};

/// An answer: how many operations the rank posted on the group, and what it
/// waits in now.
struct Answer {
  uint64_t number = 0; ///< Of the question.
  uint64_t posted = 0;
  /// The group (commrt_comm::id) and index of the operation the rank is
  /// blocked in, waiting for its group; blockedComm 0 when none.
  uint64_t blockedComm = 0, blockedSequence = 0;
  /// Room for a desync check's text (up to 240 characters) and its group.
  char what[400] = {};
};

/// A failure notice: an operation failed on the sender.
struct Notice {
  /// commrt_comm::id of the operation's group; 0 for point to point.
  uint64_t comm = 0;
  /// Operations the sender started on that group, and the failed one's
  /// index there.
  uint64_t started = 0, sequence = 0;
  /// The group's communicator is failed on the sender: it starts no more
  /// operations on it.
  uint32_t commFailed = 0;
  char what[200] = {}; ///< describe() of the operation.
  char why[800] = {};  ///< The error message.
};

class RollCalls {
public:
  Question question;
  MPI_Request questions = MPI_REQUEST_NULL;
  Notice notice;
  MPI_Request notices = MPI_REQUEST_NULL;
  /// Sends in flight: MPI reads their buffers until they complete.
  std::vector<std::pair<MPI_Request, std::unique_ptr<Answer>>> answers;
  std::vector<std::pair<MPI_Request, std::unique_ptr<Question>>> asks;
  /// A notice and its sends to every other rank.
  struct Told {
    std::unique_ptr<Notice> notice;
    std::vector<MPI_Request> sends;
  };
  std::vector<Told> told;
  uint64_t asked = 0;
  /// The notices received, with their sender's world rank, oldest first.
  std::vector<std::pair<int, Notice>> failures;
};

} // namespace commrt

namespace {
constexpr int questionTag = 1, answerTag = 2, noticeTag = 3;

/// Frees the buffers of the sends in \p sent that completed.
template <typename T>
void letGo(std::vector<std::pair<MPI_Request, std::unique_ptr<T>>> &sent) {
  for (size_t i = 0; i < sent.size();) {
    int flag = 0;
    MPI_Test(&sent[i].first, &flag, MPI_STATUS_IGNORE);
    if (flag) {
      sent[i] = std::move(sent.back());
      sent.pop_back();
    } else {
      ++i;
    }
  }
}

/// Frees the requests of sends still in flight and leaks their buffers:
/// MPI may still read them.
template <typename T>
void leak(std::vector<std::pair<MPI_Request, std::unique_ptr<T>>> &sent) {
  for (auto &s : sent) {
    MPI_Request_free(&s.first);
    (void)s.second.release();
  }
  sent.clear();
}

/// Cancels the receive \p req; MPI_Wait returns at once after MPI_Cancel
/// and guarantees MPI no longer writes into the buffer.
void cancelReceive(MPI_Request &req) {
  if (req == MPI_REQUEST_NULL)
    return;
  MPI_Cancel(&req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
}

/// How long a roll call waits for answers.
int64_t graceMs(const commrt_context *ctx) {
  int64_t t = ctx->opts.timeout_ms / 4;
  return t < 50 ? 50 : t > 500 ? 500 : t;
}

/// The first notice of world rank \p rank, or null.
const Notice *firstNotice(const RollCalls &rc, int rank) {
  for (const auto &f : rc.failures)
    if (f.first == rank)
      return &f.second;
  return nullptr;
}
} // namespace

namespace commrt {

/// Questions to every other member of a group, and their answers as they
/// arrive: what a roll call and a deadlock probe share.
struct Inquiry {
  uint64_t number = 0;
  commrt_comm *comm = nullptr;
  std::vector<MPI_Request> replies;
  std::vector<Answer> answers;
  std::vector<char> answered;
  size_t pending = 0;
  bool open = false;

  ~Inquiry() { close(); }

  /// Asks every other member of \p group what it waits in.
  void ask(commrt_context *ctx, commrt_comm *group) {
    RollCalls &rc = *ctx->rollCalls;
    number = ++rc.asked;
    comm = group;
    size_t n = comm->ranks.size();
    replies.assign(n, MPI_REQUEST_NULL);
    answers.assign(n, Answer());
    answered.assign(n, 0);
    pending = 0;
    for (size_t p = 0; p < n; ++p) {
      if (static_cast<int>(p) == comm->position)
        continue;
      auto question = std::make_unique<Question>();
      question->number = number;
      question->comm = comm->id;
      MPI_Request send = MPI_REQUEST_NULL;
      if (MPI_Isend(question.get(), sizeof(Question), MPI_BYTE, comm->ranks[p],
                    questionTag, ctx->health, &send) == MPI_SUCCESS)
        rc.asks.emplace_back(send, std::move(question));
      if (MPI_Irecv(&answers[p], sizeof(Answer), MPI_BYTE, comm->ranks[p],
                    answerTag, ctx->health, &replies[p]) == MPI_SUCCESS)
        ++pending;
    }
    open = true;
  }

  /// Takes the answers that arrived.
  void collect(commrt_context *ctx) {
    for (size_t p = 0; p < replies.size(); ++p) {
      int flag = 0;
      if (answered[p] || replies[p] == MPI_REQUEST_NULL ||
          MPI_Test(&replies[p], &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS ||
          !flag)
        continue;
      if (answers[p].number != number) {
        // An answer to an earlier question, arrived late.
        MPI_Irecv(&answers[p], sizeof(Answer), MPI_BYTE, comm->ranks[p],
                  answerTag, ctx->health, &replies[p]);
        continue;
      }
      answered[p] = 1;
      --pending;
    }
  }

  /// Drops the answers still due (a late one is recognized by its number;
  /// questions to a dead rank are never received).
  void close() {
    if (!open)
      return;
    for (size_t p = 0; p < replies.size(); ++p)
      if (!answered[p])
        cancelReceive(replies[p]);
    open = false;
  }
};

} // namespace commrt

commrt_status commrt::startRollCalls(commrt_context *ctx) {
  ctx->rollCalls = std::make_shared<RollCalls>();
  RollCalls &rc = *ctx->rollCalls;
  int err = MPI_Irecv(&rc.question, sizeof(Question), MPI_BYTE, MPI_ANY_SOURCE,
                      questionTag, ctx->health, &rc.questions);
  if (err == MPI_SUCCESS)
    err = MPI_Irecv(&rc.notice, sizeof(Notice), MPI_BYTE, MPI_ANY_SOURCE,
                    noticeTag, ctx->health, &rc.notices);
  if (err != MPI_SUCCESS)
    return setError(COMMRT_ERROR_BACKEND,
                    "commrt: commrt_init: " + mpiErrorString("MPI_Irecv", err));
  return COMMRT_SUCCESS;
}

void commrt::answerRollCalls(commrt_context *ctx) {
  if (!ctx->rollCalls)
    return;
  RollCalls &rc = *ctx->rollCalls;
  // Let go of the answers, questions and notices that were delivered.
  letGo(rc.answers);
  letGo(rc.asks);
  for (size_t i = 0; i < rc.told.size();) {
    auto &sends = rc.told[i].sends;
    int flag = 0;
    MPI_Testall(static_cast<int>(sends.size()), sends.data(), &flag,
                MPI_STATUSES_IGNORE);
    if (flag) {
      if (i + 1 < rc.told.size())
        rc.told[i] = std::move(rc.told.back());
      rc.told.pop_back();
    } else {
      ++i;
    }
  }
  for (;;) {
    int flag = 0;
    MPI_Status status;
    if (rc.notices == MPI_REQUEST_NULL ||
        MPI_Test(&rc.notices, &flag, &status) != MPI_SUCCESS || !flag)
      break;
    rc.failures.emplace_back(status.MPI_SOURCE, rc.notice);
    if (MPI_Irecv(&rc.notice, sizeof(Notice), MPI_BYTE, MPI_ANY_SOURCE,
                  noticeTag, ctx->health, &rc.notices) != MPI_SUCCESS)
      rc.notices = MPI_REQUEST_NULL;
  }
  for (;;) {
    int flag = 0;
    MPI_Status status;
    if (rc.questions == MPI_REQUEST_NULL ||
        MPI_Test(&rc.questions, &flag, &status) != MPI_SUCCESS || !flag)
      return;
    auto answer = std::make_unique<Answer>();
    answer->number = rc.question.number;
    if (commrt_comm *comm = findCommById(ctx, rc.question.comm))
      answer->posted = comm->posted;
    // In the exchange that precedes an operation of the group: it reached
    // that operation.
    if (ctx->waitingIn && ctx->waitingInComm == rc.question.comm &&
        ctx->waitingInSequence + 1 > answer->posted)
      answer->posted = ctx->waitingInSequence + 1;
    if (ctx->waitingIn) {
      answer->blockedComm = ctx->waitingInComm;
      answer->blockedSequence = ctx->waitingInSequence;
    } else if (ctx->waitingFor && ctx->waitingFor->args.comm) {
      answer->blockedComm = ctx->waitingFor->args.comm->id;
      answer->blockedSequence = ctx->waitingFor->sequence;
    }
    std::snprintf(answer->what, sizeof answer->what, "%s",
                  ctx->waitingIn    ? ctx->waitingIn->c_str()
                  : ctx->waitingFor ? describe(ctx->waitingFor->args).c_str()
                                    : "a commrt bootstrap step");
    MPI_Request send = MPI_REQUEST_NULL;
    if (MPI_Isend(answer.get(), sizeof(Answer), MPI_BYTE, status.MPI_SOURCE,
                  answerTag, ctx->health, &send) == MPI_SUCCESS)
      rc.answers.emplace_back(send, std::move(answer));
    if (MPI_Irecv(&rc.question, sizeof(Question), MPI_BYTE, MPI_ANY_SOURCE,
                  questionTag, ctx->health, &rc.questions) != MPI_SUCCESS)
      rc.questions = MPI_REQUEST_NULL;
  }
}

std::string commrt::rollCall(commrt_context *ctx, commrt_comm *comm,
                             uint64_t sequence) {
  if (!comm || !ctx->rollCalls)
    return "waiting for ranks that did not join";
  RollCalls &rc = *ctx->rollCalls;
  size_t n = comm->ranks.size();
  Inquiry inquiry;
  inquiry.ask(ctx, comm);
  Deadline deadline(graceMs(ctx));
  Backoff backoff(ctx->oversubscribed);
  while (inquiry.pending && !deadline.expired()) {
    answerRollCalls(ctx);
    inquiry.collect(ctx);
    backoff.pause();
  }
  inquiry.close();
  const std::vector<Answer> &answers = inquiry.answers;
  const std::vector<char> &answered = inquiry.answered;

  std::string missing, failed, elsewhere;
  for (size_t p = 0; p < n; ++p) {
    if (static_cast<int>(p) == comm->position)
      continue;
    int peer = comm->ranks[p];
    const Answer &a = answers[p];
    if (!answered[p]) {
      // A rank that failed and returned to its caller told us why.
      if (const Notice *notice = firstNotice(rc, peer))
        failed += format("%srank %d failed: %s", failed.empty() ? "" : "; ",
                         peer, notice->why);
      else
        missing += format("%s%d", missing.empty() ? "" : ", ", peer);
      continue;
    }
    if (a.posted > sequence)
      continue; // It posted this operation.
    elsewhere += format("; rank %d has not reached it: it posted %llu "
                        "operations on this group (this is #%llu) and waits "
                        "in %s",
                        peer, static_cast<unsigned long long>(a.posted),
                        static_cast<unsigned long long>(sequence), a.what);
  }
  if (missing.empty() && failed.empty() && elsewhere.empty())
    return "waiting for ranks that did not join; every rank of the group "
           "is in it, so the transfer itself stalled";
  std::string out = "waiting for ranks that did not join";
  if (!failed.empty())
    out += ": " + failed;
  if (!missing.empty())
    out += format("%s rank%s %s did not answer within %lld ms (exited, "
                  "killed, or stopped outside commrt)",
                  failed.empty() ? ":" : ";",
                  missing.find(',') == std::string::npos ? "" : "s",
                  missing.c_str(), static_cast<long long>(graceMs(ctx)));
  return out + elsewhere;
}

void commrt::announceFailure(commrt_context *ctx, commrt_comm *comm,
                             uint64_t sequence, const std::string &what,
                             const std::string &message) {
  // Under the abort policy the job ends anyway.
  if (!ctx->rollCalls || ctx->opts.on_error == COMMRT_ON_ERROR_ABORT)
    return;
  RollCalls &rc = *ctx->rollCalls;
  RollCalls::Told told;
  told.notice = std::make_unique<Notice>();
  Notice *notice = told.notice.get();
  if (comm) {
    notice->comm = comm->id;
    notice->started = comm->started;
    notice->sequence = sequence;
    notice->commFailed = comm->failed ? 1 : 0;
  }
  std::snprintf(notice->what, sizeof notice->what, "%s", what.c_str());
  std::snprintf(notice->why, sizeof notice->why, "%s", message.c_str());
  // Every rank may wait for this one somewhere: tell them all.
  for (int r = 0; r < ctx->size; ++r) {
    if (r == ctx->rank)
      continue;
    MPI_Request send = MPI_REQUEST_NULL;
    if (MPI_Isend(notice, sizeof(Notice), MPI_BYTE, r, noticeTag, ctx->health,
                  &send) == MPI_SUCCESS)
      told.sends.push_back(send);
  }
  rc.told.push_back(std::move(told));
}

bool commrt::peerGaveUp(commrt_context *ctx, const commrt_comm *comm,
                        uint64_t sequence, std::string &why) {
  if (!comm || !ctx->rollCalls)
    return false;
  // Of the members that gave up before this operation, the one that failed
  // first on the group: later ones usually failed because of it.
  const std::pair<int, Notice> *first = nullptr;
  for (const auto &f : ctx->rollCalls->failures) {
    const Notice &n = f.second;
    // Its communicator is failed: it starts nothing after what it had.
    if (n.comm != comm->id || !n.commFailed || n.started > sequence)
      continue;
    if (!first || n.sequence < first->second.sequence)
      first = &f;
  }
  if (!first)
    return false;
  const Notice &n = first->second;
  why = format("rank %d left the group before this operation: its "
               "operation #%llu there (%s) failed: %s",
               first->first, static_cast<unsigned long long>(n.sequence),
               n.what, n.why);
  return true;
}

void commrt::stopRollCalls(commrt_context *ctx) {
  if (!ctx->rollCalls)
    return;
  RollCalls &rc = *ctx->rollCalls;
  cancelReceive(rc.questions);
  cancelReceive(rc.notices);
  // MPI may still read sends in flight: keep their buffers.
  leak(rc.answers);
  leak(rc.asks);
  for (auto &t : rc.told) {
    for (MPI_Request &send : t.sends)
      if (send != MPI_REQUEST_NULL)
        MPI_Request_free(&send);
    (void)t.notice.release();
  }
  rc.told.clear();
  ctx->rollCalls.reset();
}

namespace commrt {

//===----------------------------------------------------------------------===//
// DeadlockProbe
//===----------------------------------------------------------------------===//

struct DeadlockProbe::Impl {
  /// When the next probe is due, in ms into the wait, and the pause after
  /// it (doubling: a long operation is asked about ever less often).
  int64_t dueMs, pauseMs;
  /// The probe in flight and when it asked.
  Inquiry inquiry;
  int64_t askedMs = 0;
  /// The other group of the deadlock found.
  commrt_comm *other = nullptr;
};

/// A quarter of the timeout, between 50 ms and 1 s: a collective that takes
/// longer is asked about, which costs a small message per member.
static int64_t firstProbeMs(const commrt_context *ctx) {
  int64_t timeout = ctx->opts.timeout_ms;
  return timeout > 0
             ? std::min<int64_t>(1000, std::max<int64_t>(50, timeout / 4))
             : 1000;
}

DeadlockProbe::DeadlockProbe(commrt_context *ctx, commrt_comm *comm,
                             uint64_t sequence)
    : ctx(ctx), comm(comm), sequence(sequence) {}

DeadlockProbe::~DeadlockProbe() { cancel(); }

void DeadlockProbe::cancel() {
  if (impl)
    impl->inquiry.close();
}

void DeadlockProbe::abandonOther(const std::string &message) {
  commrt_comm *other = impl ? impl->other : nullptr;
  if (!other || other->failed)
    return;
  other->failed = true;
  other->failure = message;
  announceFailure(ctx, other, other->posted,
                  "its next operation on group " + other->name, message);
}

bool DeadlockProbe::found(int64_t waitedMs, std::string &why) {
  if (!comm || !ctx->rollCalls || comm->ranks.size() < 2)
    return false;
  if (!impl) {
    int64_t first = firstProbeMs(ctx);
    if (waitedMs < first)
      return false;
    impl = std::make_unique<Impl>();
    impl->dueMs = impl->pauseMs = first;
  }
  Impl &p = *impl;
  if (!p.inquiry.open) {
    if (waitedMs < p.dueMs)
      return false;
    p.inquiry.ask(ctx, comm);
    p.askedMs = waitedMs;
  }
  p.inquiry.collect(ctx);
  if (p.inquiry.pending && waitedMs - p.askedMs < graceMs(ctx))
    return false;
  p.inquiry.close();
  p.dueMs = waitedMs + p.pauseMs;
  p.pauseMs = std::min<int64_t>(p.pauseMs * 2, 16000);
  // A member that reached this operation, or waits in nothing of a group's
  // (its own code, point to point), holds up nobody for sure.
  for (size_t m = 0; m < p.inquiry.answers.size(); ++m) {
    const Answer &a = p.inquiry.answers[m];
    if (!p.inquiry.answered[m] || a.posted > sequence || !a.blockedComm ||
        a.blockedComm == comm->id)
      continue;
    // This rank's part in the group the member waits in.
    commrt_comm *mine = findCommById(ctx, a.blockedComm);
    if (!mine || mine->posted > a.blockedSequence)
      continue;
    p.other = mine;
    why = format(
        "deadlock: rank %d has not reached this operation (#%llu on this "
        "group) and waits in %s (its operation #%llu on group %s), which "
        "rank %d, waiting here, has not reached (it posted %llu operations "
        "on that group): the ranks issued the collectives of the two groups "
        "in different orders, so neither can go on",
        comm->ranks[m], static_cast<unsigned long long>(sequence), a.what,
        static_cast<unsigned long long>(a.blockedSequence), mine->name.c_str(),
        ctx->rank, static_cast<unsigned long long>(mine->posted));
    return true;
  }
  return false;
}

} // namespace commrt
