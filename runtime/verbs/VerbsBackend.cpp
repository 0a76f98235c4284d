//===- verbs/VerbsBackend.cpp - ibverbs backend -----------------*- C++ -*-===//
//
// Part of the comm project: a compiler for communication between GPUs.
//
//===----------------------------------------------------------------------===//
//
// RDMA point to point over ibverbs. At init: open the device, allocate a
// protection domain and one completion queue, create one reliable-connected
// queue pair per peer, exchange (qpn, lid, gid, psn) over MPI_Ialltoall and
// move every queue pair INIT -> RTR -> RTS.
//
// Protocol (receiver-driven rendezvous): a recv registers its buffer and
// sends the peer a clear-to-send message {address, rkey, bytes, tag, seq}
// with IBV_WR_SEND. A send waits for the first clear-to-send of the same
// tag from its peer (sends are matched in the order they were posted), then
// writes its data with IBV_WR_RDMA_WRITE_WITH_IMM carrying seq as immediate
// data; the receiver's completion with that seq completes the recv.
// Messages to self are copied locally (through CUDA when either buffer is
// GPU memory). GPU buffers are registered as they are: GPUDirect RDMA, which
// needs the nvidia-peermem module; without it registration fails and says
// so. permute is a send and a recv on a reserved tag. Collectives are not
// implemented on this backend and say so.
//
// Only compiled and linked on the development machine (no RDMA device);
// see docs/Runtime.md.
//
//===----------------------------------------------------------------------===//

#include "../lib/Internal.h"

#if COMMRT_HAVE_CUDA
#include "../cuda/Cuda.h"
#endif

#include <infiniband/verbs.h>

#include <arpa/inet.h>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>

using namespace commrt;

namespace {

constexpr int recvDepth = 64;  ///< Receives kept posted per queue pair.
constexpr int sendSlots = 256; ///< Clear-to-send messages in flight.
constexpr uint32_t permuteTag = 1u << 30; ///< Above every user tag.

/// Receiver to sender: where to write. Trivially copyable; sent as bytes.
struct ClearToSend {
  uint64_t address;
  uint64_t bytes;
  uint32_t rkey;
  uint32_t tag;
  uint32_t seq;
  uint32_t padding;
};

/// Connection data of one queue pair, exchanged over MPI.
struct Wire {
  uint32_t qpn;
  uint32_t psn;
  uint16_t lid;
  uint8_t gid[16];
  uint8_t padding[2];
};

/// wr_id layout: kind in the top 8 bits, a peer or slot in the next 24, an
/// index in the low 32.
enum WorkKind : uint64_t { RecvSlot = 1, CtsSend = 2, DataWrite = 3 };
uint64_t workId(WorkKind kind, uint32_t peer, uint32_t index) {
  return (uint64_t(kind) << 56) | (uint64_t(peer & 0xffffff) << 32) | index;
}

/// One direction of a transfer.
struct Leg {
  bool isSend = false;
  int peer = -1;
  uint32_t tag = 0;
  void *buffer = nullptr;
  size_t bytes = 0;
  uint32_t seq = 0;    ///< recv: the seq of our clear-to-send.
  uint32_t id = 0;     ///< send: the index of its data write.
  bool posted = false; ///< send: the write was posted.
  bool done = false;
};

class VerbsBackend;

class VerbsRequest : public commrt_request {
public:
  VerbsRequest(commrt_context *ctx, const OpArgs &args, VerbsBackend *backend)
      : commrt_request(ctx, args), backend(backend) {}
  commrt_status poll(bool &done) override;

  VerbsBackend *backend;
  std::vector<std::unique_ptr<Leg>> legs;
};

commrt_status verbsFailed(const std::string &what, int err) {
  return setError(
      COMMRT_ERROR_BACKEND,
      format("verbs backend: %s failed: %s", what.c_str(), std::strerror(err)));
}

/// dst = src for a message to self, in host or GPU memory.
commrt_status copyToSelf(const commrt_context *ctx, void *dst, const void *src,
                         size_t bytes) {
#if COMMRT_HAVE_CUDA
  if (isGpuMemory(ctx, dst) || isGpuMemory(ctx, src))
    return cuda::copy(dst, src, bytes, nullptr, /*synchronous=*/true);
#endif
  (void)ctx;
  std::memmove(dst, src, bytes);
  return COMMRT_SUCCESS;
}

int envInt(const char *name, int fallback) {
  const char *text = std::getenv(name);
  return text && *text ? std::atoi(text) : fallback;
}

class VerbsBackend : public Backend {
public:
  explicit VerbsBackend(commrt_context *ctx) : Backend(ctx) {}
  ~VerbsBackend() override;

