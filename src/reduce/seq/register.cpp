#include "reduce/reduce_common.hpp"

namespace pplab::detail {

void reduce_seq_r01(const reduce_call&);

void register_reduce_seq(std::vector<reduce_rung>& r) {
  r.push_back({{"reduce/seq/r01_sequential_loop", backend::seq, 1,
                "one accumulator, one element after another: the reference"},
               any_problem,
               nullptr,
               reduce_seq_r01});
}

}  // namespace pplab::detail
