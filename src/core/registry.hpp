#pragma once
// The registry of rungs: every variant of every pattern and backend, reachable by id.
// Tests, `pplab list` and `pplab lab` walk it, so a rung is tested and measured once registered.
// Each backend folder has one register file that adds its rungs by explicit calls.
//
// The call contract, the same for every pattern: a rung says what it can run (`can_run`), how
// much scratch it needs (`scratch_bytes`, in its backend's memory; the first 256 bytes arrive
// zeroed, and a rung that counts there leaves them zero), and `run` enqueues its work on the
// call's stream. Inputs, outputs and scratch live in the memory of the rung's backend (host
// memory for seq and cpu, device memory for cuda); the executor of that backend
// (core/executor.hpp) puts them there.
#include <cstddef>
#include <cstdint>
#include <string>
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
  // Place on the ladder: 1.. the ladder, 0 the vendor baseline (measured, never the default),
  // -1 a reference measured beside the ladder that computes a looser answer (CUB's float Sum).
  int rung;
  std::string_view summary;  // one line: what this rung changes
  bool racy = false;         // loses updates on purpose (a teaching rung): never verified exact
  bool reproducible = true;  // same bits on every run (false: float results depend on timing)
  bool float_accumulator = false;  // float sums accumulate in float: a float-sized error bound
};

// One rung of any pattern. Problem says what to compute, Call where the data is.
template <class Problem, class Call> struct basic_rung {
  using problem_type = Problem;
  using call_type = Call;
  variant_info info;
  bool (*can_run)(const Problem&) = nullptr;
  std::size_t (*scratch_bytes)(const Problem&) = nullptr;  // null: no scratch
  void (*run)(const Call&) = nullptr;
  // What the lab notes beside the rung's row, or null: how it launches on this device (shared
  // memory, registers, resident blocks, occupancy) where that is the lesson of the rung.
  std::string (*explain)(const Problem&) = nullptr;
  std::size_t scratch(const Problem& p) const { return scratch_bytes ? scratch_bytes(p) : 0; }
};

// ---- reduction
struct reduce_problem {
  dtype type;
  op what;
  std::size_t n;
};
struct reduce_call {
  reduce_problem p;
  const void* in;  // n elements of p.type
  scalar* out;     // one scalar
  void* scratch;
  void* stream;  // cudaStream_t for GPU rungs; they only enqueue (except r10, whose point is the
                 // host round trip)
};
using reduce_rung = basic_rung<reduce_problem, reduce_call>;

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
  std::uint64_t* counts;  // bins + 3 slots; the rung overwrites them
  void* scratch;
  void* stream;
};
using histogram_rung = basic_rung<histogram_problem, histogram_call>;

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
  void* scratch;
  void* stream;
};
using matmul_rung = basic_rung<matmul_problem, matmul_call>;

struct registry {
  std::vector<reduce_rung> reduce;
  std::vector<histogram_rung> histogram;
  std::vector<matmul_rung> matmul;
};

// The one registry, filled on first use by the register file of each backend built.
const registry& rungs();

template <class Rung> constexpr pattern pattern_of() {
  if constexpr (std::is_same_v<Rung, reduce_rung>) return pattern::reduce;
  else if constexpr (std::is_same_v<Rung, histogram_rung>) return pattern::histogram;
  else return pattern::matmul;
}

// Every rung of one pattern: rungs_of<reduce_rung>() and so on.
template <class Rung> const std::vector<Rung>& rungs_of() {
  if constexpr (std::is_same_v<Rung, reduce_rung>) return rungs().reduce;
  else if constexpr (std::is_same_v<Rung, histogram_rung>) return rungs().histogram;
  else return rungs().matmul;
}

// A rung by id, or null.
template <class Rung> const Rung* find(std::string_view id) {
  for (const Rung& r : rungs_of<Rung>())
    if (r.info.id == id) return &r;
  return nullptr;
}
inline const reduce_rung* find_reduce(std::string_view id) { return find<reduce_rung>(id); }
inline const histogram_rung* find_histogram(std::string_view id) {
  return find<histogram_rung>(id);
}
inline const matmul_rung* find_matmul(std::string_view id) { return find<matmul_rung>(id); }

// Registration hooks, one per backend folder (each defined in that folder's register file).
void register_reduce_seq(registry&);
void register_reduce_cpu(registry&);
void register_histogram_seq(registry&);
void register_histogram_cpu(registry&);
void register_matmul_seq(registry&);
void register_matmul_cpu(registry&);  // with the OpenBLAS baseline when it was found
// The cuda backend's rungs of every pattern (src/core/cuda/; nothing in a build without CUDA).
void register_cuda(registry&);
// The mpi backend's rungs of every pattern (src/core/mpi/; nothing in a build without MPI).
void register_mpi(registry&);
// The nccl backend's rungs of every pattern (src/core/nccl/; nothing in a build without NCCL).
void register_nccl(registry&);

}  // namespace pplab::detail
