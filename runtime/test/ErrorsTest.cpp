//===- test/ErrorsTest.cpp - Argument checks, missing backends --*- C++ -*-===//
//
// Part of the comm project: a compiler for communication between GPUs.
//
//===----------------------------------------------------------------------===//
//
// Every invalid argument gives COMMRT_ERROR_INVALID_ARGUMENT (or
// INVALID_STATE) with a message saying what is wrong, and nothing hangs.
// With --backends-only: the verbs and nccl backends and the cuda module
// report on this machine (no RDMA device, no GPU) that they are
// unavailable, with a clear message, and commrt falls back to mpi.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include <cstdlib>
#include <vector>

#ifndef COMMRT_TEST_HAVE_CUDA
#define COMMRT_TEST_HAVE_CUDA 0
#endif
#ifndef COMMRT_TEST_HAVE_NCCL
#define COMMRT_TEST_HAVE_NCCL 0
#endif
#ifndef COMMRT_TEST_HAVE_VERBS
#define COMMRT_TEST_HAVE_VERBS 0
#endif

using namespace test;

namespace {

commrt_context *ctx = nullptr;
int me = 0, size = 0;

commrt_status initWith(commrt_backend backend, int *argc, char ***argv,
                       commrt_context **out) {
  commrt_options opts;
  commrt_options_default(&opts);
  opts.backend = backend;
  opts.timeout_ms = 20000;
  return commrt_init(argc, argv, &opts, out);
}

/// Unavailable backends fail on every rank with the reason, and the next
/// init still works.
void testBackends(int *argc, char ***argv) {
  commrt_context *none = nullptr;
  CHECK_STATUS(initWith(COMMRT_BACKEND_VERBS, argc, argv, &none),
               COMMRT_ERROR_UNAVAILABLE,
               COMMRT_TEST_HAVE_VERBS
                   ? "verbs backend: no RDMA device found "
                     "(ibv_get_device_list returned 0 devices"
                   : "verbs backend: commrt was built without ibverbs");
  CHECK(none == nullptr);
  std::string verbsMessage = commrt_last_error();
  CHECK_STATUS(initWith(COMMRT_BACKEND_NCCL, argc, argv, &none),
               COMMRT_ERROR_UNAVAILABLE,
               COMMRT_TEST_HAVE_NCCL
                   ? "nccl backend: no CUDA device (cudaGetDeviceCount: "
                   : "nccl backend: commrt was built without NCCL");
  CHECK(none == nullptr);
  std::string ncclMessage = commrt_last_error();

  // Auto picks mpi without a GPU.
  CHECK_OK(initWith(COMMRT_BACKEND_AUTO, argc, argv, &ctx));
  int64_t rank = 0;
  commrt_rank(ctx, &rank);
  me = static_cast<int>(rank);
  if (me == 0)
    std::printf("verbs: %s\nnccl: %s\n", verbsMessage.c_str(),
                ncclMessage.c_str());
  commrt_backend backend = COMMRT_BACKEND_AUTO;
  CHECK_OK(commrt_get_backend(ctx, &backend));
  CHECK(backend == COMMRT_BACKEND_MPI);
  int64_t device = 7;
  CHECK_OK(commrt_cuda_device(ctx, &device));
  CHECK(device == -1);

  // The cuda module: no device, so hbm and pinned memory are unavailable.
  void *p = nullptr;
  CHECK_STATUS(commrt_alloc(ctx, 1024, COMMRT_HBM, &p),
               COMMRT_ERROR_UNAVAILABLE,
               COMMRT_TEST_HAVE_CUDA ? "hbm needs a CUDA device, and there is "
                                       "none: cuda: no CUDA device"
                                     : "built without CUDA");
  if (me == 0)
    std::printf("cuda: %s\n", commrt_last_error());
  CHECK_STATUS(commrt_alloc(ctx, 1024, COMMRT_PINNED_HOST, &p),
               COMMRT_ERROR_UNAVAILABLE, "pinned_host needs a CUDA device");
  float host[4] = {1, 2, 3, 4};
  CHECK_STATUS(
      commrt_copy(ctx, host, COMMRT_HOST, host + 2, COMMRT_HBM, 8, nullptr),
      COMMRT_ERROR_UNAVAILABLE, "a copy from hbm to host needs");
  CHECK_STATUS(commrt_copy_peer(ctx, host, 0, host + 2, 1, 8, nullptr),
               COMMRT_ERROR_UNAVAILABLE, "a peer copy needs a CUDA device");
  CHECK_STATUS(commrt_memset(ctx, host, COMMRT_HBM, 0, 8, nullptr),
               COMMRT_ERROR_UNAVAILABLE, "needs a CUDA device");
  uint16_t h[4];
  CHECK_STATUS(
      commrt_convert(h, COMMRT_BF16, host, COMMRT_F32, 4, COMMRT_HBM, nullptr),
      COMMRT_ERROR_UNAVAILABLE, "");
  commrt_stream *wrapped = nullptr;
  int dummy = 0;
  CHECK_STATUS(commrt_stream_wrap_cuda(ctx, &dummy, &wrapped),
               COMMRT_ERROR_UNAVAILABLE, "a CUDA stream needs a CUDA device");

  // Host streams and events work (synchronously).
  commrt_stream *stream = nullptr;
  CHECK_OK(commrt_stream_create(ctx, &stream));
  void *cudaHandle = &dummy;
  CHECK_OK(commrt_stream_cuda_handle(stream, &cudaHandle));
  CHECK(cudaHandle == nullptr);
  commrt_event *a = nullptr, *b = nullptr;
  CHECK_OK(commrt_event_create(ctx, &a));
  CHECK_OK(commrt_event_create(ctx, &b));
  double ms = -1;
  CHECK_STATUS(commrt_event_elapsed_ms(a, b, &ms), COMMRT_ERROR_INVALID_STATE,
               "never recorded");
  CHECK_OK(commrt_event_record(a, stream));
  CHECK_OK(commrt_copy(ctx, host, COMMRT_HOST, host + 2, COMMRT_PINNED_HOST, 8,
                       stream));
  CHECK(host[0] == 3 && host[1] == 4);
  CHECK_OK(commrt_event_record(b, stream));
  int done = 0;
  CHECK_OK(commrt_event_query(b, &done));
  CHECK(done == 1);
  CHECK_OK(commrt_event_synchronize(b));
  CHECK_OK(commrt_stream_wait_event(stream, a));
  CHECK_OK(commrt_event_elapsed_ms(a, b, &ms));
  CHECK(ms >= 0);
  CHECK_OK(commrt_stream_synchronize(stream));
  CHECK_OK(commrt_event_destroy(a));
  CHECK_OK(commrt_event_destroy(b));
  CHECK_OK(commrt_stream_destroy(stream));

  // Host memory.
  void *mem = nullptr;
  CHECK_OK(commrt_alloc(ctx, 1000, COMMRT_HOST, &mem));
  CHECK(mem != nullptr && reinterpret_cast<uintptr_t>(mem) % 64 == 0);
  CHECK_OK(commrt_memset(ctx, mem, COMMRT_HOST, 7, 1000, nullptr));
  CHECK(static_cast<unsigned char *>(mem)[999] == 7);
  CHECK_OK(commrt_free(ctx, mem, COMMRT_HOST));
  CHECK_OK(commrt_alloc(ctx, 0, COMMRT_HOST, &mem));
  CHECK(mem != nullptr);
  CHECK_OK(commrt_free(ctx, mem, COMMRT_HOST));
  CHECK_STATUS(commrt_alloc(ctx, -1, COMMRT_HOST, &mem),
               COMMRT_ERROR_INVALID_ARGUMENT, "bytes -1 is negative");
}

void testArguments() {
  float x[16] = {0};
  int64_t world[4] = {0, 1, 2, 3};
  commrt_comm *comm = nullptr;

  // comm_create.
  CHECK_STATUS(commrt_comm_create(ctx, world, 4, 3, &comm),
               COMMRT_ERROR_INVALID_ARGUMENT, "does not divide num_ranks 4");
  int64_t dup[4] = {0, 1, 1, 3};
  CHECK_STATUS(commrt_comm_create(ctx, dup, 4, 2, &comm),
               COMMRT_ERROR_INVALID_ARGUMENT, "rank 1 appears twice");
  int64_t outside[2] = {0, 9};
  CHECK_STATUS(commrt_comm_create(ctx, outside, 2, 2, &comm),
               COMMRT_ERROR_INVALID_ARGUMENT, "rank 9 (entry 1) is outside");
  CHECK_STATUS(commrt_comm_create(ctx, nullptr, 4, 4, &comm),
               COMMRT_ERROR_INVALID_ARGUMENT, "ranks is NULL");
  CHECK_STATUS(commrt_comm_create(ctx, world, 0, 1, &comm),
               COMMRT_ERROR_INVALID_ARGUMENT, "must be positive");
  CHECK_STATUS(commrt_comm_create(nullptr, world, 4, 4, &comm),
               COMMRT_ERROR_INVALID_ARGUMENT, "ctx is NULL");
  // Ranks that disagree on the groups are told so (no hang, no wrong comm).
  int64_t mine[4] = {0, 1, 2, 3};
  int64_t theirs[4] = {0, 2, 1, 3};
  CHECK_STATUS(commrt_comm_create(ctx, me == 3 ? theirs : mine, 4, 2, &comm),
               COMMRT_ERROR_INVALID_ARGUMENT, "ranks passed different groups");
  CHECK_OK(commrt_comm_create(ctx, world, 4, 4, &comm));

  // Collectives.
  CHECK_STATUS(
      commrt_all_reduce(nullptr, x, x, 4, COMMRT_F32, COMMRT_SUM, nullptr),
      COMMRT_ERROR_INVALID_ARGUMENT, "comm is NULL");
  CHECK_STATUS(
      commrt_all_reduce(comm, x, x, -3, COMMRT_F32, COMMRT_SUM, nullptr),
      COMMRT_ERROR_INVALID_ARGUMENT, "count -3 is negative");
  CHECK_STATUS(commrt_all_reduce(comm, x, x, int64_t(1) << 62, COMMRT_F32,
                                 COMMRT_SUM, nullptr),
               COMMRT_ERROR_INVALID_ARGUMENT, "overflows");
  CHECK_STATUS(
      commrt_all_reduce(comm, nullptr, x, 4, COMMRT_F32, COMMRT_SUM, nullptr),
      COMMRT_ERROR_INVALID_ARGUMENT, "send is NULL");
  CHECK_STATUS(
      commrt_all_reduce(comm, x, nullptr, 4, COMMRT_F32, COMMRT_SUM, nullptr),
      COMMRT_ERROR_INVALID_ARGUMENT, "recv is NULL");
  CHECK_STATUS(commrt_all_reduce(comm, x, x, 4, static_cast<commrt_dtype>(31),
                                 COMMRT_SUM, nullptr),
               COMMRT_ERROR_INVALID_ARGUMENT, "unknown dtype 31");
  CHECK_STATUS(commrt_all_reduce(comm, x, x, 4, COMMRT_F32,
                                 static_cast<commrt_redop>(-2), nullptr),
               COMMRT_ERROR_INVALID_ARGUMENT, "unknown reduction op -2");
  CHECK_STATUS(
      commrt_all_reduce(comm, x, x, 4, COMMRT_BF16, COMMRT_BAND, nullptr),
      COMMRT_ERROR_INVALID_ARGUMENT,
      "bitwise reduction band on floating-point dtype bf16");
  CHECK_STATUS(commrt_all_reduce(comm, x, x, int64_t(1) << 31, COMMRT_U8,
                                 COMMRT_SUM, nullptr),
               COMMRT_ERROR_INVALID_ARGUMENT, "exceeds the 2^31-1 elements");
  commrt_request *req = nullptr;
  CHECK_STATUS(commrt_iall_reduce(comm, x, x, 4, COMMRT_F32, COMMRT_SUM,
                                  nullptr, nullptr),
               COMMRT_ERROR_INVALID_ARGUMENT, "req is NULL");
  CHECK_STATUS(commrt_broadcast(comm, x, x, 4, COMMRT_F32, 4, nullptr),
               COMMRT_ERROR_INVALID_ARGUMENT,
               "root 4 is outside group [0, 1, 2, 3] (positions 0 to 3)");
  CHECK_STATUS(
      commrt_reduce(comm, x, x, 4, COMMRT_I32, COMMRT_SUM, -1, nullptr),
      COMMRT_ERROR_INVALID_ARGUMENT, "root -1 is outside");
  CHECK_STATUS(commrt_reduce_scatter(comm, x, x, int64_t(1) << 61, COMMRT_F32,
                                     COMMRT_SUM, nullptr),
               COMMRT_ERROR_INVALID_ARGUMENT, "overflow");
  CHECK_STATUS(commrt_all_gather(comm, x, nullptr, 1, COMMRT_F32, nullptr),
               COMMRT_ERROR_INVALID_ARGUMENT, "recv is NULL");
  // Zero-sized operations accept NULL buffers.
  CHECK_OK(commrt_all_reduce(comm, nullptr, nullptr, 0, COMMRT_F32, COMMRT_SUM,
                             nullptr));
  CHECK_OK(commrt_broadcast(comm, nullptr, nullptr, 0, COMMRT_F32, 1, nullptr));

  // Point to point.
  CHECK_STATUS(commrt_send(ctx, x, 4, COMMRT_F32, 4, 0, nullptr),
               COMMRT_ERROR_INVALID_ARGUMENT,
               "peer 4 is outside the world of 4 ranks");
  CHECK_STATUS(commrt_recv(ctx, x, 4, COMMRT_F32, -1, 0, nullptr),
               COMMRT_ERROR_INVALID_ARGUMENT, "peer -1 is outside");
  CHECK_STATUS(commrt_send(ctx, x, 4, COMMRT_F32, 0, -5, nullptr),
               COMMRT_ERROR_INVALID_ARGUMENT, "tag -5 is outside [0, 2^30)");
  CHECK_STATUS(commrt_send(ctx, x, 4, COMMRT_F32, 0, int64_t(1) << 30, nullptr),
               COMMRT_ERROR_INVALID_ARGUMENT, "is outside [0, 2^30)");
  CHECK_STATUS(commrt_isend(nullptr, x, 4, COMMRT_F32, 0, 0, nullptr, &req),
               COMMRT_ERROR_INVALID_ARGUMENT, "ctx is NULL");
  CHECK_STATUS(commrt_recv(ctx, nullptr, 4, COMMRT_F32, 0, 0, nullptr),
               COMMRT_ERROR_INVALID_ARGUMENT, "buf is NULL");

  // Requests and groups.
  int done = 0;
  CHECK_STATUS(commrt_test(nullptr, &done), COMMRT_ERROR_INVALID_ARGUMENT,
               "req is NULL");
  CHECK_OK(commrt_wait(nullptr));
  CHECK_STATUS(commrt_group_end(ctx), COMMRT_ERROR_INVALID_STATE,
               "without commrt_group_start");

  // Destroyed communicators are refused; creating again revives the cached
  // one.
  commrt_comm *pairs = nullptr;
  CHECK_OK(commrt_comm_create(ctx, world, 4, 2, &pairs));
  CHECK_OK(commrt_comm_destroy(pairs));
  CHECK_STATUS(commrt_barrier(pairs, nullptr), COMMRT_ERROR_INVALID_STATE,
               "was destroyed");
  CHECK_STATUS(commrt_comm_destroy(pairs), COMMRT_ERROR_INVALID_STATE,
               "already destroyed");
  commrt_comm *again = nullptr;
  CHECK_OK(commrt_comm_create(ctx, world, 4, 2, &again));
  CHECK(again == pairs);
  CHECK_OK(commrt_barrier(again, nullptr));
  int64_t wr = -1;
  CHECK_STATUS(commrt_comm_world_rank(again, 2, &wr),
               COMMRT_ERROR_INVALID_ARGUMENT, "index 2 is outside group");

  // Queries and settings.
  int64_t v;
  CHECK_STATUS(commrt_rank(nullptr, &v), COMMRT_ERROR_INVALID_ARGUMENT,
               "ctx is NULL");
  CHECK_STATUS(commrt_rank(ctx, nullptr), COMMRT_ERROR_INVALID_ARGUMENT,
               "output pointer is NULL");
  CHECK_OK(commrt_local_size(ctx, &v));
  CHECK(v == size); // one node
  CHECK_OK(commrt_local_rank(ctx, &v));
  CHECK(v == me);
  CHECK_STATUS(commrt_set_timeout(ctx, -1), COMMRT_ERROR_INVALID_ARGUMENT,
               "negative");
  CHECK_STATUS(
      commrt_set_error_policy(ctx, static_cast<commrt_error_policy>(5)),
      COMMRT_ERROR_INVALID_ARGUMENT, "unknown policy 5");
  CHECK_OK(commrt_barrier(comm, nullptr));

  // Host bookkeeping through the bootstrap (the harness's timing).
  double most = -1;
  CHECK_OK(commrt_host_max(ctx, 10.0 * me - 0.5, &most));
  CHECK(most == 10.0 * (size - 1) - 0.5);
  CHECK_OK(commrt_host_barrier(ctx));
  CHECK_STATUS(commrt_host_max(nullptr, 1.0, &most),
               COMMRT_ERROR_INVALID_ARGUMENT, "ctx is NULL");
  CHECK_STATUS(commrt_host_max(ctx, 1.0, nullptr),
               COMMRT_ERROR_INVALID_ARGUMENT, "output pointer is NULL");
  CHECK_STATUS(commrt_host_barrier(nullptr), COMMRT_ERROR_INVALID_ARGUMENT,
               "ctx is NULL");
}

/// Data attached to a second context is released by its finalize, while
/// the context still answers, and a context made after it has none.
void testUserData(int *argc, char ***argv) {
  commrt_context *second = nullptr;
  CHECK_OK(initWith(COMMRT_BACKEND_MPI, argc, argv, &second));
  void *data = &second;
  CHECK_OK(commrt_get_user_data(second, &data));
  CHECK(data == nullptr);
  static int released = 0;
  static int64_t rankAtRelease = -1;
  static int payload = 7;
  CHECK_OK(
      commrt_set_user_data(second, &payload, [](commrt_context *c, void *d) {
        released += *static_cast<int *>(d);
        commrt_rank(c, &rankAtRelease);
      }));
  CHECK_OK(commrt_get_user_data(second, &data));
  CHECK(data == &payload);
  CHECK_STATUS(commrt_set_user_data(nullptr, &payload, nullptr),
               COMMRT_ERROR_INVALID_ARGUMENT, "ctx is NULL");
  CHECK_OK(commrt_finalize(second));
  CHECK(released == 7);
  CHECK(rankAtRelease == me);
  CHECK_OK(initWith(COMMRT_BACKEND_MPI, argc, argv, &second));
  CHECK_OK(commrt_get_user_data(second, &data));
  CHECK(data == nullptr);
  CHECK_OK(commrt_finalize(second));
  CHECK(released == 7);
}

} // namespace

