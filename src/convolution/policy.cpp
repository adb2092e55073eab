// The convolution rung the API runs, per backend and problem. Every choice is made here
// (docs/architecture.md). Host: the register-blocked interior, on one core or all; a separable
// mask of 5 x 5 or more in two passes (cpu c03: 3.77x c02 at 1024 x 1024 with 7 x 7 on the 2-core
// machine, bench/results/cpu-2core-2026-11-25-convolution-quick.json; at 3 x 3 on 4096 x 4096
// the two took the same time, 40 ms a call). GPU: c06's register strips for square masks of 3 to
// 15, c04's output tiles for the rest (H200, 8192 x 8192 f32: c06 3.3x to 7.8x c04,
// bench/results/h200-2026-11-28-cuda-be494fa.json), and f32 squares to 31 since c06 compiles
// them (H200: 2.7x to 5.3x c04, ...-convolution-c06-to-31.txt); a separable mask of 5 x 5 or more
// in c07's fused passes (1.14x c06 at 7 x 7, 4.45x at 15 x 15, the same H200 run),
// square separable masks to 31 x 31 included, other separable masks (to 63 x 63) in c15; a mask of
// one row or column (a 1-D pass) in c14.
#include "convolution/rung.hpp"
#include "core/run.hpp"

namespace pplab::detail {

std::vector<std::string_view> policy(backend b, const convolution_problem& p) {
  switch (b) {
  case backend::seq:
    if (u8_image(p)) return {"convolution/seq/c01_direct_loop"};
    return {"convolution/seq/c02_interior_apart"};
  case backend::cpu:
    if (u8_image(p)) return {"convolution/cpu/c04_u8_channels"};
    if (p.separable && p.kh >= 5 && p.kw >= 5)
      return {"convolution/cpu/c03_separable", "convolution/cpu/c02_register_blocked"};
    return {"convolution/cpu/c02_register_blocked", "convolution/cpu/c01_rows_openmp"};
  case backend::cuda:
    // u8 images: c08 filters the interleaved tile, compiled for square masks of 3, 5 and 7; c10's
    // planes where c06 or c07 filter them compiled (square 9 to 15). H200, RGB 4096 x 4096 to u8
    // (bench/results/h200-2026-11-27-convolution-c10-u8-planes.txt): 5 x 5 c08 0.104 ms, c10
    // 0.336; 9 x 9 c08 1.63-1.78 ms, c10 0.42-0.48; 2048 x 2048 15 x 15 separable c08 0.984,
    // c10 0.110. Elsewhere c10's planes run c04, no faster than c08 (3 x 7 0.92 against 0.70 ms,
    // 17 x 17 and 31 x 31 within 4% then). Squares past 15 have c06 or c07 for their planes since
    // they compile masks to 31: 17 x 17 c10 1.20 ms against c08's 4.84, 31 x 31 3.70 against 14.69
    // (...-convolution-c06-to-31.txt); separable 17 x 17 0.459 against 4.824
    // (...-convolution-c07-to-31.txt).
    if (u8_image(p)) {
      if (p.kh == p.kw && p.kh >= 9)
        return {"convolution/cuda/c10_u8_planes", "convolution/cuda/c08_u8_channels"};
      return {"convolution/cuda/c08_u8_channels", "convolution/cuda/c10_u8_planes"};
    }
    // A mask of one row or one column: the 1-D pass, its next tiles' copies in flight (c14).
    if (p.kh == 1 || p.kw == 1)
      return {"convolution/cuda/c14_line_pass_pipelined", "convolution/cuda/c13_line_pass",
              "convolution/cuda/c06_register_strip", "convolution/cuda/c04_output_tile"};
    // A stack of images (a 3-D filter's last two axes) whose mask is a square outer product:
    // c07 takes the stack in one launch; c06, picked for one image at 3 x 3, would take a launch
    // per plane.
    if (p.planes > 1 && p.separable && p.kh == p.kw && p.kh >= 3)
      return {"convolution/cuda/c07_separable", "convolution/cuda/c15_separable_lines",
              "convolution/cuda/c06_register_strip", "convolution/cuda/c04_output_tile"};
    // Separable: c07's compiled squares; other sides (to 63, as a Gaussian of sigma 4 or more
    // asks) in c15, whose taps are a run-time count.
    if (p.separable && p.kh >= 5 && p.kw >= 5)
      return {"convolution/cuda/c07_separable", "convolution/cuda/c15_separable_lines",
              "convolution/cuda/c06_register_strip", "convolution/cuda/c04_output_tile"};
    return {"convolution/cuda/c06_register_strip", "convolution/cuda/c04_output_tile",
            "convolution/cuda/c02_constant_mask"};
  case backend::mpi:
    return {"convolution/mpi/c01_row_slabs"};
  case backend::nccl:
    return {"convolution/nccl/c01_row_slabs"};
  }
  unknown_backend(b);
}

// The rungs of the variant "split_tf32" (f32 on the TF32 tensor cores within fp32's error), in
// order, each taken where it can run. c12 and c11 multiply each image row by the whole mask, at
// a cost that does not depend on the mask (c12 to 15 x 16 on sm_90a, c11 to 16 x 16); c09's bands
// cost about kh x KS (KS = (kw + 14) / 8 bands). H200, 8192 x 8192 f32, one lab run
// (bench/results/h200-2026-11-28-convolution-c12-bands-26cfcb6.*): c12 0.529-0.531 ms and c11
// 0.575-0.578 at every mask; c09 0.328 at 3 x 3 (kh KS = 3), 0.373 at 5 x 5 (10), 0.419 at 7 x 7
// (14), 0.695 at 11 x 11 (33), 0.860 at 15 x 15 (45), about 0.42 + 0.0145 per unit past 14, which
// reaches c12 at 22 and c11 at 25. So the whole-mask rungs first from kh KS = 24 on, c09 below and
// past 16 x 16.
std::vector<std::string_view> split_tf32_policy(backend b, const convolution_problem& p) {
  if (b != backend::cuda) return {};
  constexpr std::string_view c09 = "convolution/cuda/c09_split_tf32",
                             c11 = "convolution/cuda/c11_split_tf32_whole_mask",
                             c12 = "convolution/cuda/c12_split_tf32_wgmma";
  if (p.kh <= 16 && p.kw <= 16 && p.kh * ((p.kw + 14) / 8) >= 24) return {c12, c11, c09};
  return {c09, c12, c11};
}

std::string tune_key(const convolution_problem& p) {
  // Appended piece by piece: GCC 12 warns (-Wrestrict, falsely) on a chain of + here.
  std::string key(name_of(p.type));
  key.append(" ").append(std::to_string(p.kh)).append("x").append(std::to_string(p.kw));
  if (p.separable) key.append(" separable");
  if (p.type == dtype::u8)
    key.append(" ").append(std::to_string(p.channels)).append(p.u8_out ? "ch to u8" : "ch to f32");
  return key.append(" px~").append(size_class(p.rows * p.cols));
}

}  // namespace pplab::detail
