#pragma once
// The registry of rungs: every variant of every pattern and backend, reachable by id.
// Tests, `pplab list` and `pplab lab` walk it, so a rung is tested and measured once registered.
// Each backend folder has one register.cpp that adds its rungs by explicit calls.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "pplab/backend.hpp"
#include "pplab/dtype.hpp"
#include "pplab/ops.hpp"
#include "pplab/reduce.hpp"

namespace pplab::detail {

struct variant_info {
  std::string_view id;  // "reduce/cpu/r03_simd_accumulators"
  pattern what;
  backend where;
  int rung;                  // place on the ladder; 0 = vendor baseline, measured, never default
  std::string_view summary;  // one line: what this rung changes
  bool racy = false;         // loses updates on purpose (a teaching rung): never verified exact
  bool reproducible = true;  // same bits on every run (false: float results depend on timing)
};

// Where a rung expects its input and output: host memory, or device memory (GPU rungs).
enum class memory { host, device };

// ---- reduction
struct reduce_problem {
  dtype type;
  op what;
  std::size_t n;
};
struct reduce_call {
  reduce_problem p;
  const void* in;  // n elements of p.type
  scalar* out;     // one scalar, in the rung's memory
  void* scratch;   // scratch_bytes(p) bytes, in the rung's memory; the first 256 bytes of
                   // device scratch arrive zeroed, and a rung that counts there leaves them so
  void* stream;    // cudaStream_t for GPU rungs; they only enqueue work, never synchronize
                   // (except r10, whose point is the host round trip)
};
struct reduce_rung {
  variant_info info;
  memory mem = memory::host;
  bool (*can_run)(const reduce_problem&) = nullptr;
  std::size_t (*scratch_bytes)(const reduce_problem&) = nullptr;  // may be null: none
  void (*run)(const reduce_call&) = nullptr;
};

// ---- histogram
// The resolved problem: every rung counts into bins + 3 slots: the bins, then underflow,
// overflow and NaN (see binning.hpp), so outliers need no special path.
struct histogram_problem {
  dtype type;
  std::size_t n;
  std::size_t bins;
  double lo, hi;
  bool closed_last;
  bool natural;  // 8/16-bit integers over their whole range: bin = value - lo, no outliers
};
struct histogram_call {
  histogram_problem p;
  const void* in;
  std::uint64_t* counts;  // bins + 3 slots, in the rung's memory; the rung overwrites them
  void* scratch;
  void* stream;
};
struct histogram_rung {
  variant_info info;
  memory mem = memory::host;
  bool (*can_run)(const histogram_problem&) = nullptr;
  std::size_t (*scratch_bytes)(const histogram_problem&) = nullptr;
  void (*run)(const histogram_call&) = nullptr;
  // Where the API prefers this rung (the strategies trade off by bin count); null: wherever it
  // can run.
  bool (*suits)(const histogram_problem&) = nullptr;
};

// ---- matmul
struct matmul_problem {
  dtype type;  // f32 or f64
  std::size_t m, n, k;
};
struct matmul_call {
  matmul_problem p;
  double alpha, beta;
  const void* a;
  std::size_t lda;
  const void* b;
  std::size_t ldb;
  void* c;
  std::size_t ldc;
  void* stream;
};
struct matmul_rung {
  variant_info info;
  memory mem = memory::host;
  bool (*can_run)(const matmul_problem&) = nullptr;
  void (*run)(const matmul_call&) = nullptr;
};

struct registry {
  std::vector<reduce_rung> reduce;
  std::vector<histogram_rung> histogram;
  std::vector<matmul_rung> matmul;
};

// The one registry, filled on first use by the register.cpp of each backend built.
const registry& rungs();

const reduce_rung* find_reduce(std::string_view id);
const histogram_rung* find_histogram(std::string_view id);
const matmul_rung* find_matmul(std::string_view id);

// The rung the API uses for a backend: the highest rung above 0 that can run the problem (and,
// for histograms, suits it).
const reduce_rung& pick_reduce(backend b, const reduce_problem& p);
const histogram_rung& pick_histogram(backend b, const histogram_problem& p);
const matmul_rung& pick_matmul(backend b, const matmul_problem& p);

// Registration hooks, one per backend folder (defined in each register.cpp).
void register_reduce_seq(registry&);
void register_reduce_cpu(registry&);
void register_histogram_seq(registry&);
void register_histogram_cpu(registry&);
void register_matmul_seq(registry&);
void register_matmul_cpu(registry&);
#ifdef PPLAB_HAVE_OPENBLAS
void register_matmul_openblas(registry&);
#endif
#ifdef PPLAB_HAVE_CUDA
void register_reduce_cuda(registry&);
#endif

}  // namespace pplab::detail
