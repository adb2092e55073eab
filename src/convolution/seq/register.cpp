// The seq backend's convolution ladder.
#include "convolution/rung.hpp"

namespace pplab::detail {

void convolution_seq_c01(const convolution_call& c);
void convolution_seq_c02(const convolution_call& c);

void register_convolution_seq(std::vector<convolution_rung>& r) {
  r.push_back({{"convolution/seq/c01_direct_loop", backend::seq, 1,
                "every tap through the boundary mode, added in double: the reference"},
               [](const convolution_problem& p) { return float_or_double(p) || u8_image(p); },
               nullptr,
               convolution_seq_c01});
  r.push_back({{"convolution/seq/c02_interior_apart", backend::seq, 2,
                "the boundary applied to rows once per output row and to columns only at the "
                "borders; the interior read straight"},
               float_or_double,
               nullptr,
               convolution_seq_c02});
}

}  // namespace pplab::detail
