#pragma once
// What the GPU reduction rungs share on top of the CUDA toolbox: the device side of the ops (the
// host's combine and identity, compiled for the device too), the vectorized per-thread fold,
// the multi-pass combine of per-block partials, and the dispatch from (dtype, op) to kernels.
#include <cuda_runtime.h>

#include <cstdint>

#include "core/cuda/toolbox.cuh"
#include "reduce/reduce_common.hpp"

namespace pplab::detail::reduce_cuda {

// The dtypes a rung compiles for: all ten, or the 32- and 64-bit ones (teaching rungs, to keep
// the build lean; they say so in can_run).
enum class dtypes { all, wide };

// `args`: the rung takes argmin and argmax too; `moments`: var and std too; `nans`: the nan ops
// of those it takes.
template <dtypes D, bool args = false, bool moments = false, bool nans = false>
bool supports(const reduce_problem& p) {
  const op o = as_for(p.type, p.what);
  return !p.exact && (D == dtypes::all || size_of(p.type) >= 4) && (args || !is_arg(o)) &&
         (moments || !is_moments(o)) && (nans || !skips_nan(o));
}

// ---- writing the answer: argmin's and argmax's is the index (-1 for no element)
template <class T> __device__ inline void store(scalar* out, arg_acc<T> v, std::size_t) {
  out->k = scalar::kind::i64;
  out->i = v.index == no_index ? -1 : v.index;
}
// var's and std's: the moments themselves (answer_bytes), merged with other parts' on the host
__device__ inline void store(scalar* out, moments v, std::size_t) {
  *reinterpret_cast<moments*>(out) = v;
}
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

// ---- the toolbox's block reduction with this op's combine and identity
template <class T, op O, int B> __device__ inline acc_t<T, O> block_reduce(acc_t<T, O> v) {
  return detail::block_reduce<B>(v, op_combine<T, O>{}, identity<T, O>());
}

// The combine of the hot loop. Float min and max take the single hardware instruction that
// propagates NaN (max.NaN.f32, sm_80+) instead of a compare, a NaN test and a select; nanmin and
// nanmax the one that drops it (fminf, fmaxf: the other operand where one is NaN).
template <class T, op O> __device__ inline acc_t<T, O> hot_combine(acc_t<T, O> a, acc_t<T, O> b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (std::is_same_v<acc_t<T, O>, float> && (O == op::max || O == op::min)) {
    float r;
    if constexpr (O == op::max) asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
    else asm("min.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
    return r;
  }
#endif
  if constexpr (std::is_same_v<acc_t<T, O>, float> && O == op::nanmax) return fmaxf(a, b);
  if constexpr (std::is_same_v<acc_t<T, O>, float> && O == op::nanmin) return fminf(a, b);
  return combine<T, O>(a, b);
}

// ---- N values a thread holds, merged into its accumulator v: var's and std's as one group
// first (their mean by a multiply, their squared deviations from it), then one merge, so one
// division for the N, not one a value (a division a value kept the FP64 pipe busy: the f32 var
// of 2^28 ran at 64% of the read ceiling); any other op's one at a time, in order. index(u) is
// value u's index (argmin, argmax).
// nanmean's, nanvar's and nanstd's group is its values that are not NaN. The moments are of the
// values less `shift` (shift_for, reduce_common.hpp; shifted_back undoes it at the end).
template <class T, op O, int N, class Index>
__device__ inline acc_t<T, O> merged(acc_t<T, O> v, const T (&x)[N], Index index,
                                     double shift = 0) {
  if constexpr (is_moments(O) && skips_nan(O)) {
    double s = 0, k = 0;
#pragma unroll
    for (int u = 0; u < N; ++u) {
      const bool number = x[u] == x[u];
      s += number ? double(x[u]) - shift : 0.0;
      k += number ? 1.0 : 0.0;
    }
    if (k == 0) return v;
    // 1/k by selects among the constants 1/1 .. 1/N, not a division: a warp whose groups hold a
    // NaN here and there took both paths, and its f32 nanmean of 2^28 read at 64% of the ceiling
    double inv = 1.0;
#pragma unroll
    for (int c = 2; c <= N; ++c) inv = k == c ? 1.0 / c : inv;
    const double mean = s * inv;
    double m2 = 0;
#pragma unroll
    for (int u = 0; u < N; ++u) {
      const double d = x[u] == x[u] ? (double(x[u]) - shift) - mean : 0.0;
      m2 += d * d;
    }
    return combine<T, O>(v, moments{k, mean, m2});
  } else if constexpr (is_moments(O)) {
    double s = 0;
#pragma unroll
    for (int u = 0; u < N; ++u) s += double(x[u]) - shift;
    const double mean = s * (1.0 / N);
    double m2 = 0;
#pragma unroll
    for (int u = 0; u < N; ++u) {
      const double d = (double(x[u]) - shift) - mean;
      m2 += d * d;
    }
    return combine<T, O>(v, moments{double(N), mean, m2});
  } else {
#pragma unroll
    for (int u = 0; u < N; ++u) v = combine<T, O>(v, lift<T, O>(x[u], index(u)));
    return v;
  }
}

// var's and std's fold (O: op::var, or op::nanvar): each 16-byte vector's elements merged as
// one group, less `shift`.
template <class T, op O, int unroll, load L>
__device__ inline moments thread_moments_vec(const T* __restrict__ in, std::size_t n, std::size_t g,
                                             std::size_t threads, double shift) {
  moments acc = identity<T, O>();
  for_each_vector<T, unroll, L>(
      in, n, g, threads,
      [&](const T(&x)[16 / sizeof(T)], std::size_t first) {
        acc = merged<T, O>(
            acc, x, [first](int u) { return first + std::size_t(u); }, shift);
      },
      [&](T x, std::size_t i) { acc = combine<T, O>(acc, lift_less<T, O>(x, i, shift)); });
  return acc;
}

// nanmean's fold: the values that are not NaN, less `shift`, summed in double (two sums, so
// that the adds of a vector do not all wait on each other) and counted in an integer; the
// thread's mean taken once, at its end, as moments of no squared deviations (nanmean's answer
// is the mean alone; its parts merge as moments). The moments' fold merges a group a vector
// (a division, and the squared deviations nanmean never reads): nine FP64 operations a float,
// and the f32 nanmean of 2^28 ran at 78% of the read ceiling, FP64-bound; this one takes three.
template <class T, int unroll, load L>
__device__ inline moments thread_nanmean_vec(const T* __restrict__ in, std::size_t n, std::size_t g,
                                             std::size_t threads, double shift) {
  double s[2] = {0, 0};
  std::uint64_t k = 0;
  for_each_vector<T, unroll, L>(
      in, n, g, threads,
      [&](const T(&x)[16 / sizeof(T)], std::size_t) {
#pragma unroll
        for (int u = 0; u < 16 / int(sizeof(T)); ++u) {
          const bool number = x[u] == x[u];
          s[u % 2] += number ? double(x[u]) - shift : 0.0;
          k += number;
        }
      },
      [&](T x, std::size_t) {
        if (x == x) s[0] += double(x) - shift, ++k;
      });
  if (k == 0) return {0, 0, 0};
  return {double(k), (s[0] + s[1]) / double(k), 0};
}

// ---- the vectorized grid-stride load: 16-byte loads, `unroll` of them in flight per thread,
// folded into `lanes` independent accumulators (element e of a vector into lane e % lanes), so
// the adds of one vector do not wait on each other. Elements before the first 16-byte boundary
// and after the last whole vector take scalar loads. The moments are of the values less `shift`.
template <class T, op O, int unroll, load L = load::readonly, int lanes = 1>
__device__ inline acc_t<T, O> thread_reduce_vec(const T* __restrict__ in, std::size_t n,
                                                std::size_t g, std::size_t threads,
                                                double shift = 0) {
  using A = acc_t<T, O>;
  static_assert((16 / sizeof(T)) % lanes == 0);
  if constexpr (O == op::nanmean) return thread_nanmean_vec<T, unroll, L>(in, n, g, threads, shift);
  if constexpr (is_moments(O)) return thread_moments_vec<T, O, unroll, L>(in, n, g, threads, shift);
  A acc[lanes];
#pragma unroll
  for (int k = 0; k < lanes; ++k) acc[k] = identity<T, O>();
  for_each_vectorized<T, unroll, L>(in, n, g, threads, [&](T x, std::size_t e, std::size_t i) {
    acc[e % lanes] = hot_combine<T, O>(acc[e % lanes], lift<T, O>(x, i));
  });
#pragma unroll
  for (int k = 1; k < lanes; ++k) acc[0] = combine<T, O>(acc[0], acc[k]);
  return acc[0];
}

// ---- the reduction notes' cross-block combine by further launches: each pass reduces `count`
// partials to one per block, until one is left, which the last pass writes as the answer.
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

// The widest accumulator: var's moments, three doubles.
constexpr std::size_t max_acc_bytes = sizeof(moments);

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

// ---- dispatch: Impl::template run<T, O>(in, n, scratch, out, mean_n, stream); mean runs sum;
// argmin and argmax where Impl says `args`, var and std where it says `moments` (takes_args,
// takes_moments: reduce_common.hpp).
template <class Impl, dtypes D> void dispatch(const reduce_call& c) {
  const op what = as_for(c.p.type, c.p.what);
  visit_reduce<takes_args<Impl>, takes_moments<Impl>, takes_nans<Impl>>(
      c.p.type, what, [&](auto tag, auto otag) {
        using T = decltype(tag);
        constexpr op O = decltype(otag)::value;
        // nanmean comes as nanvar (one accumulator, the moments); its own fold where a rung takes
        // the nan ops (thread_nanmean_vec).
        if constexpr (O == op::nanvar && (D == dtypes::all || sizeof(T) >= 4))
          if (what == op::nanmean)
            return Impl::template run<T, op::nanmean>(static_cast<const T*>(c.in), c.p.n, c.scratch,
                                                      c.out, 0,
                                                      static_cast<cudaStream_t>(c.stream));
        if constexpr (D == dtypes::all || sizeof(T) >= 4)
          Impl::template run<T, O>(static_cast<const T*>(c.in), c.p.n, c.scratch, c.out,
                                   what == op::mean ? c.p.n : 0,
                                   static_cast<cudaStream_t>(c.stream));
        else
          fail(errc::unsupported,
               "this GPU rung does not take dtype " + std::string(name_of(c.p.type)));
      });
}

// Bytes of scratch for rungs that write one partial per block and combine them by passes.
inline std::size_t bytes_for_partials(std::size_t blocks) {
  return partial_scratch(blocks) * max_acc_bytes;
}

}  // namespace pplab::detail::reduce_cuda
