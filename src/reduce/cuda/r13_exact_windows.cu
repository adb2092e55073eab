// reduce/cuda/r13_exact_windows: the exact sum at memory speed on a GPU. The host's exact rungs
// add values of one exponent as integers; here the integer work would cost more than the bytes
// take to arrive, so the GPU's double adds do it, where they are exact.
//
// A warp loads a tile (two 16-byte loads, 8 floats or 4 doubles a lane) and finds its largest and
// smallest nonzero exponent (one integer max and min per value, one warp-wide max and min per
// tile). The warp keeps a window of exponents [base, base + window]: every value in it is a whole
// number of units u = 2^(base - bias) (its last bit is no finer), and small beside 2^53 units.
// - f32 data: each value converted to double and added to one double: the partial sums are whole
//   numbers of units below 2^53 (window + 24 bits + 6 bits for the 64 values added, 53), so no
//   add rounds.
// - f64 data: each value split at 2^split units by the rounding of sigma + x (sigma = 1.5 times
//   2^(split + 52) units: the sum's last bit is 2^split units, so subtracting sigma again leaves
//   x rounded to a multiple of 2^split units, exactly; x minus that is exact too), and the high
//   and low parts added to a double each: the highs are whole numbers of 2^split units below
//   2^53 of them, the lows whole units below 2^53. Five double adds a value, none rounding.
// Every 64 (f32) or 16 (f64) values a lane's doubles become integers of units (bit work, exact)
// added to a 64-bit integer. When a tile leaves the window the warp's integers go, summed over
// the warp, into the block's superaccumulator in shared memory (32-bit chunks in 64-bit words,
// added by atomics), and the window moves to the tile's largest exponent. A tile no window
// can take (a value 23 (f32) or 45 (f64) binades below the tile's largest) goes by classes of
// exponents, a double (floats) or two (doubles, split) a class a lane in shared memory, the
// host's method; doubles spread wider than a run of classes (144 exponents) in bands, a pass a
// band; a tile with an infinity or NaN, doubles past 2^967 or spread over more than six bands
// has each value added into the superaccumulator alone. Each block writes its
// chunks (carried into digits) to its slot; the last block to finish adds the slots' chunks,
// carries them into the exact total's long integer and counts of infinities and NaNs, and puts
// its counters back to zero. Nothing is rounded: the API rounds the total once (exact_total.hpp).
// What limits it: while tiles stay in their window, memory and the latency of a tile's work
// (short tiles, many warps: two loads a lane); the double, conversion and integer pipes have
// room (f32: 4 integer ops, a conversion and a double add per value).
// Measured (H200, bench/results/h200-2026-11-29-argmax-axes-abdb009.txt, the 2026-12-03
// section): f32 2^28 0.264 ms, 0.95x the plain r12 (normal data 0.95x, spread over 120 binades
// 0.91x); f64 2^27 0.270 ms, 0.93x (spread 0.343 ms, 0.73x; in bands alone it took 1.196 ms: a
// band pass costs ~250 instructions a warp, the integer work and the warp's sums).
#include <climits>

#include "reduce/cuda/reduce_cuda.cuh"
#include "reduce/exact_total.hpp"

