#pragma once
// What the GPU reduction rungs share: the device side of the ops (the host's combine and identity,
// compiled for the device too), warp and block reductions, the vectorized grid-stride load,
// the multi-pass combine of per-block partials, and the dispatch from (dtype, op) to kernels.
#include <cuda_runtime.h>

#include <cstdint>

#include "core/cuda_check.cuh"
#include "reduce/reduce_common.hpp"

namespace pplab::detail::gpu_reduce {

constexpr int warp = 32;

// The dtypes a rung compiles for: all ten, or the 32- and 64-bit ones (teaching rungs, to keep
// the build lean; they say so in can_run).
enum class dtypes { all, wide };

template <dtypes D> bool supports(const reduce_problem& p) {
  return D == dtypes::all || size_of(p.type) >= 4;
}

// ---- writing the answer
template <class A> __device__ inline void store(scalar* out, A v, std::size_t mean_n) {
  if (mean_n) {
    out->k = scalar::kind::f64;
    out->f = double(v) / double(mean_n);
  } else if constexpr (std::is_floating_point_v<A>) {
    out->k = scalar::kind::f64;
    out->f = double(v);
  } else if constexpr (std::is_signed_v<A>) {
    out->k = scalar::kind::i64;
    out->i = std::int64_t(v);
  } else {
    out->k = scalar::kind::u64;
    out->u = std::uint64_t(v);
  }
}

// ---- warp and block reductions by shuffles (types under 32 bits travel as int)
template <class A> __device__ inline A shfl_down(A v, int delta) {
  if constexpr (sizeof(A) < 4) return A(__shfl_down_sync(0xffffffffu, int(v), delta));
  else return __shfl_down_sync(0xffffffffu, v, delta);
}

template <class T, op O> __device__ inline acc_t<T, O> warp_reduce(acc_t<T, O> v) {
#pragma unroll
  for (int d = warp / 2; d > 0; d /= 2) v = combine<T, O>(v, shfl_down(v, d));
  return v;
}

// The whole block's value in thread 0: warps reduce by shuffles, then the first warp reduces
// the warp results from shared memory. Fixed order: deterministic.
template <class T, op O, int B> __device__ inline acc_t<T, O> block_reduce(acc_t<T, O> v) {
  using A = acc_t<T, O>;
  __shared__ A per_warp[B / warp];
  const int lane = threadIdx.x % warp, w = threadIdx.x / warp;
  v = warp_reduce<T, O>(v);
  if (lane == 0) per_warp[w] = v;
  __syncthreads();
  if (w == 0) {
    v = lane < B / warp ? per_warp[lane] : identity<T, O>();
    v = warp_reduce<T, O>(v);
  }
  return v;
}

// The combine of the hot loop. Float min and max take the single hardware instruction that
// propagates NaN (max.NaN.f32, sm_80+) instead of a compare, a NaN test and a select.
template <class T, op O> __device__ inline acc_t<T, O> hot_combine(acc_t<T, O> a, acc_t<T, O> b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (std::is_same_v<acc_t<T, O>, float> && (O == op::max || O == op::min)) {
    float r;
    if constexpr (O == op::max) asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
    else asm("min.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
    return r;
  }
#endif
  return combine<T, O>(a, b);
}

// How the 16-byte loads go: through the read-only path (ld.global.nc); marked streaming
// (ld.global.cs: evict first, the data is read once); or read-only with a hint that L2 fetch
// 256 bytes around each miss (whole DRAM bursts for a stream that will want them).
enum class load { readonly, streaming, prefetch256 };

template <load L> __device__ inline uint4 load16(const uint4* p) {
  if constexpr (L == load::streaming) {
    return __ldcs(p);
  } else if constexpr (L == load::prefetch256) {
    uint4 r;
    asm volatile("ld.global.nc.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
                 : "l"(p));
    return r;
  } else {
    return __ldg(p);
  }
}

// ---- the vectorized grid-stride load: 16-byte loads, `unroll` of them in flight per thread,
// folded into `lanes` independent accumulators (element e of a vector into lane e % lanes), so
// the adds of one vector do not wait on each other. Elements before the first 16-byte boundary
// and after the last whole vector take scalar loads.
template <class T, op O, int unroll, load L = load::readonly, int lanes = 1>
__device__ inline acc_t<T, O> thread_reduce_vec(const T* __restrict__ in, std::size_t n,
                                                std::size_t g, std::size_t threads) {
  using A = acc_t<T, O>;
  constexpr std::size_t per_vec = 16 / sizeof(T);
  static_assert(per_vec % lanes == 0);
  A acc[lanes];
#pragma unroll
  for (int k = 0; k < lanes; ++k) acc[k] = identity<T, O>();
  std::size_t head = ((16 - (reinterpret_cast<std::uintptr_t>(in) & 15)) & 15) / sizeof(T);
  if (head > n) head = n;
  if (g < head) acc[0] = combine<T, O>(acc[0], A(in[g]));
  const uint4* v = reinterpret_cast<const uint4*>(in + head);
  const std::size_t vectors = (n - head) / per_vec;
  const auto add_vector = [&](const uint4& raw) {
    T x[per_vec];
    memcpy(x, &raw, 16);
#pragma unroll
    for (std::size_t e = 0; e < per_vec; ++e)
      acc[e % lanes] = hot_combine<T, O>(acc[e % lanes], A(x[e]));
  };
  std::size_t i = g;
  for (; i + (unroll - 1) * threads < vectors; i += unroll * threads) {
    uint4 r[unroll];
#pragma unroll
    for (int u = 0; u < unroll; ++u) r[u] = load16<L>(v + i + u * threads);
#pragma unroll
    for (int u = 0; u < unroll; ++u) add_vector(r[u]);
  }
  for (; i < vectors; i += threads) add_vector(load16<L>(v + i));
  const std::size_t tail = head + vectors * per_vec + g;
  if (tail < n) acc[0] = combine<T, O>(acc[0], A(in[tail]));
#pragma unroll
  for (int k = 1; k < lanes; ++k) acc[0] = combine<T, O>(acc[0], acc[k]);
  return acc[0];
}

// ---- the notes' cross-block combine by further launches: each pass reduces `count` partials
// to one per block, until one is left, which the last pass writes as the answer.
constexpr int combine_block = 256, combine_per_thread = 8;

template <class T, op O>
__global__ void __launch_bounds__(combine_block)
    combine_pass(const acc_t<T, O>* __restrict__ in, std::size_t count, acc_t<T, O>* out,
                 scalar* answer, std::size_t mean_n) {
  using A = acc_t<T, O>;
  A v = identity<T, O>();
  const std::size_t base = std::size_t(blockIdx.x) * combine_block * combine_per_thread;
  for (int k = 0; k < combine_per_thread; ++k) {
    const std::size_t i = base + std::size_t(k) * combine_block + threadIdx.x;
    if (i < count) v = combine<T, O>(v, in[i]);
  }
  v = block_reduce<T, O, combine_block>(v);
  if (threadIdx.x == 0) {
    if (answer) store(answer, v, mean_n);
    else out[blockIdx.x] = v;
  }
}

inline std::size_t combine_blocks(std::size_t count) {
  return (count + combine_block * combine_per_thread - 1) / (combine_block * combine_per_thread);
}

// Scratch for `count` partials and the passes after them, in elements of A.
inline std::size_t partial_scratch(std::size_t count) { return count + combine_blocks(count) + 2; }

template <class T, op O>
void combine_partials(acc_t<T, O>* partials, std::size_t count, acc_t<T, O>* spare, scalar* out,
                      std::size_t mean_n, cudaStream_t s) {
  while (true) {
    const std::size_t blocks = combine_blocks(count);
    if (blocks <= 1) {
      combine_pass<T, O><<<1, combine_block, 0, s>>>(partials, count, nullptr, out, mean_n);
      PPLAB_CUDA_LAUNCHED();
      return;
    }
    combine_pass<T, O>
        <<<unsigned(blocks), combine_block, 0, s>>>(partials, count, spare, nullptr, 0);
    PPLAB_CUDA_LAUNCHED();
    std::swap(partials, spare);
    count = blocks;
  }
}

// How many blocks of B threads fill the GPU for a grid-stride kernel.
template <class Kernel> unsigned resident_blocks(Kernel k, int threads) {
  static int sms = [] {
    int dev = 0, n = 0;
    PPLAB_CUDA(cudaGetDevice(&dev));
    PPLAB_CUDA(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev));
    return n;
  }();
  int per_sm = 0;
  PPLAB_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, threads, 0));
  return unsigned(sms * (per_sm > 0 ? per_sm : 1));
}