  commrt_backend kind() const override { return COMMRT_BACKEND_VERBS; }
  const char *name() const override { return "verbs"; }
  commrt_status init() override;
  commrt_status createComm(commrt_comm *) override { return COMMRT_SUCCESS; }
  void destroyComm(commrt_comm *) override {}
  commrt_status post(const OpArgs &args,
                     std::unique_ptr<commrt_request> &out) override;

  /// Polls the completion queue and matches sends with clear-to-sends.
  commrt_status progress();
  /// Sticky failure of a work completion.
  commrt_status failure() const {
    return failed ? setError(COMMRT_ERROR_BACKEND, failMessage)
                  : COMMRT_SUCCESS;
  }

private:
  struct Peer {
    ibv_qp *qp = nullptr;
    uint32_t psn = 0;
    std::deque<ClearToSend> clearToSend; ///< Received, not used yet.
    std::deque<Leg *> unmatchedSends;    ///< In posting order.
    uint32_t nextSeq = 0;
    int outstanding = 0; ///< Send work requests not completed yet.
  };

  commrt_status openDevice();
  commrt_status createQueuePairs();
  commrt_status connect(const std::vector<Wire> &remote);
  commrt_status postRecvSlot(int peer, uint32_t slot);
  commrt_status registerBuffer(void *buffer, size_t bytes, ibv_mr *&mr);
  commrt_status startRecv(Leg *leg);
  commrt_status startSend(Leg *leg);
  commrt_status postWrite(Leg *leg, const ClearToSend &cts);
  /// Progresses until \p ready() holds, or fails after the timeout.
  template <typename Ready>
  commrt_status waitFor(Ready ready, const char *what) {
    Deadline deadline(ctx->opts.timeout_ms);
    Backoff backoff(ctx->oversubscribed);
    while (!ready()) {
      if (commrt_status s = progress())
        return s;
      if (deadline.expired())
        return setError(COMMRT_ERROR_TIMEOUT,
                        format("verbs backend: %s for %lld ms", what,
                               static_cast<long long>(deadline.timeout())));
      backoff.pause();
    }
    return COMMRT_SUCCESS;
  }
  /// Posts \p wr on the queue pair of \p peer once its send queue has room.
  commrt_status postSend(int peer, ibv_send_wr &wr, const char *what);
  void fail(const std::string &message) {
    if (!failed) {
      failed = true;
      failMessage = message;
    }
  }

  ibv_device **devices = nullptr;
  ibv_context *device = nullptr;
  ibv_pd *pd = nullptr;
  ibv_cq *cq = nullptr;
  ibv_port_attr portAttr{};
  uint8_t port = 1;
  int gidIndex = 0;
  ibv_gid gid{};
  std::string deviceName;

  std::vector<Peer> peers;
  /// Receive slots, recvDepth per peer, and the clear-to-send send slots.
  std::vector<ClearToSend> recvBuffers, sendBuffers;
  ibv_mr *recvMr = nullptr, *sendMr = nullptr;
  std::vector<uint32_t> freeSendSlots; ///< Indices into sendBuffers.

  std::map<std::pair<uintptr_t, size_t>, ibv_mr *> registered;
  /// recv legs by (peer, seq); send legs by write index.
  std::map<std::pair<int, uint32_t>, Leg *> recvsBySeq;
  std::map<uint32_t, Leg *> writes;
  uint32_t nextWrite = 0;

