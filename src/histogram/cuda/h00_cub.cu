// histogram/cuda/h00_cub: cub::DeviceHistogram::HistogramEven, the vendor baseline, measured
// beside the ladder and never the default. Bytes into their natural bins are handed to CUB as
// users hand them (the raw uint8 pointer, one bin per value, 32-bit counters). Every other
// problem reaches CUB through a transform iterator that gives each element its slot by pplab's
// own binner, so CUB counts exactly pplab's bins (NumPy's edges, underflow, overflow and NaN
// apart) and is timed doing the same work as the rungs; CUB's own float binning
// ((x - lo) * scale, no edge correction) can put a value a rounding step from an edge in the
// neighbouring bin, and it drops values outside the range.
// CUB's counters are 32 bits and its sample count an int, so the input is counted in chunks of
// 2^30 and each chunk's counts are added into the 64-bit slots by a small kernel.
// What limits it: CUB's privatized histogram per block (one copy, no sub-histograms) and, past
// its shared-memory size, global atomics; its temporary storage grows as blocks x bins.
// Measured (H200, bench/results/h200-2026-11-23-histogram-f907169.json, 2^30 bytes, 2^28 floats):
// bytes 0.500 ms (2146 GB/s), bytes all one value 0.309 ms; f32 1024 bins 3.54 ms (303 GB/s), 65536
// bins 11.2 ms, 2^20 bins 19.2 ms (56 GB/s): the baseline the issue's targets are ratios to.
#include <cub/device/device_histogram.cuh>
#include <thrust/iterator/transform_iterator.h>

#include "histogram/cuda/histogram_cuda.cuh"
#include "histogram/image_baseline.hpp"

namespace pplab::detail::histogram_cuda {
namespace {

constexpr std::size_t chunk = std::size_t(1) << 30;

template <class T, class Bin> struct to_slot {
  Bin bin;
  __host__ __device__ int operator()(T x) const { return int(bin(x)); }
};

__global__ void add_chunk(count_t* counts, const unsigned* chunk_counts, std::size_t slots) {
  const std::size_t i = global_thread();
  if (i < slots) counts[i] += chunk_counts[i];
}

// CUB's call for one chunk, or (temp == nullptr) its temporary storage size.
template <class T, class Bin>
void cub_even(void* temp, std::size_t& bytes, const T* x, std::size_t n, Bin bin, unsigned* out,
              int slots, cudaStream_t s) {
  if constexpr (std::is_same_v<T, std::uint8_t> && std::is_same_v<Bin, natural_binner>) {
    PPLAB_CUDA(
        cub::DeviceHistogram::HistogramEven(temp, bytes, x, out, slots + 1, 0, slots, int(n), s));
  } else {
    const auto slot_of = thrust::make_transform_iterator(x, to_slot<T, Bin>{bin});
    PPLAB_CUDA(cub::DeviceHistogram::HistogramEven(temp, bytes, slot_of, out, slots + 1, 0, slots,
                                                   int(n), s));
  }
}

struct rung {
  template <class T, class Bin>
  static void run(const T* x, std::size_t n, Bin bin, const histogram_call& c, cudaStream_t s) {
    const std::size_t nslots = slots(c.p);
    // scratch: [32-bit counts of one chunk, rounded to 256 bytes] [CUB's temporary storage]
    auto* chunk_counts = static_cast<unsigned*>(c.scratch);
    void* temp = static_cast<char*>(c.scratch) + ceil_div(nslots * 4, 256) * 256;
    for (std::size_t at = 0; at < n; at += chunk) {
      const std::size_t len = std::min(chunk, n - at);
      std::size_t bytes = 0;
      cub_even(nullptr, bytes, x + at, len, bin, chunk_counts, int(nslots), s);
      cub_even(temp, bytes, x + at, len, bin, chunk_counts, int(nslots), s);
      add_chunk<<<unsigned(ceil_div(nslots, 256)), 256, 0, s>>>(counts_of(c), chunk_counts, nslots);
      PPLAB_CUDA_LAUNCHED();
    }
  }
};

struct temp_size {
  template <class T, class Bin>
  static void run(const T* x, std::size_t n, Bin bin, const histogram_call& c, cudaStream_t s) {
    std::size_t bytes = 0;
    cub_even(nullptr, bytes, x, std::min(n, chunk), bin, nullptr, int(slots(c.p)), s);
    *static_cast<std::size_t*>(c.scratch) = bytes;
  }
};

// CUB says how much it needs for the largest chunk; the 32-bit chunk counts come first.
std::size_t scratch(const histogram_problem& p) {
  std::size_t cub_bytes = 0;
  histogram_call probe{p, nullptr, nullptr, &cub_bytes, nullptr};
  probe.p.n = std::max<std::size_t>(p.n, 1);
  visit_dtype(p.type, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (sizeof(T) <= 2 && std::is_integral_v<T>)
      if (p.natural)
        return temp_size::run<T>(nullptr, probe.p.n, natural_binner{std::int64_t(p.lo)}, probe,
                                 nullptr);
    temp_size::run<T>(nullptr, probe.p.n, range_binner(p), probe, nullptr);
  });
  return ceil_div(slots(p) * 4, 256) * 256 + cub_bytes;
}
bool can_run(const histogram_problem& p) {
  return counts_even_bins(p) && slots(p) < std::size_t(std::numeric_limits<int>::max());
}

}  // namespace

