#pragma once
// The rows of the image each block of the whole-mask rungs (c11, c12) takes: plain host code, so
// that the tests can hold the bands to covering every row once.

namespace pplab::detail::convolution_cuda::whole_mask {

constexpr int slots = 16;          // the mask rows an image row reaches at once
constexpr int chunk_rows = slots;  // image rows staged at a time: one turn of the slots

// The rows of outputs a block takes when the grid is one wave: of the multiples of 16, the one
// whose grid runs in the fewest chunks per SM's turn, counting the kh - 1 rows each block reads
// past its outputs and the waves of blocks the GPU holds (`resident` at once).
inline int rows_per_block(int rows, int cols, int kh, unsigned resident, int block_cols) {
  const long col_blocks = (cols + block_cols - 1) / block_cols;
  int best = chunk_rows;
  long best_cost = -1;
  for (int r = chunk_rows; r < rows + chunk_rows; r += chunk_rows) {
    const long row_blocks = (rows + r - 1) / r;
    if (row_blocks > 65535) continue;
    const long waves = (row_blocks * col_blocks + resident - 1) / resident;
    const long cost = waves * ((r + kh - 1 + chunk_rows - 1) / chunk_rows);
    if (best_cost < 0 || cost < best_cost) best = r, best_cost = cost;
  }
  return best;
}

// The bands of output rows the blocks take, blockIdx.y the band: `tall` rows each above row
// `split`, `low` rows each from it down. The GPU starts blocks in the order of their index, so the
// tall bands run first and the short ones fill the SMs as they come free at the end.
struct bands {
  int tall, low, split;  // split: a multiple of tall
  constexpr int first_row(int band) const {
    const int n = split / tall;
    return band < n ? band * tall : split + (band - n) * low;
  }
  constexpr int height(int band) const { return band < split / tall ? tall : low; }
  constexpr int count(int rows) const { return split / tall + (rows - split + low - 1) / low; }
};

// The bands of a call: tall bands of 384 rows, and the last rows in bands of 128, about two
// waves of them. As one wave of long blocks (rows_per_block alone) the SMs did not finish
// together: at 15 x 15 on an H200 c12's SMs were busy 75% of the kernel's time on average and
// c11's 79%. Measured by Nsight Compute, one 8192^2 launch each
// (bench/results/h200-2026-11-28-convolution-whole-mask-bands.txt): one wave 0.660 / 0.670 ms
// (c12 / c11); bands of 256 rows 0.556 / 0.598; 512 and 128 0.537 / 0.573; 384 and 128 0.531 /
// 0.579; 1024 and 128 0.603 / 0.641. An image too small for that keeps one wave of blocks as
// short as rows_per_block makes them.
inline bands plan_bands(int rows, int cols, int kh, unsigned resident, int block_cols) {
  constexpr int tall = 384, low = 128, waves = 2;
  const int one_wave = rows_per_block(rows, cols, kh, resident, block_cols);
  if (one_wave <= low) return {one_wave, one_wave, 0};
  const long col_blocks = (cols + block_cols - 1) / block_cols;
  const long low_rows = (waves * long(resident) + col_blocks - 1) / col_blocks * low;
  const bands b{tall, low, int(rows > low_rows ? (rows - low_rows) / tall * tall : 0)};
  return b.count(rows) <= 65535 ? b : bands{one_wave, one_wave, 0};
}

}  // namespace pplab::detail::convolution_cuda::whole_mask
