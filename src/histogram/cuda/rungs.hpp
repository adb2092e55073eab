#pragma once
// The GPU histogram rungs' entry points (one .cu file each): what register.cu registers and what
// a rung that calls others (h12) calls.
#include "histogram/rung.hpp"

namespace pplab::detail::gpu_histogram {
std::size_t h00_scratch(const histogram_problem&);
bool h00_can_run(const histogram_problem&);
void h00_run(const histogram_call&);
void h01_run(const histogram_call&);
void h02_run(const histogram_call&);
void h03_run(const histogram_call&);
bool h04_can_run(const histogram_problem&);
void h04_run(const histogram_call&);
bool h05_can_run(const histogram_problem&);
void h05_run(const histogram_call&);
bool h06_can_run(const histogram_problem&);
void h06_run(const histogram_call&);
bool h07_can_run(const histogram_problem&);
void h07_run(const histogram_call&);
bool h08_can_run(const histogram_problem&);
void h08_run(const histogram_call&);
std::size_t h09_scratch(const histogram_problem&);
bool h09_can_run(const histogram_problem&);
void h09_run(const histogram_call&);
std::size_t h10_scratch(const histogram_problem&);
bool h10_can_run(const histogram_problem&);
void h10_run(const histogram_call&);
std::size_t h11_scratch(const histogram_problem&);
bool h11_can_run(const histogram_problem&);
void h11_run(const histogram_call&);
std::size_t h12_scratch(const histogram_problem&);
bool h12_can_run(const histogram_problem&);
void h12_run(const histogram_call&);
// h11 in two calls, for h12: the sample (on the call's stream; the counts untouched), whose last
// block writes 1 to the returned device word if its hot slots hold at least hot_enough of the
// samples, else 0 (hot_enough > 0; n > 0); then the counting.
const unsigned* h11_find_hot(const histogram_call&, double hot_enough);
void h11_count(const histogram_call&);
}  // namespace pplab::detail::gpu_histogram
