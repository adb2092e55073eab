#pragma once
// histogram2d's and histogramdd's host points binned and counted (or their weights summed) in one
// pass, where they are found: each thread (seq: this one; cpu: each a contiguous section) adds
// into its own copy of the bins and the points outside (the last entry), and the copies are added
// bin by bin in thread order: h02's privatization (histogram/cpu/h02_private_per_thread.cpp: the
// same sections and order, so its bits), without the 32-bit slot a point that the 1-D
// histogram's rungs read (written and read again, and its memory's fresh pages: 2^24 points into
// 16 x 16 bins took 0.35 s on the 2-core EPYC, 0.23 s of it the slots' pages; 0.068 s so). To
// 2^21 entries, and while the copies of all threads fit the cpu rungs' private budget (2^24
// points into 1024 x 1024 bins 0.11-0.19 s there against the slots' 0.33 s); more bins, a rung
// named and the mpi backend take the slots.
#include <omp.h>

#include <cstdint>
#include <string>
#include <vector>

#include "histogram/cpu/private_copies.hpp"
#include "pplab/histogram.hpp"

namespace pplab::detail {

inline bool counted_on_host_fits(backend where, std::size_t entries) {
  if (where != backend::seq && where != backend::cpu) return false;
  const std::size_t team = where == backend::cpu ? std::size_t(omp_get_max_threads()) : 1;
  return entries <= (std::size_t(1) << 21) && team * entries * 8 <= histogram_cpu::private_budget;
}

// Each thread's copy of `entries` slots, add(copy, i) for each of its points, then the copies
// added in thread order.
template <class Slot, class Add>
std::vector<Slot> privately_added(std::size_t n, std::size_t entries, bool threads, Add&& add) {
  const int team = threads ? omp_get_max_threads() : 1;
  std::vector<Slot> out(entries), priv(std::size_t(team) * entries);
#pragma omp parallel num_threads(team) if (team > 1)
  {
    const std::size_t t = std::size_t(omp_get_thread_num()),
                      used = std::size_t(omp_get_num_threads());
    Slot* mine = priv.data() + t * entries;
    for (std::size_t i = n * t / used, end = n * (t + 1) / used; i < end; ++i) add(mine, i);
#pragma omp barrier
#pragma omp for schedule(static)
    for (std::ptrdiff_t b = 0; b < std::ptrdiff_t(entries); ++b) {
      Slot total = 0;
      for (std::size_t u = 0; u < used; ++u) total += priv[u * entries + std::size_t(b)];
      out[std::size_t(b)] = total;
    }
  }
  return out;
}

// The 1-D result of `entries` slots (the last: the points outside), point i's slot slot_of(i),
// counted or with weights (float32 or float64) summed; `what` names the call in the rung's id.
template <class SlotOf>
histogram_result counted_on_host(const char* what, backend where, std::size_t n,
                                 std::size_t entries, const void* weights, dtype weight_type,
                                 SlotOf&& slot_of) {
  histogram_result r;
  r.rung = std::string(what) + "/" + std::string(name_of(where)) + "/counted_where_found";
  const bool threads = where != backend::seq;
  if (!weights) {
    r.counts = privately_added<std::uint64_t>(
        n, entries, threads, [&](std::uint64_t* mine, std::size_t i) { ++mine[slot_of(i)]; });
    return r;
  }
  r.weighted = true;
  const auto sum = [&](const auto* w) {
    r.sums = privately_added<double>(n, entries, threads, [&](double* mine, std::size_t i) {
      mine[slot_of(i)] += double(w[i]);
    });
  };
  if (weight_type == dtype::f32) sum(static_cast<const float*>(weights));
  else sum(static_cast<const double*>(weights));
  return r;
}

}  // namespace pplab::detail