int main(int argc, char **argv) {
  bool backendsOnly = argc > 1 && !std::strcmp(argv[1], "--backends-only");

  // Bad options and environment are refused before MPI starts.
  commrt_context *bad = nullptr;
  commrt_options opts;
  commrt_options_default(&opts);
  opts.struct_size = 3;
  CHECK_STATUS(commrt_init(&argc, &argv, &opts, &bad),
               COMMRT_ERROR_INVALID_ARGUMENT, "opts->struct_size is 3");
  commrt_options_default(&opts);
  opts.backend = static_cast<commrt_backend>(12);
  CHECK_STATUS(commrt_init(&argc, &argv, &opts, &bad),
               COMMRT_ERROR_INVALID_ARGUMENT, "unknown backend 12");
  setenv("COMMRT_ON_ERROR", "explode", 1);
  CHECK_STATUS(commrt_init(&argc, &argv, nullptr, &bad),
               COMMRT_ERROR_INVALID_ARGUMENT, "COMMRT_ON_ERROR='explode'");
  unsetenv("COMMRT_ON_ERROR");
  setenv("COMMRT_TIMEOUT_MS", "soon", 1);
  CHECK_STATUS(commrt_init(&argc, &argv, nullptr, &bad),
               COMMRT_ERROR_INVALID_ARGUMENT, "COMMRT_TIMEOUT_MS='soon'");
  unsetenv("COMMRT_TIMEOUT_MS");

  if (backendsOnly) {
    testBackends(&argc, &argv);
  } else {
    CHECK_OK(initWith(COMMRT_BACKEND_MPI, &argc, &argv, &ctx));
  }
  if (!ctx)
    return summary("errors");
  int64_t r, s;
  commrt_rank(ctx, &r);
  commrt_world_size(ctx, &s);
  me = test::rank = static_cast<int>(r);
  size = static_cast<int>(s);
  if (!backendsOnly) {
    if (size != 4) {
      std::fprintf(stderr, "run this test with 4 ranks (got %d)\n", size);
      commrt_finalize(ctx);
      return 1;
    }
    testArguments();
    testUserData(&argc, &argv);
  }
  CHECK_OK(commrt_finalize(ctx));
  return summary(backendsOnly ? "backends" : "errors");
}
