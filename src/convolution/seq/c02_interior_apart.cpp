// convolution/seq/c02_interior_apart: border handling outside the interior loop. The boundary
// is applied to the rows once per output row (kh row pointers, a row of the constant value for
// rows off the image) and to columns only at the kw/2 pixels of each side; the interior's taps
// are read straight from the rows, with no branch and no modulo, and added in the image's type
// (host_kernel.hpp: interior_plain).
// Measured (2-core AMD EPYC, bench/results/cpu-2core-2026-11-28-convolution-62d57fd.json): f32
// 8192x8192 mask 7x7 nearest in 1927.3 ms, 2.44x c01; one chain of dependent adds limits it.
#include "convolution/host_kernel.hpp"

namespace pplab::detail::convolution_seq {
namespace {

struct interior_apart {
  template <class T> static void run(const filter<T>& f) {
    const std::vector<T> constant = constant_row(f);
    const border_columns border(f);
    std::vector<const T*> rows(f.kh);
    for (std::size_t y = 0; y < f.rows; ++y) {
      tap_rows_or_constant(f, y, constant.data(), rows.data());
      T* out = f.out + y * f.ld_out;
      border_pixels(f, border, rows.data(), out);
      interior_plain(f, rows.data(), out);
    }
  }
};

void run(const convolution_call& c) { dispatch_convolution<interior_apart>(c); }

}  // namespace

extern const convolution_rung c02_interior_apart{
    .info = {.step = 2,
             .summary = "the boundary applied to rows once per output row and to columns only at "
                        "the borders; the interior read straight"},
    .can_run = float_image,
    .run = run,
};

}  // namespace pplab::detail::convolution_seq
