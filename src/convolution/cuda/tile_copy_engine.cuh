#pragma once
// The input tile with its halo copied into shared memory by the copy engine (the Tensor Memory
// Accelerator, cp.async.bulk.tensor, sm_90 on): one thread asks for the whole h x w tile and every
// thread waits on a shared-memory barrier until its bytes have landed. No thread issues a load, a
// store or an address step for it: the instructions that tile_staging.cuh's stage_tile spends on
// the tile go (by the SASS of c06 at 5 x 5, about a fifth of a thread's). But a block then waits
// for its whole tile before its first multiply-add, where the threads' own loads return warp by
// warp: the engine measured faster for large tiles and slower for the smallest, so each rung says
// where it uses it (`by_engine`). The copy needs the image's rows a multiple of 16 bytes apart and
// its start 16-byte aligned; a tile that reaches past the image's edge is staged by stage_tile as
// before, since the engine fills outside the image with zeros and the boundary modes want other
// values.
#include <cstdint>
#include <cuda/ptx>

#include "convolution/cuda/tile_staging.cuh"
#include "core/cuda/copy_engine.cuh"
#include "core/cuda/launch.cuh"

namespace pplab::detail::convolution_cuda {

// What the copy engine needs to find a tile: the image's shape and address, and the tile's (the
// box). Passed to the kernel by value as a __grid_constant__ parameter; `usable` is false where
// the engine cannot be used for this image or GPU, and then the map is not read.
struct tile_map {
  CUtensorMap map;
  bool usable;
};

// The map of f's input for h x w tiles, if the kernel built for this GPU has the copy engine
// (sm_90 or later) and the image's layout allows it. A stack of `planes` images whose planes lie
// one after another (plane_in = rows x ld_in) is mapped as one matrix of planes x rows rows, so
// that plane z's tile at row y is the map's row z x rows + y (stage_tile_whole's map_y); a
// stack laid out otherwise is staged by the threads.
template <class T, int h, int w, class Kernel>
tile_map encode_tile_map(const image<T>& f, Kernel kernel, std::size_t planes = 1,
                         std::size_t plane_in = 0) {
  static_assert(h <= 256 && w <= 256 && w * sizeof(T) % 16 == 0, "a box the copy engine takes");
  static const bool engine = kernel_built_for(kernel, 90);
  tile_map t{};
  const std::size_t rows = std::size_t(f.rows) * planes;
  if (!engine || f.rows < h || f.cols < w) return t;
  if (planes > 1 && (plane_in != std::size_t(f.rows) * f.ld_in || rows >= (std::size_t(1) << 31)))
    return t;
  t.usable = encode_matrix_map(
      &t.map, sizeof(T) == 4 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32 : CU_TENSOR_MAP_DATA_TYPE_FLOAT64,
      sizeof(T), f.in, rows, f.cols, f.ld_in * sizeof(T), h, w, CU_TENSOR_MAP_SWIZZLE_NONE);
  return t;
}

// The kernel's tile_map argument: encoded where the rung copies its tiles by the engine
// (`engine`), else unusable and never read.
template <class T, int h, int w, bool engine, class Kernel>
tile_map tile_map_for(const image<T>& f, Kernel kernel, std::size_t planes = 1,
                      std::size_t plane_in = 0) {
  if constexpr (engine) return encode_tile_map<T, h, w>(f, kernel, planes, plane_in);
  else return tile_map{};
}

// The h x w tile at (y, x) into `in` (128-byte aligned), whole and visible to every thread of the
// block on return: with `engine`, by the copy engine where the map is usable and the tile lies
// inside the image (at the map's row y + map_y: a stack's plane's first row); else by stage_tile and a barrier, with `halves` in two halves of the rows (each
// half's loads in flight before its stores, so that a wide tile's staging holds fewer registers).
// The branch is uniform across the block.
template <class T, int h, int w, int threads, bool engine, bool halves = false>
__device__ __forceinline__ void stage_tile_whole(const image<T>& f, const tile_map& tiles, T* in,
                                                 int y, int x, int tid, int map_y = 0) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if (engine && tiles.usable && y >= 0 && y + h <= f.rows && x >= 0 && x + w <= f.cols) {
    __shared__ std::uint64_t landed;  // the barrier the copy completes
    if (tid == 0) {
      cuda::ptx::mbarrier_init(&landed, 1);
      cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
    }
    __syncthreads();  // the barrier is set up before anyone waits on it
    if (tid == 0) {
      cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta,
                                           cuda::ptx::space_shared, &landed,
                                           std::uint32_t(h * w * sizeof(T)));
      const std::int32_t at[2] = {x, y + map_y};
      cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, in,
                                      &tiles.map, at, &landed);
    }
    while (!cuda::ptx::mbarrier_try_wait_parity(&landed, 0)) {
    }
    return;
  }
#endif
  if constexpr (halves) {
    constexpr int top = h / 2;
    stage_tile<T, top, w, threads>(f, in, y, x, tid);
    stage_tile<T, h - top, w, threads>(f, in + top * w, y + top, x, tid);
  } else {
    stage_tile<T, h, w, threads>(f, in, y, x, tid);
  }
  __syncthreads();  // the tile and its halo are whole
}

}  // namespace pplab::detail::convolution_cuda
