#pragma once
// The GPU timer of the lab and the tuning tools: CUDA events around the work on one stream,
// after a warm-up, each repeat after a memset of 256 MiB (twice the L2 of any current GPU) that
// is not timed, so that no repeat finds its input in the L2 the last one left. Median and minimum.
#include <algorithm>
#include <vector>

#include "core/cuda/check.cuh"
#include "core/timing.hpp"

namespace pplab::detail {

class event_timer {
public:
  static constexpr std::size_t flush_bytes = std::size_t(256) << 20;

  explicit event_timer(cudaStream_t s) : s_(s) {
    PPLAB_CUDA(cudaEventCreate(&start_));
    PPLAB_CUDA(cudaEventCreate(&stop_));
    PPLAB_CUDA(cudaMalloc(&flush_, flush_bytes));
  }
  ~event_timer() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
    cudaFree(flush_);
  }
  event_timer(const event_timer&) = delete;
  event_timer& operator=(const event_timer&) = delete;

  // `work` only enqueues on the stream. Work slow enough that `reps` repeats would take more
  // than two seconds (a teaching rung serialized on one counter) gets fewer, at least five.
  template <class F> timing time(F&& work, int reps) {
    PPLAB_CUDA(cudaEventRecord(start_, s_));
    work();
    PPLAB_CUDA(cudaEventRecord(stop_, s_));
    PPLAB_CUDA(cudaEventSynchronize(stop_));
    float warm = 0;
    PPLAB_CUDA(cudaEventElapsedTime(&warm, start_, stop_));
    if (double(warm) * reps > 2000) reps = std::max(std::min(reps, 5), int(2000 / double(warm)));
    std::vector<double> ms;
    for (int r = 0; r < reps; ++r) {
      PPLAB_CUDA(cudaMemsetAsync(flush_, r & 0xff, flush_bytes, s_));
      PPLAB_CUDA(cudaEventRecord(start_, s_));
      work();
      PPLAB_CUDA(cudaEventRecord(stop_, s_));
      PPLAB_CUDA(cudaEventSynchronize(stop_));
      float t = 0;
      PPLAB_CUDA(cudaEventElapsedTime(&t, start_, stop_));
      ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    return {ms[ms.size() / 2] * 1e-3, ms.front() * 1e-3, reps};
  }

private:
  cudaStream_t s_;
  cudaEvent_t start_{}, stop_{};
  void* flush_ = nullptr;
};

}  // namespace pplab::detail