// ---- dispatch: Impl::template run<T, O>(in, n, scratch, out, mean_n, stream); mean runs sum.
template <class Impl, dtypes D> void dispatch(const reduce_call& c) {
  const auto s = static_cast<cudaStream_t>(c.stream);
  const auto go = [&](auto tag) {
    using T = decltype(tag);
    const T* in = static_cast<const T*>(c.in);
    switch (c.p.what) {
    case op::sum:
      Impl::template run<T, op::sum>(in, c.p.n, c.scratch, c.out, 0, s);
      break;
    case op::mean:
      Impl::template run<T, op::sum>(in, c.p.n, c.scratch, c.out, c.p.n, s);
      break;
    case op::product:
      Impl::template run<T, op::product>(in, c.p.n, c.scratch, c.out, 0, s);
      break;
    case op::min:
      Impl::template run<T, op::min>(in, c.p.n, c.scratch, c.out, 0, s);
      break;
    case op::max:
      Impl::template run<T, op::max>(in, c.p.n, c.scratch, c.out, 0, s);
      break;
    }
  };
  switch (c.p.type) {
  case dtype::i32:
    go(std::int32_t{});
    return;
  case dtype::i64:
    go(std::int64_t{});
    return;
  case dtype::u32:
    go(std::uint32_t{});
    return;
  case dtype::u64:
    go(std::uint64_t{});
    return;
  case dtype::f32:
    go(float{});
    return;
  case dtype::f64:
    go(double{});
    return;
  default:
    break;
  }
  if constexpr (D == dtypes::all) {
    switch (c.p.type) {
    case dtype::i8:
      go(std::int8_t{});
      return;
    case dtype::i16:
      go(std::int16_t{});
      return;
    case dtype::u8:
      go(std::uint8_t{});
      return;
    case dtype::u16:
      go(std::uint16_t{});
      return;
    default:
      break;
    }
  }
  fail(errc::unsupported, "this GPU rung does not take dtype " + std::string(name_of(c.p.type)));
}

// Bytes of scratch for rungs that write one partial per block and combine them by passes.
inline std::size_t bytes_for_partials(std::size_t blocks) { return partial_scratch(blocks) * 8; }

}  // namespace pplab::detail::gpu_reduce
