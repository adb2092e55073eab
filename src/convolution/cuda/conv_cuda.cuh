#pragma once
// What the GPU convolution rungs share: the call in its type, the boundary on the device (an
// index inside the image reads it, one outside goes through boundary_index), the mask in
// constant memory, and the grid over output tiles.
#include <cuda_runtime.h>

#include "convolution/boundary.hpp"
#include "convolution/rung.hpp"
#include "core/cuda/check.cuh"
#include "core/executor.hpp"

namespace pplab::detail::convolution_cuda {

template <class T> struct image {
  int rows, cols, kh, kw;
  boundary mode;
  T cval;
  const T* in;
  std::size_t ld_in;
  T* out;
  std::size_t ld_out;
};

// A stack of images (convolution_problem::planes): elements from one plane to the next. The
// rungs that take a stack run its planes along the grid's z.
struct planes {
  std::size_t in = 0, out = 0;
};
// Plane blockIdx.z's image and output.
template <class T> __device__ __forceinline__ void to_plane(image<T>& f, const planes& z) {
  f.in += std::size_t(blockIdx.z) * z.in, f.out += std::size_t(blockIdx.z) * z.out;
}

// Input element (y, x), any y and x: inside the image it is read, outside the mode says where
// from (or the constant). The branch is uniform across a warp except along a tile's edge.
template <class T> __device__ __forceinline__ T read(const image<T>& f, int y, int x) {
  if (y >= 0 && y < f.rows && x >= 0 && x < f.cols) return f.in[std::size_t(y) * f.ld_in + x];
  const std::int64_t r = boundary_index(y, f.rows, f.mode), c = boundary_index(x, f.cols, f.mode);
  return r < 0 || c < 0 ? f.cval : f.in[std::size_t(r) * f.ld_in + std::size_t(c)];
}

// A thread's place in a row-major tile `width` wide as it walks the tile `threads` places at a
// time: stepped by threads / width rows and threads % width columns with a carry, rather than
// divided out of each place's index (a division by a run-time width is dozens of instructions).
struct tile_walk {
  int row, col, width, down, across;
  __device__ __forceinline__ tile_walk(int index, int width, int threads)
      : row(index / width), col(index % width), width(width), down(threads / width),
        across(threads % width) {}
  __device__ __forceinline__ void step() {
    col += across, row += down;
    if (col >= width) col -= width, ++row;
  }
};

// Calls Impl::template run<T>(image<T>, mask, stream) with the call's type; the mask is the
// call's, in host memory, in T.
template <class T> image<T> image_of(const convolution_call& c) {
  return {int(c.p.rows),
          int(c.p.cols),
          int(c.p.kh),
          int(c.p.kw),
          c.p.mode,
          T(c.p.cval),
          static_cast<const T*>(c.in),
          c.ld_in,
          static_cast<T*>(c.out),
          c.ld_out};
}

template <class Impl> void dispatch(const convolution_call& c) {
  const auto s = static_cast<cudaStream_t>(c.stream);
  auto go = [&](auto tag) {
    using T = decltype(tag);
    const image<T> f = image_of<T>(c);
    if (f.rows == 0 || f.cols == 0) return;
    Impl::template run<T>(f, static_cast<const T*>(c.mask), c.scratch, s);
  };
  if (c.p.type == dtype::f32) go(float{});
  else go(double{});
}

// The rungs whose mask side K is a template parameter: calls go.template operator()<K>() with K the
// odd side from lo to hi that equals k (k odd), hi for any k past it.
template <int lo, int hi, class Go> void with_odd_side(int k, Go&& go) {
  if constexpr (lo >= hi) go.template operator()<hi>();
  else if (k <= lo) go.template operator()<lo>();
  else with_odd_side<lo + 2, hi>(k, go);
}

// Every GPU rung: f32 or f64, sides that fit an int and a grid of at most 65535 tile rows.
inline bool fits(const convolution_problem& p, std::size_t tile_rows = 8) {
  return float_or_double(p) && p.cols < (std::size_t(1) << 31) &&
         ceil_div(p.rows, tile_rows) < 65536;
}

inline dim3 tiles_over(int rows, int cols, int tile_rows, int tile_cols) {
  return dim3(unsigned((cols + tile_cols - 1) / tile_cols),
              unsigned((rows + tile_rows - 1) / tile_rows));
}

}  // namespace pplab::detail::convolution_cuda
