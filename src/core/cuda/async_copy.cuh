#pragma once
// Copies from global to shared memory by cp.async (sm_80 on): the thread issues them and goes on,
// no register holds the data on the way, and wait_copies waits for the thread's own groups (a
// barrier then makes them visible to the block). The tiled matmul rungs stage their K steps with
// them, the convolution rungs the rows of the image ahead of the ones they filter.

namespace pplab::detail {

__device__ inline unsigned shared_address(const void* p) {
  return unsigned(__cvta_generic_to_shared(p));
}

// Copies `bytes` (4, 8 or 16) from global to shared memory, or zeros them when `in` is false.
template <int bytes> __device__ inline void copy_async(void* dst, const void* src, bool in) {
  if constexpr (bytes == 16)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(shared_address(dst)),
                 "l"(src), "r"(in ? 16 : 0));
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(shared_address(dst)),
                 "l"(src), "n"(bytes), "r"(in ? bytes : 0));
}
// The same for a source always inside the array: no source size, so no zero-fill operand, and
// the line's other sectors fetched into L2 with it (the next tiles read them).
template <int bytes> __device__ inline void copy_async_inside(void* dst, const void* src) {
  if constexpr (bytes == 16)
    asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16;\n" ::"r"(shared_address(dst)),
                 "l"(src));
  else
    asm volatile("cp.async.ca.shared.global.L2::128B [%0], [%1], %2;\n" ::"r"(shared_address(dst)),
                 "l"(src), "n"(bytes));
}
__device__ inline void commit_copies() { asm volatile("cp.async.commit_group;\n" ::); }
template <int pending> __device__ inline void wait_copies() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(pending));
}

}  // namespace pplab::detail
