// reduce/cuda/r11_atomic_combine: the reduction notes' third way: "thread 0 of each block could use
// atomic operations to accumulate into a global sum variable". One launch does all the reading;
// each block's result goes into one 64-bit slot by atomicAdd (sums) or a compare-and-swap loop (the
// other ops), with a tiny launch before to set the identity and one after to write the answer.
// Exact for integers, min and max; for float sums the blocks arrive in any order, so the last
// bits can change from run to run: this rung is not deterministic, and the API never picks it.
// Measured (H200, bench/results/h200-2026-11-21.json): f32 sum of 2^28 on the device, 0.2548 ms,
// 4215 GB/s (88% of theoretical); 2^24: 0.0298 ms.
#include "reduce/cuda/per_block.cuh"

namespace pplab::detail::reduce_cuda {
namespace {

constexpr unsigned B = 256;
constexpr int unroll = 4;

// The slot holds 64 bits whatever T is: min and max of narrow types widen without change.
template <class T> using slot_t = wide_t<T>;

template <class W> __device__ inline unsigned long long bits(W v) {
  unsigned long long b;
  memcpy(&b, &v, 8);
  return b;
}
template <class W> __device__ inline W from_bits(unsigned long long b) {
  W v;
  memcpy(&v, &b, 8);
  return v;
}

template <class W, op O> __device__ inline void atomic_combine(W* slot, W v) {
  auto* raw = reinterpret_cast<unsigned long long*>(slot);
  if constexpr (O == op::sum && std::is_floating_point_v<W>) {
    atomicAdd(slot, v);
  } else if constexpr (O == op::sum) {
    atomicAdd(raw, static_cast<unsigned long long>(v));  // two's complement: wraps like the host
  } else {
    unsigned long long old = *raw, assumed;
    do {
      assumed = old;
      const W next = combine<W, O>(from_bits<W>(assumed), v);
      if (bits(next) == assumed) return;
      old = atomicCAS(raw, assumed, bits(next));
    } while (old != assumed);
  }
}

template <class T, op O> __global__ void set_identity(slot_t<T>* slot) {
  *slot = slot_t<T>(identity<T, O>());  // widened: the identity of T, not of the slot type
}

template <class T, op O>
__global__ void __launch_bounds__(B)
    atomic_blocks(const T* __restrict__ in, std::size_t n, slot_t<T>* slot) {
  const std::size_t threads = std::size_t(gridDim.x) * B;
  auto v =
      thread_reduce_vec<T, O, unroll>(in, n, std::size_t(blockIdx.x) * B + threadIdx.x, threads);
  v = block_reduce<T, O, B>(v);
  if (threadIdx.x == 0) atomic_combine<slot_t<T>, O>(slot, slot_t<T>(v));
}

template <class T, op O>
__global__ void write_answer(const slot_t<T>* slot, scalar* out, std::size_t mean_n) {
  store(out, acc_t<T, O>(*slot), mean_n);
}

struct rung {
  template <class T, op O>
  static void run(const T* in, std::size_t n, void* scratch, scalar* out, std::size_t mean_n,
                  cudaStream_t s) {
    if constexpr (O == op::mean) {  // a 128-bit sum has no atomic: can_run says no
      fail(errc::unsupported, "r11 combines in one 64-bit atomic slot: no integer mean");
    } else {
      run_atomic<T, O>(in, n, scratch, out, mean_n, s);
    }
  }
  template <class T, op O>
  static void run_atomic(const T* in, std::size_t n, void* scratch, scalar* out, std::size_t mean_n,
                         cudaStream_t s) {
    static const std::size_t resident = resident_blocks(atomic_blocks<T, O>, B);
    auto* slot = static_cast<slot_t<T>*>(scratch);
    set_identity<T, O><<<1, 1, 0, s>>>(slot);
    PPLAB_CUDA_LAUNCHED();
    if (n) {
      const std::size_t blocks = std::min(resident, ceil_div(n, B * (16 / sizeof(T)) * unroll));
      atomic_blocks<T, O><<<unsigned(blocks), B, 0, s>>>(in, n, slot);
      PPLAB_CUDA_LAUNCHED();
    }
    write_answer<T, O><<<1, 1, 0, s>>>(slot, out, mean_n);
    PPLAB_CUDA_LAUNCHED();
  }
};

}  // namespace

extern const reduce_rung r11_atomic_combine{
    .info = {.step = 11,
             .summary = "block partials combined by atomics (not deterministic)",
             .reproducible = false},
    .can_run =
        [](const reduce_problem& p) {
          // A 128-bit sum: no atomic takes it; nor a (value, index) pair.
          return value_ops(p) && !(as_for(p.type, p.what) == op::mean && !is_float(p.type));
        },
    .scratch_bytes = [](const reduce_problem&) { return std::size_t(8); },
    .run = [](const reduce_call& c) { dispatch<rung, dtypes::all>(c); },
};

}  // namespace pplab::detail::reduce_cuda