  bool failed = false;
  std::string failMessage;
};

VerbsBackend::~VerbsBackend() {
  for (Peer &peer : peers)
    if (peer.qp)
      ibv_destroy_qp(peer.qp);
  for (auto &entry : registered)
    ibv_dereg_mr(entry.second);
  if (recvMr)
    ibv_dereg_mr(recvMr);
  if (sendMr)
    ibv_dereg_mr(sendMr);
  if (cq)
    ibv_destroy_cq(cq);
  if (pd)
    ibv_dealloc_pd(pd);
  if (device)
    ibv_close_device(device);
  if (devices)
    ibv_free_device_list(devices);
}

commrt_status VerbsBackend::openDevice() {
  int count = 0;
  errno = 0;
  devices = ibv_get_device_list(&count);
  if (!devices) {
    int err = errno;
    if (err == ENOSYS || err == 0)
      return setError(COMMRT_ERROR_UNAVAILABLE,
                      format("verbs backend: no RDMA device found "
                             "(ibv_get_device_list returned 0 devices; %s)",
                             err ? "errno ENOSYS: the kernel has no RDMA "
                                   "support loaded"
                                 : "no device"));
    return verbsFailed("ibv_get_device_list", err);
  }
  if (count == 0)
    return setError(COMMRT_ERROR_UNAVAILABLE,
                    "verbs backend: no RDMA device found "
                    "(ibv_get_device_list returned 0 devices)");
  ibv_device *chosen = devices[0];
  if (const char *wanted = std::getenv("COMMRT_VERBS_DEVICE")) {
    chosen = nullptr;
    for (int i = 0; i < count && !chosen; ++i)
      if (!std::strcmp(ibv_get_device_name(devices[i]), wanted))
        chosen = devices[i];
    if (!chosen)
      return setError(COMMRT_ERROR_UNAVAILABLE,
                      format("verbs backend: RDMA device '%s' "
                             "(COMMRT_VERBS_DEVICE) not found among %d",
                             wanted, count));
  }
  deviceName = ibv_get_device_name(chosen);
  device = ibv_open_device(chosen);
  if (!device)
    return verbsFailed("ibv_open_device(" + deviceName + ")", errno);
  port = static_cast<uint8_t>(envInt("COMMRT_VERBS_PORT", 1));
  gidIndex = envInt("COMMRT_VERBS_GID_INDEX", 0);
  if (int err = ibv_query_port(device, port, &portAttr))
    return verbsFailed(
        format("ibv_query_port(%s, %d)", deviceName.c_str(), port), err);
  if (portAttr.state != IBV_PORT_ACTIVE)
    return setError(COMMRT_ERROR_UNAVAILABLE,
                    format("verbs backend: port %d of %s is not active "
                           "(state %s)",
                           port, deviceName.c_str(),
                           ibv_port_state_str(portAttr.state)));
  if (int err = ibv_query_gid(device, port, gidIndex, &gid))
    return verbsFailed("ibv_query_gid", err);
  pd = ibv_alloc_pd(device);
  if (!pd)
    return verbsFailed("ibv_alloc_pd", errno);
  cq = ibv_create_cq(device, 4 * (ctx->size * recvDepth + sendSlots), nullptr,
                     nullptr, 0);
  if (!cq)
    return verbsFailed("ibv_create_cq", errno);
  recvBuffers.resize(static_cast<size_t>(ctx->size) * recvDepth);
  sendBuffers.resize(sendSlots);
  for (uint32_t slot = 0; slot < sendSlots; ++slot)
    freeSendSlots.push_back(slot);
  recvMr = ibv_reg_mr(pd, recvBuffers.data(),
                      recvBuffers.size() * sizeof(ClearToSend),
                      IBV_ACCESS_LOCAL_WRITE);
  sendMr = ibv_reg_mr(pd, sendBuffers.data(),
                      sendBuffers.size() * sizeof(ClearToSend),
                      IBV_ACCESS_LOCAL_WRITE);
  if (!recvMr || !sendMr)
    return verbsFailed("ibv_reg_mr (control buffers)", errno);
  return COMMRT_SUCCESS;
}

commrt_status VerbsBackend::postRecvSlot(int peer, uint32_t slot) {
  ClearToSend *buffer =
      &recvBuffers[static_cast<size_t>(peer) * recvDepth + slot];
  ibv_sge sge{};
  sge.addr = reinterpret_cast<uintptr_t>(buffer);
  sge.length = sizeof(ClearToSend);
  sge.lkey = recvMr->lkey;
  ibv_recv_wr wr{}, *bad = nullptr;
  wr.wr_id = workId(RecvSlot, static_cast<uint32_t>(peer), slot);
  wr.sg_list = &sge;
  wr.num_sge = 1;
  if (int err = ibv_post_recv(peers[static_cast<size_t>(peer)].qp, &wr, &bad))
    return verbsFailed("ibv_post_recv", err);
  return COMMRT_SUCCESS;
}

commrt_status VerbsBackend::createQueuePairs() {
  peers.resize(static_cast<size_t>(ctx->size));
  for (int p = 0; p < ctx->size; ++p) {
    if (p == ctx->rank)
      continue;
    ibv_qp_init_attr init{};
    init.send_cq = cq;
    init.recv_cq = cq;
    init.qp_type = IBV_QPT_RC;
    init.cap.max_send_wr = sendSlots;
    init.cap.max_recv_wr = recvDepth;
    init.cap.max_send_sge = 1;
    init.cap.max_recv_sge = 1;
    Peer &peer = peers[static_cast<size_t>(p)];
    peer.qp = ibv_create_qp(pd, &init);
    if (!peer.qp)
      return verbsFailed(format("ibv_create_qp (peer %d)", p), errno);
    peer.psn = static_cast<uint32_t>(std::rand()) & 0xffffff;
    ibv_qp_attr attr{};
    attr.qp_state = IBV_QPS_INIT;
    attr.pkey_index = 0;
    attr.port_num = port;
    attr.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
    if (int err = ibv_modify_qp(peer.qp, &attr,
                                IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
                                    IBV_QP_ACCESS_FLAGS))
      return verbsFailed(format("ibv_modify_qp to INIT (peer %d)", p), err);
    for (uint32_t slot = 0; slot < recvDepth; ++slot)
      if (commrt_status s = postRecvSlot(p, slot))
        return s;
  }
  return COMMRT_SUCCESS;
}

commrt_status VerbsBackend::connect(const std::vector<Wire> &remote) {
  for (int p = 0; p < ctx->size; ++p) {
    if (p == ctx->rank)
      continue;
    Peer &peer = peers[static_cast<size_t>(p)];
    const Wire &w = remote[static_cast<size_t>(p)];
    ibv_qp_attr attr{};
    attr.qp_state = IBV_QPS_RTR;
    attr.path_mtu = portAttr.active_mtu;
    attr.dest_qp_num = w.qpn;
    attr.rq_psn = w.psn;
    attr.max_dest_rd_atomic = 1;
    attr.min_rnr_timer = 12;
    attr.ah_attr.dlid = w.lid;
    attr.ah_attr.sl = 0;
    attr.ah_attr.src_path_bits = 0;
    attr.ah_attr.port_num = port;
    bool global = portAttr.link_layer == IBV_LINK_LAYER_ETHERNET;
    for (uint8_t byte : w.gid)
      global |= portAttr.lid == 0 && byte != 0;
    if (global) {
      attr.ah_attr.is_global = 1;
      std::memcpy(attr.ah_attr.grh.dgid.raw, w.gid, 16);
      attr.ah_attr.grh.sgid_index = static_cast<uint8_t>(gidIndex);
      attr.ah_attr.grh.hop_limit = 64;
    }
    if (int err =
            ibv_modify_qp(peer.qp, &attr,
                          IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
                              IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                              IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
      return verbsFailed(format("ibv_modify_qp to RTR (peer %d)", p), err);
    std::memset(&attr, 0, sizeof(attr));
    attr.qp_state = IBV_QPS_RTS;
    attr.timeout = 14;
    attr.retry_cnt = 7;
    attr.rnr_retry = 7; // retry forever while the peer has no receive posted
    attr.sq_psn = peer.psn;
    attr.max_rd_atomic = 1;
    if (int err = ibv_modify_qp(peer.qp, &attr,
                                IBV_QP_STATE | IBV_QP_TIMEOUT |
                                    IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                                    IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC))
      return verbsFailed(format("ibv_modify_qp to RTS (peer %d)", p), err);
  }
  return COMMRT_SUCCESS;
}

commrt_status VerbsBackend::init() {
  // Local set-up first; agree before the exchange so that a rank without a
  // device cannot leave the others in MPI_Ialltoall.
  commrt_status local = openDevice();
  if (!local)
    local = createQueuePairs();
  if (commrt_status s = agree(ctx, local, ctx->world,
                              "commrt_init (verbs backend device set-up)"))
    return s;
  std::vector<Wire> mine(static_cast<size_t>(ctx->size)),
      theirs(static_cast<size_t>(ctx->size));
  for (int p = 0; p < ctx->size; ++p) {
    Wire &w = mine[static_cast<size_t>(p)];
    std::memset(&w, 0, sizeof(w));
    if (p == ctx->rank)
      continue;
    w.qpn = peers[static_cast<size_t>(p)].qp->qp_num;
    w.psn = peers[static_cast<size_t>(p)].psn;
    w.lid = portAttr.lid;
    std::memcpy(w.gid, gid.raw, 16);
  }
  MPI_Request req;
  int err = MPI_Ialltoall(mine.data(), sizeof(Wire), MPI_BYTE, theirs.data(),
                          sizeof(Wire), MPI_BYTE, ctx->world, &req);
  if (err != MPI_SUCCESS)
    return setError(COMMRT_ERROR_BACKEND,
                    "verbs backend: " + mpiErrorString("MPI_Ialltoall", err));
  if (commrt_status s = waitExchange(ctx, &req, ctx->world,
                                     "commrt_init (verbs queue pair exchange)"))
    return s;
  if (commrt_status s = connect(theirs))
    return s;
  trace(ctx, 1, "verbs backend: %s port %d, %d queue pairs connected",
        deviceName.c_str(), port, ctx->size - 1);
  return COMMRT_SUCCESS;
}

commrt_status VerbsBackend::registerBuffer(void *buffer, size_t bytes,
                                           ibv_mr *&mr) {
  mr = nullptr;
  if (bytes == 0)
    return COMMRT_SUCCESS;
  auto key = std::make_pair(reinterpret_cast<uintptr_t>(buffer), bytes);
  auto found = registered.find(key);
  if (found != registered.end()) {
    mr = found->second;
    return COMMRT_SUCCESS;
  }
  mr = ibv_reg_mr(pd, buffer, bytes,
                  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
  int err = errno; // before the CUDA query below can change it
  if (!mr && isGpuMemory(ctx, buffer))
    return verbsFailed(
        format("ibv_reg_mr of %zu bytes of GPU memory (GPUDirect RDMA needs "
               "the nvidia-peermem kernel module; load it, or plan with "
               "route host_staged)",
               bytes),
        err);
  if (!mr)
    return verbsFailed(format("ibv_reg_mr of %zu bytes", bytes), err);
  registered[key] = mr;
  return COMMRT_SUCCESS;
}

commrt_status VerbsBackend::startRecv(Leg *leg) {
  Peer &peer = peers[static_cast<size_t>(leg->peer)];
  ibv_mr *mr = nullptr;
  if (commrt_status s = registerBuffer(leg->buffer, leg->bytes, mr))
    return s;
  ClearToSend cts{};
  cts.address = reinterpret_cast<uintptr_t>(leg->buffer);
  cts.bytes = leg->bytes;
  cts.rkey = mr ? mr->rkey : 0;
  cts.tag = leg->tag;
  cts.seq = leg->seq = peer.nextSeq++;
  recvsBySeq[{leg->peer, leg->seq}] = leg;
  if (leg->peer == ctx->rank) {
    peer.clearToSend.push_back(cts); // matched locally by progress()
    return COMMRT_SUCCESS;
  }
  if (commrt_status s = waitFor([&] { return !freeSendSlots.empty(); },
                                "the clear-to-send slots stayed in use"))
    return s;
  uint32_t slot = freeSendSlots.back();
  freeSendSlots.pop_back();
  sendBuffers[slot] = cts;
  ibv_sge sge{};
  sge.addr = reinterpret_cast<uintptr_t>(&sendBuffers[slot]);
  sge.length = sizeof(ClearToSend);
  sge.lkey = sendMr->lkey;
  ibv_send_wr wr{};
  wr.wr_id = workId(CtsSend, static_cast<uint32_t>(leg->peer), slot);
  wr.opcode = IBV_WR_SEND;
  wr.send_flags = IBV_SEND_SIGNALED;
  wr.sg_list = &sge;
  wr.num_sge = 1;
  return postSend(leg->peer, wr, "ibv_post_send (clear to send)");
}

commrt_status VerbsBackend::postSend(int peer, ibv_send_wr &wr,
                                     const char *what) {
  Peer &p = peers[static_cast<size_t>(peer)];
  if (commrt_status s = waitFor([&] { return p.outstanding < sendSlots; },
                                "the send queue stayed full"))
    return s;
  ibv_send_wr *bad = nullptr;
  if (int err = ibv_post_send(p.qp, &wr, &bad))
    return verbsFailed(what, err);
  ++p.outstanding;
  return COMMRT_SUCCESS;
}

commrt_status VerbsBackend::startSend(Leg *leg) {
  peers[static_cast<size_t>(leg->peer)].unmatchedSends.push_back(leg);
  return progress();
}

commrt_status VerbsBackend::postWrite(Leg *leg, const ClearToSend &cts) {
  if (cts.bytes != leg->bytes)
    return setError(COMMRT_ERROR_BACKEND,
                    format("verbs backend: rank %d receives %llu bytes with "
                           "tag %u but this rank sends %zu",
                           leg->peer,
                           static_cast<unsigned long long>(cts.bytes),
                           cts.tag & ~permuteTag, leg->bytes));
  leg->posted = true;
  if (leg->peer == ctx->rank) {
    if (leg->bytes)
      if (commrt_status s =
              copyToSelf(ctx, reinterpret_cast<void *>(cts.address),
                         leg->buffer, leg->bytes))
        return s;
    leg->done = true;
    auto found = recvsBySeq.find({leg->peer, cts.seq});
    if (found != recvsBySeq.end()) {
      found->second->done = true;
      recvsBySeq.erase(found);
    }
    return COMMRT_SUCCESS;
  }
  ibv_mr *mr = nullptr;
  if (commrt_status s = registerBuffer(leg->buffer, leg->bytes, mr))
    return s;
  ibv_sge sge{};
  sge.addr = reinterpret_cast<uintptr_t>(leg->buffer);
  sge.length = static_cast<uint32_t>(leg->bytes);
  sge.lkey = mr ? mr->lkey : 0;
  leg->id = nextWrite++;
  writes[leg->id] = leg;
  ibv_send_wr wr{};
  wr.wr_id = workId(DataWrite, static_cast<uint32_t>(leg->peer), leg->id);
  wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
  wr.send_flags = IBV_SEND_SIGNALED;
  wr.imm_data = htonl(cts.seq);
  wr.sg_list = leg->bytes ? &sge : nullptr;
  wr.num_sge = leg->bytes ? 1 : 0;
  wr.wr.rdma.remote_addr = cts.address;
  wr.wr.rdma.rkey = cts.rkey;
  return postSend(leg->peer, wr, "ibv_post_send (RDMA write with immediate)");
}

commrt_status VerbsBackend::progress() {
  if (commrt_status s = failure())
    return s;
  ibv_wc wcs[16];
  int n = ibv_poll_cq(cq, 16, wcs);
  if (n < 0) {
    fail("verbs backend: ibv_poll_cq failed");
    return failure();
  }
  for (int i = 0; i < n; ++i) {
    const ibv_wc &wc = wcs[i];
    auto kind = static_cast<WorkKind>(wc.wr_id >> 56);
    int peer = static_cast<int>((wc.wr_id >> 32) & 0xffffff);
    auto index = static_cast<uint32_t>(wc.wr_id & 0xffffffff);
    if (wc.status != IBV_WC_SUCCESS) {
      fail(format("verbs backend: work completion with peer %d failed: %s "
                  "(vendor error 0x%x)",
                  peer, ibv_wc_status_str(wc.status), wc.vendor_err));
      return failure();
    }
    switch (kind) {
    case RecvSlot: {
      if (wc.opcode == IBV_WC_RECV) {
        peers[static_cast<size_t>(peer)].clearToSend.push_back(
            recvBuffers[static_cast<size_t>(peer) * recvDepth + index]);
      } else if (wc.opcode == IBV_WC_RECV_RDMA_WITH_IMM) {
        auto found = recvsBySeq.find({peer, ntohl(wc.imm_data)});
        if (found != recvsBySeq.end()) {
          found->second->done = true;
          recvsBySeq.erase(found);
        }
      }
      if (commrt_status s = postRecvSlot(peer, index))
        return s;
      break;
    }
    case CtsSend:
      freeSendSlots.push_back(index);
      --peers[static_cast<size_t>(peer)].outstanding;
      break;
    case DataWrite: {
      --peers[static_cast<size_t>(peer)].outstanding;
      auto found = writes.find(index);
      if (found != writes.end()) {
        found->second->done = true;
        writes.erase(found);
      }
      break;
    }
    }
  }
  // Match waiting sends with clear-to-sends, in posting order per tag. The
  // writes are posted after the scan: posting may progress (re-enter this
  // function) when a send queue is full.
  std::vector<std::pair<Leg *, ClearToSend>> matched;
  for (Peer &p : peers) {
    for (auto it = p.unmatchedSends.begin(); it != p.unmatchedSends.end();) {
      Leg *leg = *it;
      auto cts = p.clearToSend.begin();
      while (cts != p.clearToSend.end() && cts->tag != leg->tag)
        ++cts;
      if (cts == p.clearToSend.end()) {
        ++it;
        continue;
      }
      matched.emplace_back(leg, *cts);
      p.clearToSend.erase(cts);
      it = p.unmatchedSends.erase(it);
    }
  }
  for (auto &[leg, cts] : matched)
    if (commrt_status s = postWrite(leg, cts))
      return s;
  return COMMRT_SUCCESS;
}

commrt_status VerbsRequest::poll(bool &done) {
  if (commrt_status s = backend->progress())
    return s;
  done = true;
  for (auto &leg : legs)
    done &= leg->done;
  return COMMRT_SUCCESS;
}

commrt_status VerbsBackend::post(const OpArgs &args,
                                 std::unique_ptr<commrt_request> &out) {
  if (args.kind != OpKind::Send && args.kind != OpKind::Recv &&
      args.kind != OpKind::Permute)
    return setError(COMMRT_ERROR_UNAVAILABLE,
                    format("verbs backend: %s is not implemented; the verbs "
                           "backend carries point to point (send, recv, "
                           "permute) only, use the mpi or nccl backend for "
                           "collectives",
                           opName(args.kind)));
  if (commrt_status s = failure())
    return s;
  size_t bytes =
      static_cast<size_t>(args.count) * commrt_dtype_size(args.dtype);
  if (bytes > portAttr.max_msg_sz)
    return setError(COMMRT_ERROR_INVALID_ARGUMENT,
                    format("verbs backend: %zu bytes exceed the largest "
                           "message of %s (%u bytes)",
                           bytes, deviceName.c_str(), portAttr.max_msg_sz));
#if COMMRT_HAVE_CUDA
  // The NIC reads what GPU work on the stream may still be writing (a
  // kernel, or the copy that stages a buffer in host memory): the stream
  // finishes first. A recv needs no wait: the program goes on only once it
  // completed.
  if (args.kind != OpKind::Recv && args.stream && args.stream->cuda)
    if (commrt_status s = cuda::streamSynchronize(args.stream->cuda))
      return s;
#endif
  auto req = std::make_unique<VerbsRequest>(ctx, args, this);
  auto addLeg = [&](bool isSend, int peer, uint32_t tag, const void *buffer) {
    auto leg = std::make_unique<Leg>();
    leg->isSend = isSend;
    leg->peer = peer;
    leg->tag = tag;
    leg->buffer = const_cast<void *>(buffer);
    leg->bytes = bytes;
    req->legs.push_back(std::move(leg));
    return req->legs.back().get();
  };
  commrt_status status = COMMRT_SUCCESS;
  if (args.kind == OpKind::Send)
    status = startSend(addLeg(true, args.peer, args.tag, args.send));
  else if (args.kind == OpKind::Recv)
    status = startRecv(addLeg(false, args.peer, args.tag, args.recv));
  else {
    if (args.recvFrom >= 0)
      status = startRecv(addLeg(false, args.recvFrom, permuteTag, args.recv));
    if (!status && args.sendTo >= 0)
      status = startSend(addLeg(true, args.sendTo, permuteTag, args.send));
  }
  if (status) {
    // Posted work may still refer to the legs: keep the request alive.
    req->abandon();
    ctx->abandoned.push_back(std::move(req));
    return status;
  }
  out = std::move(req);
  return COMMRT_SUCCESS;
}

} // namespace

commrt_status commrt::createVerbsBackend(commrt_context *ctx,
                                         std::unique_ptr<Backend> &out) {
  out = std::make_unique<VerbsBackend>(ctx);
  return COMMRT_SUCCESS;
}
