// The GPU convolution ladder, registered in order; the lab and the tests walk it as registered.
#include "convolution/cuda/conv_cuda.cuh"

namespace pplab::detail {
namespace gpu_conv {
#ifdef PPLAB_HAVE_NPP
bool c00_can_run(const convolution_problem&);
std::size_t c00_scratch(const convolution_problem&);
void c00_run(const convolution_call&);
bool c00_u8_can_run(const convolution_problem&);
#endif
bool c01_can_run(const convolution_problem&);
std::size_t c01_scratch(const convolution_problem&);
void c01_run(const convolution_call&);
bool c02_can_run(const convolution_problem&);
void c02_run(const convolution_call&);
bool c03_can_run(const convolution_problem&);
void c03_run(const convolution_call&);
bool c04_can_run(const convolution_problem&);
void c04_run(const convolution_call&);
bool c05_can_run(const convolution_problem&);
void c05_run(const convolution_call&);
bool c06_can_run(const convolution_problem&);
void c06_run(const convolution_call&);
std::size_t c06_tile_cols(const convolution_problem&);
bool c07_can_run(const convolution_problem&);
void c07_run(const convolution_call&);
bool c08_can_run(const convolution_problem&);
void c08_run(const convolution_call&);
bool c09_can_run(const convolution_problem&);
std::size_t c09_scratch(const convolution_problem&);
void c09_run(const convolution_call&);
bool c10_can_run(const convolution_problem&);
std::size_t c10_scratch(const convolution_problem&);
void c10_run(const convolution_call&);
bool c11_can_run(const convolution_problem&);
std::size_t c11_scratch(const convolution_problem&);
void c11_run(const convolution_call&);
bool c12_can_run(const convolution_problem&);
std::size_t c12_scratch(const convolution_problem&);
void c12_run(const convolution_call&);
}  // namespace gpu_conv

void register_convolution_cuda(std::vector<convolution_rung>& r) {
  using namespace gpu_conv;
#ifdef PPLAB_HAVE_NPP
  r.push_back({{"convolution/cuda/c00_npp", backend::cuda, 0,
                "NPP's FilterBorder on f32 images (nearest mode): the vendor baseline"},
               c00_can_run,
               c00_scratch,
               c00_run});
  r.push_back({{"convolution/cuda/c00_npp_u8", backend::cuda, 0,
                "NPP's FilterBorder32f on u8 images of 1, 3 or 4 channels to u8 (nearest mode): "
                "the vendor baseline, its outputs cut toward zero where pplab rounds",
                false, true, false, /*opt_in=*/false, /*tf32_split=*/false, /*truncates=*/true},
               c00_u8_can_run,
               c00_scratch,
               c00_run});
#endif
  r.push_back({{"convolution/cuda/c01_naive_global", backend::cuda, 1,
                "one thread per output, input and mask read from global memory"},
               c01_can_run,
               c01_scratch,
               c01_run});
  r.push_back({{"convolution/cuda/c02_constant_mask", backend::cuda, 2,
                "the mask in constant memory: one broadcast per tap"},
               c02_can_run,
               nullptr,
               c02_run});
  r.push_back({{"convolution/cuda/c03_input_tile", backend::cuda, 3,
                "block = input tile with halo in shared memory; the halo's threads idle"},
               c03_can_run,
               nullptr,
               c03_run,
               [](const convolution_problem& p) {
                 return tile_intensity(p, p.kw < 32 ? 33 - p.kw : 0, p.kh < 32 ? 33 - p.kh : 0);
               }});
  r.push_back({{"convolution/cuda/c04_output_tile", backend::cuda, 4,
                "block = output tile; the halo loaded by a loop, every thread computes four"},
               c04_can_run,
               nullptr,
               c04_run,
               [](const convolution_problem& p) { return tile_intensity(p, 32, 32); }});
  r.push_back({{"convolution/cuda/c05_halo_from_cache", backend::cuda, 5,
                "only the tile's interior in shared memory; the halo read through the caches"},
               c05_can_run,
               nullptr,
               c05_run,
               [](const convolution_problem& p) { return tile_intensity(p, 32, 32); }});
  r.push_back(
      {{"convolution/cuda/c06_register_strip", backend::cuda, 6,
        "each thread a strip of 8 outputs (two columns of 8 at f32 5 x 5 and 7 x 7), each "
        "input row's taps loaded once into registers"},
       c06_can_run,
       nullptr,
       c06_run,
       [](const convolution_problem& p) { return tile_intensity(p, c06_tile_cols(p), 64); }});
  r.push_back({{"convolution/cuda/c07_separable", backend::cuda, 7,
                "an outer-product mask as two 1-D passes fused in one kernel, through shared "
                "memory"},
               c07_can_run,
               nullptr,
               c07_run,
               [](const convolution_problem& p) { return tile_intensity(p, 32, 64); }});
  r.push_back({{"convolution/cuda/c08_u8_channels", backend::cuda, 8,
                "a u8 image's channels: c06's strips over all channels, the bytes kept "
                "interleaved in shared memory as f32"},
               c08_can_run,
               nullptr,
               c08_run,
               [](const convolution_problem& p) { return tile_intensity(p, 32, 64); }});
  r.push_back({{"convolution/cuda/c09_split_tf32", backend::cuda, 9,
                "f32 on the TF32 tensor cores within fp32's error: each mask row a banded "
                "Toeplitz matrix, each product as three TF32 products (opt-in)",
                false, true, false, /*opt_in=*/true, /*tf32_split=*/true},
               c09_can_run,
               c09_scratch,
               c09_run,
               [](const convolution_problem& p) { return tile_intensity(p, 64, 128); }});
  r.push_back({{"convolution/cuda/c10_u8_planes", backend::cuda, 10,
                "a u8 image's channels split into f32 planes, each filtered by the f32 rung for "
                "its mask, joined back: every mask compiled"},
               c10_can_run,
               c10_scratch,
               c10_run});
  r.push_back({{"convolution/cuda/c11_split_tf32_whole_mask", backend::cuda, 11,
                "f32 on the TF32 tensor cores within fp32's error: each image row times the "
                "whole mask at once, the mask rows as the product's columns (opt-in)",
                false, true, false, /*opt_in=*/true, /*tf32_split=*/true},
               c11_can_run,
               c11_scratch,
               c11_run});
  r.push_back({{"convolution/cuda/c12_split_tf32_wgmma", backend::cuda, 12,
                "f32 on the TF32 tensor cores within fp32's error: c11's whole-mask products as "
                "warpgroup products (wgmma, sm_90a), two sets of sums in turn (opt-in)",
                false, true, false, /*opt_in=*/true, /*tf32_split=*/true},
               c12_can_run,
               c12_scratch,
               c12_run});
}

}  // namespace pplab::detail
