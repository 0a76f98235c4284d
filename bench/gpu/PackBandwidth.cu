//===- PackBandwidth.cu - generated pack kernels against D2D ---*- CUDA -*-===//
//
// On a GPU machine: the pack/unpack kernels of commrt_gen_cuda.cuh (what
// comm-compile --target cuda-nccl output runs) against cudaMemcpy
// device-to-device of the same bytes. 256 f32 tensors of 16 KiB-1 MiB
// (seeded), about 128 MiB in all. Bandwidth counts bytes read + written.
// Target (issue 5): pack+cast >= 80% of the measured D2D copy bandwidth.
//
//   comm-bench-pack-bandwidth [--iterations N]
//
//===----------------------------------------------------------------------===//

#include "commrt_gen_cuda.cuh"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#define CHECK_CUDA(x)                                                          \
  do {                                                                         \
    cudaError_t e = (x);                                                       \
    if (e != cudaSuccess) {                                                    \
      std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e));             \
      std::exit(2);                                                            \
    }                                                                          \
  } while (0)

template <typename F> float timeMs(int iterations, F f) {
  cudaEvent_t a, b;
  CHECK_CUDA(cudaEventCreate(&a));
  CHECK_CUDA(cudaEventCreate(&b));
  f(); // warm up
  CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<float> times;
  for (int i = 0; i < iterations; ++i) {
    CHECK_CUDA(cudaEventRecord(a));
    f();
    CHECK_CUDA(cudaEventRecord(b));
    CHECK_CUDA(cudaEventSynchronize(b));
    float ms = 0;
    CHECK_CUDA(cudaEventElapsedTime(&ms, a, b));
    times.push_back(ms);
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

int main(int argc, char **argv) {
  const char *usage =
      "usage: comm-bench-pack-bandwidth [--iterations N]\n"
      "On a GPU: the generated pack/unpack kernels (f32, f32 -> bf16) "
      "against\ncudaMemcpy device to device of the same bytes (median "
      "GB/s; 20\niterations by default).\n";
  int iterations = 20;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::printf("%s", usage);
      return 0;
    }
    if (arg != "--iterations" || i + 1 == argc) {
      std::fprintf(stderr, "comm-bench-pack-bandwidth: %s '%s'\n%s",
                   arg == "--iterations" ? "no value after"
                                         : "unknown argument",
                   argv[i], usage);
      return 2;
    }
    iterations = std::max(1, std::atoi(argv[++i]));
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "comm-bench-pack-bandwidth: no CUDA device\n");
    return 2;
  }
  cudaDeviceProp prop;
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  std::mt19937 rng(1);
  std::vector<commrt_piece> pieces;
  int64_t total = 0;
  for (int k = 0; k < 256; ++k) {
    int64_t count = 4096 + rng() % (262144 - 4096 + 1);
    void *data = nullptr;
    CHECK_CUDA(cudaMalloc(&data, count * sizeof(float)));
    CHECK_CUDA(cudaMemset(data, 0, count * sizeof(float)));
    pieces.push_back({data, count, total, COMMRT_F32});
    total += count;
  }
  void *flat32 = nullptr, *flat16 = nullptr, *copyDst = nullptr;
  CHECK_CUDA(cudaMalloc(&flat32, total * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&flat16, total * sizeof(uint16_t)));
  CHECK_CUDA(cudaMalloc(&copyDst, total * sizeof(float)));
  double bytes32 = double(total) * 4, bytes16 = double(total) * 2;

  float copyMs = timeMs(iterations, [&] {
    CHECK_CUDA(cudaMemcpyAsync(copyDst, flat32, size_t(bytes32),
                               cudaMemcpyDeviceToDevice));
  });
  float pack32Ms = timeMs(iterations, [&] {
    commgen::cuda::launchPack<float, float, true>(flat32, pieces.data(), 256,
                                                  "bench");
  });
  float pack16Ms = timeMs(iterations, [&] {
    commgen::cuda::launchPack<float, __nv_bfloat16, true>(flat16, pieces.data(),
                                                          256, "bench");
  });
  float unpack16Ms = timeMs(iterations, [&] {
    commgen::cuda::launchPack<float, __nv_bfloat16, false>(
        flat16, pieces.data(), 256, "bench");
  });
  auto gbs = [](double bytes, float ms) { return bytes / (ms * 1e-3) / 1e9; };
  double copy = gbs(2 * bytes32, copyMs);
  std::printf("pack bandwidth on %s: 256 tensors, %.1f MiB of f32, median of "
              "%d\n",
              prop.name, bytes32 / 1048576.0, iterations);
  std::printf("  %-34s %8.3f ms %8.1f GB/s\n", "cudaMemcpy D2D", copyMs, copy);
  double p32 = gbs(2 * bytes32, pack32Ms),
         p16 = gbs(bytes32 + bytes16, pack16Ms),
         u16 = gbs(bytes32 + bytes16, unpack16Ms);
  std::printf("  %-34s %8.3f ms %8.1f GB/s  %.0f%% of copy\n",
              "pack f32 -> f32", pack32Ms, p32, 100 * p32 / copy);
  std::printf("  %-34s %8.3f ms %8.1f GB/s  %.0f%% of copy (target >= 80%%: "
              "%s)\n",
              "pack f32 -> bf16 (cast fused)", pack16Ms, p16, 100 * p16 / copy,
              p16 >= 0.8 * copy ? "met" : "MISSED");
  std::printf("  %-34s %8.3f ms %8.1f GB/s  %.0f%% of copy\n",
              "unpack bf16 -> f32", unpack16Ms, u16, 100 * u16 / copy);
  return 0;
}
