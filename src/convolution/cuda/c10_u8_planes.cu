// convolution/cuda/c10_u8_planes: a u8 image's channels through the f32 ladder, for the masks c08
// takes only at run time (other than 3 x 3, 5 x 5 and 7 x 7): the interleaved bytes are split into
// one f32 plane per channel, each plane is filtered by the rung the API runs for an f32 image with
// that mask (c07's fused passes for a separable mask such as a Gaussian, c06's register strips for
// square masks, both to 31 x 31; c04 for the rest), and the planes are joined back into the
// interleaved output, rounded and saturated to u8 or as f32. c08 filters the interleaved tile
// itself, but its loops over a mask known only at run time neither unroll nor keep the taps as
// operands: about ten times its compile-time cost per tap (docs/convolution.md). Here the split and
// the join each pass over the image once (a byte and a float of each channel's plane, each way),
// and every mask runs compiled. The planes, two f32 copies of the image, are the rung's scratch.
// Measured (H200, bench/results/h200-2026-11-28-cuda-be494fa.json): an RGB u8 2048 x 2048 image
// with a 15 x 15 separable mask to u8 in 0.112 ms, 4.61x NPP's u8 filter (c08 0.982 ms); RGB 4096 x
// 4096 with 5 x 5 0.336 ms, where c08 takes 0.104: the split and the join cost more than c08's
// compiled masks save.
#include "convolution/cuda/conv_cuda.cuh"
#include "convolution/cuda/u8_values.cuh"
#include "core/run.hpp"

namespace pplab::detail::convolution_cuda {
namespace {

constexpr int threads = 256;

// The grid over the image's pixels: blocks of `threads` pixels across, a row of blocks for each
// of up to 65535 rows at a time (larger images step down by the grid).
dim3 pixel_grid(std::size_t rows, std::size_t cols) {
  return dim3(unsigned((cols + threads - 1) / threads),
              unsigned(std::min<std::size_t>(rows, 65535)));
}

// The CH interleaved channels of each pixel (rows ld bytes apart) into CH planes of f32, each
// rows x cols, packed.
template <int CH>
__global__ void __launch_bounds__(threads)
    split(const std::uint8_t* in, std::size_t ld, int rows, int cols, float* planes) {
  const std::size_t plane = std::size_t(rows) * std::size_t(cols);
  const int x = int(blockIdx.x) * threads + int(threadIdx.x);
  if (x >= cols) return;
  for (int y = int(blockIdx.y); y < rows; y += int(gridDim.y)) {
    const std::uint8_t* p = in + std::size_t(y) * ld + std::size_t(x) * CH;
    float* to = planes + std::size_t(y) * std::size_t(cols) + std::size_t(x);
#pragma unroll
    for (int c = 0; c < CH; ++c) to[c * plane] = to_f32(p[c]);
  }
}

// The planes back into the interleaved output (rows ld elements apart): u8 rounded and saturated,
// or f32.
template <int CH, class Out>
__global__ void __launch_bounds__(threads)
    join(const float* planes, int rows, int cols, Out* out, std::size_t ld) {
  const std::size_t plane = std::size_t(rows) * std::size_t(cols);
  const int x = int(blockIdx.x) * threads + int(threadIdx.x);
  if (x >= cols) return;
  for (int y = int(blockIdx.y); y < rows; y += int(gridDim.y)) {
    const float* from = planes + std::size_t(y) * std::size_t(cols) + std::size_t(x);
    Out* o = out + std::size_t(y) * ld + std::size_t(x) * CH;
#pragma unroll
    for (int c = 0; c < CH; ++c) {
      const float v = from[c * plane];
      if constexpr (sizeof(Out) == 1) o[c] = to_u8(v);
      else o[c] = v;
    }
  }
}

// One channel of p as an f32 image of its own: same shape, mask and mode.
convolution_problem plane_of(const convolution_problem& p) {
  return {dtype::f32, p.rows, p.cols, p.kh, p.kw, p.mode, p.cval, p.separable};
}
// The rung that filters each plane: the API's for that f32 problem.
const convolution_rung& plane_rung(const convolution_problem& p) {
  return default_rung<convolution_rung>(backend::cuda, plane_of(p));
}
// The scratch's parts, each 256-byte aligned: the planes in, the planes out, the plane rung's.
std::size_t planes_bytes(const convolution_problem& p) {
  return (p.channels * p.rows * p.cols * sizeof(float) + 255) / 256 * 256;
}

template <int CH>
void run_channels(const convolution_call& c, const convolution_rung& r, std::size_t bytes) {
  const convolution_problem& p = c.p;
  const auto s = static_cast<cudaStream_t>(c.stream);
  auto* const in = static_cast<float*>(c.scratch);
  auto* const out = reinterpret_cast<float*>(static_cast<char*>(c.scratch) + bytes);
  void* const scratch = static_cast<char*>(c.scratch) + 2 * bytes;
  const int rows = int(p.rows), cols = int(p.cols);
  const dim3 grid = pixel_grid(p.rows, p.cols);
  split<CH>
      <<<grid, threads, 0, s>>>(static_cast<const std::uint8_t*>(c.in), c.ld_in, rows, cols, in);
  PPLAB_CUDA_LAUNCHED();
  const std::size_t plane = p.rows * p.cols;
  for (int ch = 0; ch < CH; ++ch)
    r.run({plane_of(p), in + ch * plane, p.cols, c.mask, out + ch * plane, p.cols,
           r.scratch_bytes ? scratch : nullptr, c.stream});
  if (p.u8_out)
    join<CH><<<grid, threads, 0, s>>>(out, rows, cols, static_cast<std::uint8_t*>(c.out), c.ld_out);
  else join<CH><<<grid, threads, 0, s>>>(out, rows, cols, static_cast<float*>(c.out), c.ld_out);
  PPLAB_CUDA_LAUNCHED();
}

// u8 images whose sides fit an int, with a plane rung for their mask (every mask has one: c04).
bool can_run(const convolution_problem& p) {
  if (!u8_image(p) || p.rows >= (std::size_t(1) << 31) || p.cols >= (std::size_t(1) << 31))
    return false;
  for (std::string_view id : policy(backend::cuda, plane_of(p)))
    if (const convolution_rung* r = find<convolution_rung>(id); r && r->can_run(plane_of(p)))
      return true;
  return false;
}
std::size_t scratch(const convolution_problem& p) {
  const convolution_rung& r = plane_rung(p);
  return 2 * planes_bytes(p) + (r.scratch_bytes ? r.scratch(plane_of(p)) : 0);
}
void run(const convolution_call& c) {
  if (c.p.rows == 0 || c.p.cols == 0) return;
  const convolution_rung& r = plane_rung(c.p);
  const std::size_t bytes = planes_bytes(c.p);
  switch (c.p.channels) {
  case 1:
    return run_channels<1>(c, r, bytes);
  case 3:
    return run_channels<3>(c, r, bytes);
  default:
    return run_channels<4>(c, r, bytes);
  }
}

}  // namespace

extern const convolution_rung c10_u8_planes{
    .info = {.step = 10,
             .summary = "a u8 image's channels split into f32 planes, each filtered by the f32 "
                        "rung for its mask, joined back: every mask compiled"},
    .can_run = can_run,
    .scratch_bytes = scratch,
    .run = run,
};

}  // namespace pplab::detail::convolution_cuda
