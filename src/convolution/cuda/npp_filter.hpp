#pragma once
// NPP's FilterBorder for the two vendor rungs (c00_npp, c00_npp_u8; npp_filter.cu).
#include <cstddef>

#include "convolution/rung.hpp"

namespace pplab::detail::convolution_cuda {

// What both of NPP's filters ask of an image: one (not a stack), nearest mode (their one border),
// not empty, and a row count and a row's bytes (`row_bytes`) that fit NPP's int sizes and steps.
bool npp_takes(const convolution_problem& p, std::size_t row_bytes);
// The scratch: the mask reversed, in f32.
std::size_t npp_mask_bytes(const convolution_problem& p);
// The call: nppiFilterBorder_32f_C1R for an f32 image, nppiFilterBorder32f_8u_C1R/C3R/C4R for a
// u8 image to u8; NPP_BORDER_REPLICATE (SciPy's nearest).
void npp_filter(const convolution_call& c);

}  // namespace pplab::detail::convolution_cuda
