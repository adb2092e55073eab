#pragma once
// Timing a callable: warm-up runs, then repeats until both a count and a time budget are met,
// reporting the median and the minimum. A run that takes longer than the whole budget is timed
// once (after no warm-up): the slow rungs of a ladder would otherwise take minutes.
#include <algorithm>
#include <vector>

#include "core/timer.hpp"

namespace pplab::detail {

struct timing {
  double median_s = 0, min_s = 0;
  int reps = 0;
};

template <class F> timing time_it(F&& run, int min_reps, double budget_s) {
  std::vector<double> samples;
  stopwatch first;
  run();  // warm-up: page faults, thread pool start, caches
  const double once = first.seconds();
  if (once > budget_s) {
    samples.push_back(once);
  } else {
    stopwatch total;
    while (int(samples.size()) < min_reps ||
           (total.seconds() < budget_s && samples.size() < 1000)) {
      stopwatch s;
      run();
      samples.push_back(s.seconds());
      if (total.seconds() > 4 * budget_s && int(samples.size()) >= 3) break;
    }
  }
  std::sort(samples.begin(), samples.end());
  return {samples[samples.size() / 2], samples.front(), int(samples.size())};
}

}  // namespace pplab::detail
