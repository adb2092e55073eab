#pragma once
// Long host work in pieces (pplab/interrupt.hpp): between two pieces a stop asked from outside is
// taken. A host matmul runs in bands of K and a host filter in bands of rows, each of about
// piece_work() multiply-adds; a host histogram or reduction in parts of piece_elements() values.
#include <cstddef>

namespace pplab::detail {

// 2^33 multiply-adds (a second or so on most machines: the cost of a check is nothing beside
// it); tests set it small, to run the pieces on small problems.
double& piece_work();
// 2^28 values (1 GiB of float32: a second or less on one core); tests set it small.
std::size_t& piece_elements();

}  // namespace pplab::detail
