#pragma once
// The lab: every rung of every pattern on this machine, verified and timed beside the machine's
// own ceilings, measured in the same run.
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "pplab/backend.hpp"

namespace pplab::cli {

inline constexpr double none = std::numeric_limits<double>::quiet_NaN();

struct lab_row {
  std::string pattern, backend, variant, dtype, op, group;  // group: the problem, e.g. "f32 sum"
  int rung = 0;
  std::size_t n = 0;
  int reps = 0;
  double median_ms = 0, min_ms = 0;
  double GBps = none, GFLOPs = none, pct_of_ceiling = none;
  double vs_baseline = none, vs_below = none, vs_rung1 = none;
  bool verified = false;
  double max_rel_err = none;
  std::string note;
};

struct lab_ceilings {
  double read_GBps = none, copy_GBps = none, fp32_GFLOPs = none;
  double store_GBps = none;  // a byte histogram's floor: one scattered counter store per byte
  // GPU ceilings (cuda backend), measured in the same run when a device answers.
  double gpu_theoretical_GBps = none, gpu_read_GBps = none, gpu_copy_GBps = none;
  double gpu_h2d_GBps = none;  // host-to-device copy from pinned memory
};

struct lab_settings {
  bool quick = false;
  std::optional<pattern> only_pattern;
  std::optional<backend> only_backend;
  double budget_s = 1.0;  // time per rung
  bool progress = false;
};

class lab_session {
public:
  explicit lab_session(lab_settings s);
  lab_ceilings ceilings;
  std::vector<lab_row> rows;
  const lab_settings settings;

  bool wants(pattern p, backend b) const;
  void progress(const std::string& what);
  void progress_done();
  std::size_t steps_done = 0, steps_total = 0;
};

void lab_reduce(lab_session& lab);
void lab_histogram(lab_session& lab);
void lab_matmul(lab_session& lab);
#ifdef PPLAB_HAVE_CUDA
void lab_cuda_ceilings(lab_session& lab);
void lab_cuda_reduce(lab_session& lab);
#endif

// Fills the ratio columns, prints the table, writes the JSON record and the SVG chart.
void lab_finish(lab_session& lab);
void print_table(const lab_session& lab);
void write_record(const lab_session& lab, const std::string& path);
void write_chart(const lab_session& lab, const std::string& path);

std::string pow2_label(std::size_t n);  // "2^28" or "1000003"

}  // namespace pplab::cli
