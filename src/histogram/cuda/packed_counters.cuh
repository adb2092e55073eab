#pragma once
// Two 16-bit counters to a 32-bit word of shared memory: twice the bins a block can count with
// local atomics (h07, and histogram2d's points counted where their bins are found,
// points_2d.cu).
// A counter is a half word counted to 2^15: the add that takes it from 0x7fff to 0x8000 (seen
// by exactly one thread, in the old value atomicAdd returns) takes 0x8000 back off and adds it
// to the global 64-bit count. The sixteenth bit is the guard: the adds other threads make
// before that subtraction lands (at most 16 per thread of 1024 in flight, 2^14) keep the half
// under 2^16, so it never carries into its neighbour. The end flush adds both halves of every
// word into the global counts.
#include "histogram/cuda/histogram_cuda.cuh"

namespace pplab::detail::histogram_cuda {

// The shared bytes of nslots packed counters.
__host__ __device__ inline std::size_t packed_counter_bytes(std::size_t nslots) {
  return (nslots + 1) / 2 * 4;
}

// The block's threads zero the counters (the caller syncs before counting).
__device__ inline void packed_zeroed(unsigned* words, unsigned nslots) {
  for (unsigned w = threadIdx.x; w < (nslots + 1) / 2; w += blockDim.x) words[w] = 0;
}

// Counts one in slot s.
__device__ inline void packed_add_one(unsigned* words, unsigned s, count_t* counts) {
  const unsigned shift = (s & 1) * 16;
  const unsigned old = atomicAdd(&words[s >> 1], 1u << shift);
  if (((old >> shift) & 0xffffu) == 0x7fffu) {  // this add made it 2^15: move 2^15 out
    atomicSub(&words[s >> 1], 0x8000u << shift);
    atomicAdd(&counts[s], count_t(0x8000));
  }
}

// The block's threads add every counter into the global counts (after a sync).
__device__ inline void packed_flushed(const unsigned* words, unsigned nslots, count_t* counts) {
  for (unsigned w = threadIdx.x; w < (nslots + 1) / 2; w += blockDim.x) {
    const unsigned v = words[w];
    if (v & 0xffffu) atomicAdd(&counts[2 * w], count_t(v & 0xffffu));
    if (v >> 16) atomicAdd(&counts[2 * w + 1], count_t(v >> 16));
  }
}

}  // namespace pplab::detail::histogram_cuda
