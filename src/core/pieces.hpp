#pragma once
// Long host work in pieces (pplab/interrupt.hpp): between two pieces a stop asked from outside is
// taken. A host matmul runs in bands of K, a host filter in bands of rows, each of about this
// many multiply-adds.

namespace pplab::detail {

// 2^33 multiply-adds (a second or so on most machines: the cost of a check is nothing beside
// it); tests set it small, to run the pieces on small problems.
double& piece_work();

}  // namespace pplab::detail