extern const histogram_rung h00_cub{
    .info = {.step = 0, .summary = "cub::DeviceHistogram::HistogramEven: the vendor baseline"},
    .can_run = can_run,
    .scratch_bytes = scratch,
    .run = [](const histogram_call& c) { dispatch<rung, dtypes::all>(c); },
};

}  // namespace pplab::detail::histogram_cuda

namespace pplab::detail {
namespace {

constexpr std::size_t rgba_chunk = std::size_t(1) << 28;  // pixels per call: 32-bit counters

// CUB's call over one chunk of pixels into four 32-bit histograms, or its temporary size.
void cub_multi(void* temp, std::size_t& bytes, const std::uint8_t* pixels, std::size_t n,
               unsigned* counts, cudaStream_t s) {
  PPLAB_CUDA((cub::DeviceHistogram::MultiHistogramEven<4, 4>(
      temp, bytes, pixels,
      ::cuda::std::array<unsigned*, 4>{counts, counts + 256, counts + 512, counts + 768},
      ::cuda::std::array<int, 4>{257, 257, 257, 257}, ::cuda::std::array<int, 4>{0, 0, 0, 0},
      ::cuda::std::array<int, 4>{256, 256, 256, 256}, int(n), s)));
}

}  // namespace

std::size_t cub_rgba_scratch_here(std::size_t pixels) {
  std::size_t bytes = 0;
  cub_multi(nullptr, bytes, nullptr, std::max<std::size_t>(1, std::min(pixels, rgba_chunk)),
            nullptr, nullptr);
  return 1024 * 4 + bytes;
}

void cub_rgba_histogram_here(const void* pixels, std::size_t n_pixels, std::uint64_t* counts,
                             void* scratch, void* stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  auto* chunk_counts = static_cast<unsigned*>(scratch);
  void* temp = static_cast<char*>(scratch) + 1024 * 4;
  PPLAB_CUDA(cudaMemsetAsync(counts, 0, 1024 * 8, s));
  const auto* p = static_cast<const std::uint8_t*>(pixels);
  for (std::size_t at = 0; at < n_pixels; at += rgba_chunk) {
    const std::size_t len = std::min(rgba_chunk, n_pixels - at);
    std::size_t bytes = cub_rgba_scratch_here(len) - 1024 * 4;
    cub_multi(temp, bytes, p + 4 * at, len, chunk_counts, s);
    histogram_cuda::add_chunk<<<4, 256, 0, s>>>(reinterpret_cast<histogram_cuda::count_t*>(counts),
                                                chunk_counts, 1024);
    PPLAB_CUDA_LAUNCHED();
  }
}

}  // namespace pplab::detail