namespace pplab::detail::reduce_cuda {
namespace {

constexpr unsigned block_threads = 256;
// 16-byte loads per lane per tile: two, so that a tile's work is short and many warps are
// resident (on an H200, f32 2^28: 0.2427 ms with two, 0.2795 with four, 0.3329 with eight).
constexpr int loads = 2;

template <class T> struct exact_traits;
template <> struct exact_traits<float> {
  static constexpr int exponent_shift = 23;  // of the word that holds the exponent
  static constexpr int top = 255;            // inf and NaN
  static constexpr int mantissa = 23;
  static constexpr int bias = 150;       // a value of exponent e >= 1 is m 2^(e - bias), m < 2^24
  static constexpr int window = 23;      // 23 + 24 + 6: 64 values add below 2^53 units
  static constexpr int flush_tiles = 8;  // 8 tiles of 8 values: 64 per lane between flushes
  static constexpr int highest_base = top - 1;
  static constexpr int chunks = 10;  // 32 bits each from 2^-149: the deposits reach bit 316
  static constexpr int min_blocks = 1;
  // A tile spread wider than a window goes by classes of 16 exponents (float_classes below).
  static constexpr int class_width = 16, classes = 256 / class_width;
  static constexpr int class_flush_tiles = 1024;  // 8192 values a lane below 2^(39 + 13) units
  static constexpr int class_doubles = classes;
};
template <> struct exact_traits<double> {
  static constexpr int exponent_shift = 20;  // of the high word
  static constexpr int top = 2047;
  static constexpr int mantissa = 52;
  static constexpr int bias = 1075;
  static constexpr int split = 50;       // lows below 2^49 units: 16 of them below 2^53
  static constexpr int window = 45;      // highs below 2^(53 + 45) units + 2^49: 16 below 2^103
  static constexpr int flush_tiles = 4;  // 4 tiles of 4 values: 16 per lane between flushes
  // sigma (2^(base + split - 1023) x 1.5) and the highs' sums (below 2^(base + 28)) finite.
  static constexpr int highest_base = 1990;
  static constexpr int chunks = 66;  // from 2^-1074: the deposits reach bit 2102
  static constexpr int min_blocks = 0;  // none asked: ptxas takes 64 registers, no spills
  // A tile spread wider than a window goes in bands of a window's width (band_sums below), up
  // to this many; a wider one value by value.
  static constexpr int most_bands = 6;
  // Before bands, a run of classes (double_classes below): 9 classes of 16 exponents, 144 from
  // the run's base, each value split at 2^34 units of its class.
  static constexpr int class_width = 16, classes = 9, class_split = 34;
  static constexpr int class_flush_tiles = 1024;     // 4096 values a lane: see double_classes
  static constexpr int highest_class_base = 1884;    // the top class's sigma and sums finite
  static constexpr int class_doubles = 2 * classes;  // a high and a low double a class
};
constexpr int most_flushes = 16;  // a lane's integer at most 2^57: a warp's 32 at most 2^62

// The superaccumulator words in the scratch's first 256 bytes (zero at the launch, zero again
// after it): the ticket, the range of chunks any block touched, the infinities and NaNs.
struct exact_words {
  unsigned ticket, chunk_end, chunk_begin_from_top;
  unsigned pad;
  unsigned long long pos_inf, neg_inf, nan;
};
static_assert(sizeof(exact_words) <= 256);

// d / 2^unit as an integer, where d is a whole number of such units, at most 2^53: bit work, exact.
__device__ inline long long units(double d, int unit) {
  const long long b = __double_as_longlong(d);
  const int e = int((b >> 52) & 0x7ff);
  const long long frac = b & ((1ll << 52) - 1);
  if (e == 0 && frac == 0) return 0;
  const long long m = frac | (e ? 1ll << 52 : 0);
  // d = m 2^(max(e, 1) - 1075) and 2^unit <= |d| <= 2^53 2^unit: a right shift of at most 52,
  // or (|d| = 2^53 units) a left one of 1
  const int shift = (unit + 1075) - (e ? e : 1);
  const long long v = shift >= 0 ? m >> shift : m << -shift;
  return b < 0 ? -v : v;
}

// 1.5 x 2^(split + 52) units of 2^(base - 1075): sigma + x rounds a double x to whole 2^split
// units of that base (a window's, a band's or a class's split).
__device__ inline double sigma_at(int base, int split) {
  return __longlong_as_double((static_cast<long long>(base + split) << 52) | (1ll << 51));
}

// Piece i (0, 1, 2) of v 2^s (0 <= s < 32) in 32-bit chunks: the low 32 bits, the next 32, the
// signed rest above.
__device__ inline long long chunk_piece(long long v, int s, int i) {
  const unsigned long long low = static_cast<unsigned long long>(v) << s;
  return i == 0   ? static_cast<long long>(low & 0xffffffffull)
         : i == 1 ? static_cast<long long>(low >> 32)
         : s      ? v >> (64 - s)
                  : (v < 0 ? -1 : 0);
}

// v 2^p (p >= 0, in units of the type's smallest subnormal) into the 32-bit chunks: the low 32
// bits of v 2^(p % 32) into chunk p / 32, the next 32 into the next, the signed rest above.
__device__ inline void deposit(long long* chunk, long long v, int p) {
  if (v == 0) return;
  const int j = p >> 5, s = p & 31;
  auto* c = reinterpret_cast<unsigned long long*>(chunk);
  for (int i = 0; i < 3; ++i) {  // the signed rest only where there is one
    const long long piece = chunk_piece(v, s, i);
    if (i < 2 || piece) atomicAdd(c + j + i, static_cast<unsigned long long>(piece));
  }
}

// v (the same in every lane: a warp's sum) 2^p into the warp's own chunks, as deposit() puts it,
// the three words added by lanes 0, 1 and 2 at once: plain adds, no atomics, since no other
// warp touches these words (the block adds them into its chunks at its end).
__device__ inline void deposit_warp_sum(long long* warp_chunk, long long v, int p) {
  __syncwarp();  // the lanes' adds of the deposit before are done
  const unsigned lane = threadIdx.x & 31;
  if (v == 0 || lane > 2) return;
  if (const long long piece = chunk_piece(v, p & 31, int(lane)))
    warp_chunk[(p >> 5) + lane] += piece;
}

// One value into the chunks on its own (its significand at its exponent's place), or counted.
template <class T>
__device__ inline void deposit_value(long long* chunk, exact_words* counts, T x) {
  using X = exact_traits<T>;
  unsigned long long b;
  if constexpr (sizeof(T) == 4) b = __float_as_uint(x);
  else b = static_cast<unsigned long long>(__double_as_longlong(x));
  const int e = int((b >> X::mantissa) & X::top);
  const unsigned long long frac = b & ((1ull << X::mantissa) - 1);
  const bool neg = b >> (sizeof(T) * 8 - 1);
  if (e == X::top) {
    atomicAdd(frac ? &counts->nan : neg ? &counts->neg_inf : &counts->pos_inf, 1ull);
    return;
  }
  const long long m = static_cast<long long>(frac | (e ? 1ull << X::mantissa : 0));
  deposit(chunk, neg ? -m : m, e ? e - 1 : 0);
}

__device__ inline long long warp_sum(long long v) {
#pragma unroll
  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// A warp's state: the window's base (0: none yet), the lanes' doubles and integers of units.
template <class T> struct window_state {
  using X = exact_traits<T>;
  int base = 0, tiles = 0, flushes = 0;
  double hi = 0, lo = 0;        // f32: hi alone; f64: the highs and the lows
  long long k_hi = 0, k_lo = 0;  // the doubles' units, at 2^split units (f64) and 1 unit
  double sigma = 0;

  __device__ void flush() {  // the doubles into the integers
    if constexpr (sizeof(T) == 4) {
      k_lo += units(hi, base - X::bias);
    } else {
      k_hi += units(hi, base + X::split - X::bias);
      k_lo += units(lo, base - X::bias);
    }
    hi = lo = 0;
    tiles = 0;
  }
  __device__ void deposit_warp(long long* chunk) {  // the integers into the chunks
    const long long low = warp_sum(k_lo);
    deposit_warp_sum(chunk, low, base - 1);
    if constexpr (sizeof(T) == 8) {
      const long long high = warp_sum(k_hi);
      deposit_warp_sum(chunk, high, base - 1 + X::split);
    }
    k_hi = k_lo = 0;
    flushes = 0;
  }
  __device__ void rebase(int b) {
    base = b;
    if constexpr (sizeof(T) == 8) sigma = sigma_at(base, X::split);
  }
};

// A warp's tile of floats spread wider than a window, by classes of exponents (the host's
// class_sums, exact_bins.hpp): class k holds the exponents [16 k, 16 k + 16), whose values are
// whole numbers of units 2^(b - bias), b = max(16 k, 1), below 2^39 units. Each lane adds each
// of its values, as a double, to its own double of the value's class in shared memory (a column
// a thread: no atomics, no bank conflicts); 8192 values a lane stay below 2^52 units, exact.
// flush turns a warp's class doubles into integers of units, summed over the warp, into the
// warp's chunks. The 16 classes hold every exponent: every finite tile is taken, none moves them.
struct float_classes {
  using X = exact_traits<float>;
  double* column;  // this thread's: class k at column[k * block_threads]
  int tiles = 0;   // spread tiles since the last flush (the same in every lane of the warp)

  __device__ bool takes(int, int) const { return true; }
  __device__ void move_to(long long*, int) {}

  __device__ void add(float x) {
    double& c = column[(__float_as_uint(x) >> 27 & (X::classes - 1)) * block_threads];
    c = __dadd_rn(c, double(x));
  }
  __device__ void flush(long long* chunk) {
    for (int k = 0; k < X::classes; ++k) {
      double& c = column[k * block_threads];
      const int base = ::max(k * X::class_width, 1);
      const long long v = warp_sum(units(c, base - X::bias));
      c = 0;
      deposit_warp_sum(chunk, v, base - 1);
    }
    tiles = 0;
  }
};

// A warp's tiles of doubles spread wider than a window, by a run of classes: from the run's
// base b, class k holds the exponents [b + 16 k, b + 16 k + 16) (from zero in the class of
// base 1), whose values are whole numbers of units u_k = 2^(b + 16 k - bias), below 2^68 of
// them. Each value is split at 2^34 units by its class's sigma (1.5 2^(34 + 52) u_k: the
// window's rounding) into a high part (whole 2^34 units) and a low one (at most 2^33 units),
// added to the class's high and low doubles, a column a thread in shared memory. 4096 values
// a lane (1024 tiles) keep the highs below 2^(68 + 12) = 2^(34 + 46) units and the lows below
// 2^45: no add rounds (2^19 values would still be exact). A tile outside the run moves it (its
// doubles into the chunks first) to the tile's largest exponent; one wider than the run's 144
// exponents goes in bands.
struct double_classes {
  using X = exact_traits<double>;
  double* column;  // this thread's: class k's high at column[2 k * block_threads], low after
  int base = 0;    // the run's (0: none), and its tiles since the last flush: the warp's alike
  int tiles = 0;

  __device__ bool takes(int least, int top) const {
    return base && least >= base && top < base + X::classes * X::class_width;
  }
  __device__ void add(double x) {
    const int e = int(__double_as_longlong(x) >> 52 & 0x7ff);
    const int k = ::max(e - base, 0) / X::class_width;  // a zero in the first class
    const double sigma = sigma_at(base + k * X::class_width, X::class_split);
    const double high = __dsub_rn(__dadd_rn(sigma, x), sigma);
    double& h = column[2 * k * block_threads];
    double& l = column[(2 * k + 1) * block_threads];
    h = __dadd_rn(h, high);
    l = __dadd_rn(l, __dsub_rn(x, high));
  }
  __device__ void flush(long long* warp_chunk) {
    for (int k = 0; k < X::classes; ++k) {
      double& h = column[2 * k * block_threads];
      double& l = column[(2 * k + 1) * block_threads];
      const int at = base + k * X::class_width;
      const long long k_hi = warp_sum(units(h, at + X::class_split - X::bias)),
                      k_lo = warp_sum(units(l, at - X::bias));
      h = l = 0;
      deposit_warp_sum(warp_chunk, k_hi, at - 1 + X::class_split);
      deposit_warp_sum(warp_chunk, k_lo, at - 1);
    }
    tiles = 0;
  }
  // The run moved to a tile's exponents (none where its top class would pass sigma's range).
  __device__ void move_to(long long* warp_chunk, int top) {
    if (base) flush(warp_chunk);
    base = ::max(top + 1 - X::classes * X::class_width, 1);
    if (base > X::highest_class_base) base = 0;
  }
};

// A warp's tile of doubles spread over `bands` windows' widths or fewer, band by band from its
// largest exponent down (the host's band_sums): each band's values (the others as zeros) split
// and added as a window adds them, into doubles of their own, then the warp's integers into the
// chunks. A band spans a window's exponents and a lane adds 4 values: no add rounds.
template <int per_lane>
__device__ inline void band_sums(long long* chunk, const double (&x)[per_lane], int least,
                                 int top) {
  using X = exact_traits<double>;
  for (int above = top + 1; above > least;) {
    const int base = ::max(above - (X::window + 1), 1);
    const double sigma = sigma_at(base, X::split);
    // The band's magnitudes, as bits: [base, above) (from zero where the band holds the
    // subnormals too).
    const long long low = base == 1 ? 0 : static_cast<long long>(base) << 52,
                    end = static_cast<long long>(above) << 52;
    double hi = 0, lo = 0;
#pragma unroll
    for (int i = 0; i < per_lane; ++i) {
      const long long a = __double_as_longlong(x[i]) & 0x7fffffffffffffffll;
      const double v = a >= low && a < end ? x[i] : 0.0;
      const double high = __dsub_rn(__dadd_rn(sigma, v), sigma);
      hi = __dadd_rn(hi, high);
      lo = __dadd_rn(lo, __dsub_rn(v, high));
    }
    const long long k_hi = warp_sum(units(hi, base + X::split - X::bias)),
                    k_lo = warp_sum(units(lo, base - X::bias));
    deposit_warp_sum(chunk, k_hi, base - 1 + X::split);
    deposit_warp_sum(chunk, k_lo, base - 1);
    above = base == 1 ? 0 : base;
  }
}

// The blocks per SM asked of ptxas (exact_traits::min_blocks) keep a tile's state in 40
// registers, six blocks of 256 an SM: f32 left to itself squeezes into 32 with spills for eight
// (on an H200, f32 2^28 0.2613 ms with six, 0.2714 with its eight, 0.2910 asking for eight);
// f64 takes 64 when nothing is asked (four blocks an SM: f64 2^27 0.271 ms; asking for five
// spills, 0.296 ms; before the classes, 48 registers and five blocks, 0.264 ms).
template <class T>
__global__ void __launch_bounds__(block_threads, exact_traits<T>::min_blocks)
    exact_windows(const T* __restrict__ in, std::size_t n, long long* slots, exact_words* words,
                  exact_total* out) {
  using X = exact_traits<T>;
  constexpr int per_vec = 16 / sizeof(T), per_lane = per_vec * loads;
  __shared__ long long chunk[X::chunks];
  __shared__ exact_words counts;
  // The classes' doubles, a column a thread (32 KB a block for floats, 36 KB for doubles).
  __shared__ double class_sums[X::class_doubles * block_threads];
  std::conditional_t<sizeof(T) == 4, float_classes, double_classes> classes{class_sums +
                                                                            threadIdx.x};
  for (int k = 0; k < X::class_doubles; ++k) class_sums[k * block_threads + threadIdx.x] = 0;
  // Each warp's own chunks, for its sums (deposit_warp_sum); the block's, for values one by one.
  __shared__ long long warp_chunks[block_threads / 32][X::chunks];
  long long* warp_chunk = warp_chunks[threadIdx.x / 32];
  for (int j = threadIdx.x; j < X::chunks; j += block_threads) chunk[j] = 0;
  for (int j = threadIdx.x; j < X::chunks * (block_threads / 32); j += block_threads)
    (&warp_chunks[0][0])[j] = 0;
  if (threadIdx.x == 0) counts = {};
  __syncthreads();

  // The aligned middle in tiles of 32 x `loads` vectors, a warp's each; the rest value by value.
  std::size_t head = ((16 - (reinterpret_cast<std::uintptr_t>(in) & 15)) & 15) / sizeof(T);
  if (head > n) head = n;
  const std::size_t vectors = (n - head) / per_vec, tiles = vectors / (32 * loads);
  const uint4* v = reinterpret_cast<const uint4*>(in + head);
  const unsigned lane = threadIdx.x & 31;
  const std::size_t warps = std::size_t(gridDim.x) * (block_threads / 32);
  window_state<T> w;
  for (std::size_t t = (std::size_t(blockIdx.x) * block_threads + threadIdx.x) / 32; t < tiles;
       t += warps) {
    T x[per_lane];
#pragma unroll
    for (int u = 0; u < loads; ++u) {
      const uint4 r = load16<load::readonly>(v + t * 32 * loads + u * 32 + lane);
      memcpy(x + u * per_vec, &r, 16);
    }
    // The largest exponent and the smallest nonzero one, from the magnitude's top word (a double
    // whose top word is zero but not its low one counts as a subnormal, not as zero).
    unsigned most = 0, least = UINT_MAX;
#pragma unroll
    for (int i = 0; i < per_lane; ++i) {
      unsigned key;
      if constexpr (sizeof(T) == 4) {
        key = __float_as_uint(x[i]) & 0x7fffffffu;
      } else {
        const long long b = __double_as_longlong(x[i]);
        key = (unsigned(b >> 32) & 0x7fffffffu) | ::min(unsigned(b), 1u);
      }
      most = ::max(most, key);
      least = ::min(least, key - 1);  // zero wraps to the largest: no exponent
    }
    most = __reduce_max_sync(0xffffffffu, most);
    least = __reduce_min_sync(0xffffffffu, least);
    if (least == UINT_MAX) continue;  // all zero
    const int e_max = int(most >> X::exponent_shift);
    const int e_min = ::max(int((least + 1) >> X::exponent_shift), 1);  // subnormals: e = 1's units
    const auto fits = [&](int base) {
      return base >= 1 && base <= X::highest_base && e_min >= base && e_max <= base + X::window;
    };
    if (!fits(w.base)) {
      const int b = ::max(e_max - X::window, 1);
      if (e_max == X::top || !fits(b)) {
        // Not in any window (the window kept for the tiles around): floats by classes, doubles
        // in bands; an infinity or a NaN, doubles past sigma's range or spread over too many
        // bands, each value on its own.
        if (e_max != X::top) {
          if (!classes.takes(e_min, e_max)) classes.move_to(warp_chunk, e_max);
          if (classes.takes(e_min, e_max)) {
#pragma unroll
            for (int i = 0; i < per_lane; ++i) classes.add(x[i]);
            if (++classes.tiles == X::class_flush_tiles) classes.flush(warp_chunk);
            continue;
          }
          if constexpr (sizeof(T) == 8)
            if (e_max - X::window <= X::highest_base &&
                (e_max - e_min) / (X::window + 1) < X::most_bands) {
              band_sums(warp_chunk, x, e_min, e_max);
              continue;
            }
        }
#pragma unroll
        for (int i = 0; i < per_lane; ++i) deposit_value(chunk, &counts, x[i]);
        continue;
      }
      if (w.base) {
        w.flush();
        w.deposit_warp(warp_chunk);
      }
      w.rebase(b);
    }
    if constexpr (sizeof(T) == 4) {
#pragma unroll
      for (int i = 0; i < per_lane; ++i) w.hi = __dadd_rn(w.hi, double(x[i]));
    } else {
#pragma unroll
      for (int i = 0; i < per_lane; ++i) {
        const double high = __dsub_rn(__dadd_rn(w.sigma, x[i]), w.sigma);
        w.hi = __dadd_rn(w.hi, high);
        w.lo = __dadd_rn(w.lo, __dsub_rn(x[i], high));
      }
    }
    if (++w.tiles == X::flush_tiles) {
      w.flush();
      if (++w.flushes == most_flushes) w.deposit_warp(warp_chunk);
    }
  }
  if (w.base) {
    w.flush();
    w.deposit_warp(warp_chunk);
  }
  if (classes.tiles) classes.flush(warp_chunk);
  // The values before the first 16-byte boundary and after the last whole tile.
  const std::size_t rest = head + tiles * 32 * loads * per_vec;
  const std::size_t g = std::size_t(blockIdx.x) * block_threads + threadIdx.x,
                    threads = std::size_t(gridDim.x) * block_threads;
  for (std::size_t i = g; i < head; i += threads) deposit_value(chunk, &counts, in[i]);
  for (std::size_t i = rest + g; i < n; i += threads) deposit_value(chunk, &counts, in[i]);
  __syncthreads();
  for (int j = threadIdx.x; j < X::chunks; j += block_threads) {  // the warps' chunks added in
    long long sum = 0;
    for (int k = 0; k < block_threads / 32; ++k) sum += warp_chunks[k][j];
    atomicAdd(reinterpret_cast<unsigned long long*>(chunk + j),
              static_cast<unsigned long long>(sum));
  }
  __syncthreads();

  __shared__ bool last;
  if (threadIdx.x == 0) {
    // The block's chunks carried into digits in [-2^31, 2^31) (the top one takes the rest), so
    // that the slots of any number of blocks add in 64 bits; written with the range they touch.
    long long carry = 0;
    int first = X::chunks, end = 0;
    long long* slot = slots + std::size_t(blockIdx.x) * X::chunks;
    for (int j = 0; j < X::chunks; ++j) {
      const long long c = chunk[j] + carry;
      const long long digit = j == X::chunks - 1 ? c : static_cast<int>(static_cast<unsigned>(c));
      carry = (c - digit) >> 32;
      slot[j] = digit;
      if (digit) first = ::min(first, j), end = j + 1;
    }
    if (end) {
      atomicMax(&words->chunk_end, unsigned(end));
      atomicMax(&words->chunk_begin_from_top, unsigned(X::chunks - first));
    }
    if (counts.pos_inf) atomicAdd(&words->pos_inf, counts.pos_inf);
    if (counts.neg_inf) atomicAdd(&words->neg_inf, counts.neg_inf);
    if (counts.nan) atomicAdd(&words->nan, counts.nan);
    __threadfence();  // the slot and the counts are visible GPU-wide before the ticket
    last = atomicAdd(&words->ticket, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  __threadfence();

  // The last block: the slots' chunks added (each thread one chunk over a share of the blocks),
  // carried into the long integer's limbs, the counters put back to zero.
  const unsigned end = cuda_detail::load_from_l2(&words->chunk_end);
  const unsigned begin = X::chunks - cuda_detail::load_from_l2(&words->chunk_begin_from_top);
  for (int j = threadIdx.x; j < X::chunks; j += block_threads) chunk[j] = 0;
  __syncthreads();
  if (end > begin) {
    const unsigned span = end - begin, lanes_per_chunk = ::max(block_threads / span, 1u);
    if (threadIdx.x < span * lanes_per_chunk) {
      const unsigned j = begin + threadIdx.x % span;
      long long s = 0;
      for (unsigned b = threadIdx.x / span; b < gridDim.x; b += lanes_per_chunk)
        s += cuda_detail::load_from_l2(slots + std::size_t(b) * X::chunks + j);
      atomicAdd(reinterpret_cast<unsigned long long*>(chunk + j),
                static_cast<unsigned long long>(s));
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    long long carry = 0;
    for (int i = 0; i < long_sum::limbs; ++i) {
      unsigned long long limb = 0;
      for (int h = 0; h < 2; ++h) {
        const int j = 2 * i + h;
        const long long c = (j < X::chunks ? chunk[j] : 0) + carry;
        limb |= static_cast<unsigned long long>(static_cast<unsigned>(c)) << (32 * h);
        carry = c >> 32;  // arithmetic: the sign runs up through the limbs above
      }
      out->value.limb[i] = limb;
    }
    out->pos_inf = cuda_detail::load_from_l2(&words->pos_inf);
    out->neg_inf = cuda_detail::load_from_l2(&words->neg_inf);
    out->nan = cuda_detail::load_from_l2(&words->nan);
    out->count = n;
    *words = {};
  }
}

std::size_t slots_bytes() {
  static const std::size_t blocks = resident_blocks(exact_windows<double>, block_threads);
  return std::size_t(blocks) * exact_traits<double>::chunks * sizeof(long long);
}

template <class T> void run_exact(const reduce_call& c) {
  static const unsigned resident = resident_blocks(exact_windows<T>, block_threads);
  constexpr std::size_t per_block = block_threads * loads * (16 / sizeof(T));
  const unsigned blocks = unsigned(std::min<std::size_t>(
      {resident, std::max<std::size_t>(1, (c.p.n + per_block - 1) / per_block),
       slots_bytes() / (exact_traits<T>::chunks * sizeof(long long))}));
  auto* words = static_cast<exact_words*>(c.scratch);
  auto* slots = reinterpret_cast<long long*>(static_cast<char*>(c.scratch) + 256);
  exact_windows<T><<<blocks, block_threads, 0, static_cast<cudaStream_t>(c.stream)>>>(
      static_cast<const T*>(c.in), c.p.n, slots, words, c.total());
  PPLAB_CUDA_LAUNCHED();
}

}  // namespace

extern const reduce_rung r13_exact_windows{
    .info = {.step = 13,
             .summary = "exact: warp windows added in doubles, a superaccumulator per block"},
    .can_run = exact_problems,
    .scratch_bytes = [](const reduce_problem&) { return 256 + slots_bytes(); },
    .run =
        [](const reduce_call& c) {
          if (c.p.type == dtype::f32) run_exact<float>(c);
          else run_exact<double>(c);
        },
};

}  // namespace pplab::detail::reduce_cuda
