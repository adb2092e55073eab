#pragma once
// The copy engine (the Tensor Memory Accelerator, sm_90 on): what the rungs that copy tiles with
// cp.async.bulk.tensor share on the host, the encoding of a 2-D tensor map. The driver's encoder
// is found through the runtime's entry points, as libpplab does not link libcuda.
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace pplab::detail {

// The driver's cuTensorMapEncodeTiled, or null where the driver has none.
inline PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder() {
  static const PFN_cuTensorMapEncodeTiled_v12000 encode = [] {
    PFN_cuTensorMapEncodeTiled_v12000 f = nullptr;
    cudaDriverEntryPointQueryResult q;
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", reinterpret_cast<void**>(&f),
                                         12000, cudaEnableDefault, &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess) {
      (void)cudaGetLastError();
      return PFN_cuTensorMapEncodeTiled_v12000(nullptr);
    }
    return f;
  }();
  return encode;
}

// A row-major rows x cols matrix of `elem`-byte values whose rows start `pitch` bytes apart, read
// in boxes of box_rows x box_cols: the map the copy engine takes. Outside the matrix the engine
// fills zeros. False where the engine cannot take it: no encoder, the start or the pitch not a
// multiple of 16 bytes, a box the engine does not take.
inline bool encode_matrix_map(CUtensorMap* map, CUtensorMapDataType type, std::size_t elem,
                              const void* start, std::size_t rows, std::size_t cols,
                              std::size_t pitch, unsigned box_rows, unsigned box_cols,
                              CUtensorMapSwizzle swizzle) {
  const auto encode = tensor_map_encoder();
  if (!encode || reinterpret_cast<std::uintptr_t>(start) % 16 != 0 || pitch % 16 != 0 ||
      pitch >= (std::uint64_t(1) << 40) || box_cols * elem % 16 != 0 || rows == 0 || cols == 0)
    return false;
  const cuuint64_t size[2] = {cuuint64_t(cols), cuuint64_t(rows)};
  const cuuint64_t stride[1] = {cuuint64_t(pitch)};
  const cuuint32_t box[2] = {box_cols, box_rows}, step[2] = {1, 1};
  return encode(map, type, 2, const_cast<void*>(start), size, stride, box, step,
                CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

// A stack of `count` such matrices, each `stride` bytes after the one before (count 1: one
// matrix, the stride unused), read in boxes of box_rows x box_cols of one matrix: a 3-D map whose
// third coordinate is the matrix. Outside each matrix the engine fills zeros, so a box at a
// matrix's edge never reads the next one. False as encode_matrix_map, and where the stride is
// not a multiple of 16 bytes.
inline bool encode_stack_map(CUtensorMap* map, CUtensorMapDataType type, std::size_t elem,
                             const void* start, std::size_t count, std::size_t rows,
                             std::size_t cols, std::size_t pitch, std::size_t stride,
                             unsigned box_rows, unsigned box_cols, CUtensorMapSwizzle swizzle) {
  const auto encode = tensor_map_encoder();
  if (count < 2) stride = pitch * rows;  // any multiple of 16 bytes the engine takes
  if (!encode || reinterpret_cast<std::uintptr_t>(start) % 16 != 0 || pitch % 16 != 0 ||
      stride % 16 != 0 || pitch >= (std::uint64_t(1) << 40) || stride >= (std::uint64_t(1) << 40) ||
      box_cols * elem % 16 != 0 || rows == 0 || cols == 0 || count == 0)
    return false;
  const cuuint64_t size[3] = {cuuint64_t(cols), cuuint64_t(rows), cuuint64_t(count)};
  const cuuint64_t strides[2] = {cuuint64_t(pitch), cuuint64_t(stride)};
  const cuuint32_t box[3] = {box_cols, box_rows, 1}, step[3] = {1, 1, 1};
  return encode(map, type, 3, const_cast<void*>(start), size, strides, box, step,
                CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

}  // namespace pplab::detail
