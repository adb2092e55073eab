#pragma once
// What the registry says of each rung: its id, backend, step on the ladder and summary. `pplab
// list`, the lab and pplab::lab::rungs() give these.
#include <string_view>

#include "pplab/backend.hpp"

namespace pplab {

// Words: a *rung* is one registered implementation ("reduce/cpu/r03_simd_accumulators"); its
// *step* is its place on its pattern's ladder for its backend.
struct rung_info {
  // "<pattern>/<backend>/<xNN_idea>": the rung's file, src/<pattern>/<backend>/<xNN_idea>.*
  std::string_view id{};
  backend where{};
  // 1.. the ladder, 0 the vendor baseline (measured, never the default), -1 a reference measured
  // beside the ladder that computes a looser answer (CUB's float Sum).
  int step;
  std::string_view summary;  // one line: what this rung changes
  bool racy = false;         // loses updates on purpose (a teaching rung): never verified exact
  bool reproducible = true;  // same bits on every run (false: float results depend on timing)
  bool float_accumulator = false;  // float sums accumulate in float: a float-sized error bound
  // Computes to another contract than the API's default (split-TF32 matmul: f32's error bound,
  // not strict f32 arithmetic): run only when named, never picked by the policy or `pplab tune`.
  bool opt_in = false;
  // Takes each fp32 product as three TF32 tensor-core products (split-TF32): held to
  // split_tf32_tolerance (core/verify.hpp) rather than fp32's.
  bool tf32_split = false;
  // Cuts its integer outputs toward zero where the API rounds them to nearest (NPP's u8 filters):
  // held to the truncation of a value within the tolerance, and never the API's answer.
  bool truncates = false;

  // Whether the API may run it unasked (as `pplab tune`'s pick): it computes the API's answer,
  // exactly as the reference is held (not racy, not irreproducible, not a looser reference, not
  // another contract, not truncated). The built-in policy further names only ladder rungs
  // (step >= 1).
  bool api_may_run() const {
    return step >= 0 && !racy && reproducible && !float_accumulator && !opt_in && !truncates;
  }

  // The pattern's name: the id up to its first '/'.
  std::string_view pattern() const { return id.substr(0, id.find('/')); }
};

}  // namespace pplab
