#pragma once
// Data that already lives in GPU memory, reduced where it is: no copy to or from the host
// except the answer. (Host arrays passed to the cuda backend are streamed to the GPU in
// chunks through pinned buffers, copies overlapped with compute, whatever their size.)
#include <cstddef>
#include <ranges>
#include <span>
#include <vector>

#include "convolution.hpp"
#include "device_span.hpp"
#include "histogram.hpp"
#include "matmul.hpp"
#include "reduce.hpp"

namespace pplab {

// The run-time entry point: device_data is device memory holding n elements of type t.
scalar reduce_device(dtype t, const void* device_data, std::size_t n, op o);

template <class T, op O> reduce_result_t<T, O> reduce(cuda_t, device_span<T> d, op_tag<O>) {
  return reduce_device(dtype_of<std::remove_cv_t<T>>(), d.data, d.size, O)
      .template as<reduce_result_t<std::remove_cv_t<T>, O>>();
}

// sum_exact and mean_exact (pplab/reduce.hpp) of device memory, on the GPU: the same bits as on
// the host backends.
double sum_exact_device(dtype t, const void* device_data, std::size_t n);
double mean_exact_device(dtype t, const void* device_data, std::size_t n);

// The types the answers along an axis are written in. wide: double for float data and for every
// mean, int64_t for signed integers and for argmin's and argmax's index, uint64_t for unsigned
// (reduce_rows's answers, pplab/reduce.hpp, typed). numpy: NumPy's (numpy.sum(x, axis=k)'s
// dtype): the data's own type for min and max and for every answer of float data but an index
// (a float32 sum is float, the double sum rounded once), otherwise as wide.
enum class answer_types { wide, numpy };

// Each of `rows` rows of device data (`cols` elements each, rows `ld` elements apart; 0: cols)
// reduced on its own on the GPU, row y's answer into device_out[y] in the type `answers` says.
// device_out is device memory of `rows` answers. The call returns when they are written;
// inside a stream_scope (below), once queued.
void reduce_rows_device(dtype t, const void* device_data, std::size_t rows, std::size_t cols,
                        std::size_t ld, op o, void* device_out,
                        answer_types answers = answer_types::wide);

// reduce_axis for an array in GPU memory (the cuda backend): out[o * cols + c] is the answer of
// column c of slab o, written to device memory in the type `answers` says (as
// reduce_rows_device's), on the cuda backend's stream. A block reads 32 neighbouring
// columns, a warp one row of them at a time (coalesced); where the columns alone would not fill
// the GPU, the rows are cut into chunks whose partials a second launch combines in order: the
// same bits on every run on one GPU. cols = 1 is reduce_rows_device's case.
void reduce_axis_device(dtype t, const void* device_data, std::size_t outer, std::size_t rows,
                        std::size_t cols, op o, void* device_out,
                        answer_types answers = answer_types::wide);

// The histogram of device data on its GPU; a range inferred from the data is found there too.
// Only the counts come back.
histogram_result histogram_device(dtype t, const void* device_data, std::size_t n,
                                  const histogram_options& options = {},
                                  const rung_choice& how = {});

// histogram2d of points on the GPU (x, y and the weights device memory): without weights, where
// both axes and a 16-bit counter per bin fit a block's shared memory (256 x 256 bins and more),
// each point counted in the kernel that finds its bin; else each point's bin written as a slot,
// then counted by the histogram's rungs there (`how` names one of those); the counts or sums come
// back.
histogram2d_result histogram2d_device(dtype t, const void* x, const void* y, std::size_t n,
                                      const histogram2d_options& options,
                                      const rung_choice& how = {});

// The same, its counts written into device memory the caller holds, where they stay: no copy
// crosses the bus. device_counts has `slots` = bins + 3 entries (the bins, then underflow,
// overflow and NaN), overwritten: counts, or with weights their sums (doubles' bits); the result
// has the range, the edges and the rung, and its `counts` or `sums` (and the outliers') left
// empty: they are in device_counts. An array of edges is copied to the GPU (host memory). The
// call returns when they are written; inside a stream_scope (below), once their work is queued on
// its stream.
histogram_result histogram_device_into(dtype t, const void* device_data, std::size_t n,
                                       std::uint64_t* device_counts, std::size_t slots,
                                       const histogram_options& options = {},
                                       const rung_choice& how = {});

// histogram2d_device into device memory the caller holds: device_counts has `slots` =
// x_bins x y_bins + 1 entries, overwritten: the bins (x's bin times y_bins plus y's), then the
// points outside; counts, or with weights their sums (doubles' bits). The result has the edges
// and the rung; its counts or sums are in device_counts. Returns as histogram_device_into.
histogram2d_result histogram2d_device_into(dtype t, const void* x, const void* y, std::size_t n,
                                           std::uint64_t* device_counts, std::size_t slots,
                                           const histogram2d_options& options,
                                           const rung_choice& how = {});

// histogramdd of points on the GPU (the coordinates and the weights device memory): each
// point's bin written as a slot, then counted by the histogram's rungs there (`how` names one of
// those); the counts or sums come back. histogramdd_device_into writes them into device memory
// the caller holds instead: `slots` = the product of the bins + 1 entries (the bins in C order,
// then the points outside), as histogram2d_device_into.
histogramdd_result histogramdd_device(dtype t, std::span<const void* const> axes,
                                      std::size_t stride, std::size_t n,
                                      const histogramdd_options& options,
                                      const rung_choice& how = {});
histogramdd_result histogramdd_device_into(dtype t, std::span<const void* const> axes,
                                           std::size_t stride, std::size_t n,
                                           std::uint64_t* device_counts, std::size_t slots,
                                           const histogramdd_options& options,
                                           const rung_choice& how = {});

template <class T>
histogram_result histogram(cuda_t, device_span<T> d, const histogram_options& options = {}) {
  return histogram_device(dtype_of<std::remove_cv_t<T>>(), d.data, d.size, options);
}

// Matrices already in GPU memory, multiplied there (pplab/matmul.hpp's call, its pointers device
// memory): the call returns when C is written; inside a stream_scope (below), once its work is
// queued on its stream.
void matmul_device(dtype t, std::size_t m, std::size_t n, std::size_t k, double alpha,
                   const void* a, std::size_t lda, const void* b, std::size_t ldb, double beta,
                   void* c, std::size_t ldc, const rung_choice& how = {});

// The same for a stack of products (pplab/matmul.hpp's matmul_batched), one after another.
void matmul_batched_device(dtype t, std::size_t batch, std::size_t m, std::size_t n, std::size_t k,
                           double alpha, const void* a, std::size_t lda, std::size_t stride_a,
                           const void* b, std::size_t ldb, std::size_t stride_b, double beta,
                           void* c, std::size_t ldc, std::size_t stride_c,
                           const rung_choice& how = {});

// An image already in GPU memory, filtered there (pplab/convolution.hpp's calls, `in` and `out`
// device memory, the mask in host memory): the call returns when the output is written.
void correlate_device(dtype t, const void* in, std::size_t rows, std::size_t cols,
                      std::size_t ld_in, const double* mask, std::size_t kh, std::size_t kw,
                      void* out, std::size_t ld_out, const filter_options& o = {},
                      const rung_choice& how = {});
void convolve_device(dtype t, const void* in, std::size_t rows, std::size_t cols, std::size_t ld_in,
                     const double* mask, std::size_t kh, std::size_t kw, void* out,
                     std::size_t ld_out, const filter_options& o = {}, const rung_choice& how = {});

// pplab::correlate1d_in_scipys_order (pplab/convolution.hpp) of an array already in GPU memory:
// `in` of the output's integer type or float64 (convert any other first), `out` device memory
// apart from it, the weights in host memory; the same answers as the host's, bit for bit.
void correlate1d_in_scipys_order_device(dtype in_type, const void* in, dtype out_type, void* out,
                                        std::size_t outer, std::size_t n, std::size_t inner,
                                        std::span<const double> weights, long origin, boundary mode,
                                        double cval, double divisor = 1.0);

// pplab::correlate_in_scipys_order (pplab/convolution.hpp) of an array already in GPU memory, of
// rank 1 to 8: `in` of the output's type or float64 (convert any other first), `out` device
// memory apart from it, the weights in host memory; the same answers as the host's, bit for bit.
void correlate_in_scipys_order_device(dtype in_type, const void* in, dtype out_type, void* out,
                                      std::span<const std::size_t> shape,
                                      std::span<const double> weights,
                                      std::span<const std::size_t> weights_shape,
                                      std::span<const long> origins, boundary mode, double cval);

// Data already spread over several GPUs, for the nccl backend: one part per GPU it drives, in
// device order (part i in the memory of device i, some possibly empty); under mpirun, one part,
// in the memory of this rank's GPU. The answer is the whole job's (every rank gets it), the
// parts joined in GPU order: the same bits on every run for a given GPU count.
scalar reduce_device_parts(dtype t, std::span<const device_part> parts, op o);

template <class T, op O>
reduce_result_t<T, O> reduce(nccl_t, std::span<const device_span<T>> parts, op_tag<O>) {
  std::vector<device_part> each;
  for (const device_span<T>& p : parts) each.push_back({p.data, p.size});
  return reduce_device_parts(dtype_of<std::remove_cv_t<T>>(), each, O)
      .template as<reduce_result_t<std::remove_cv_t<T>, O>>();
}

// The histogram of the whole job's parts: every GPU counts its part, the 64-bit counts are added
// over the GPUs (integers: the same answer whatever the order); every rank gets the result.
histogram_result histogram_device_parts(dtype t, std::span<const device_part> parts,
                                        const histogram_options& options = {});

template <class T>
histogram_result histogram(nccl_t, std::span<const device_span<T>> parts,
                           const histogram_options& options = {}) {
  std::vector<device_part> each;
  for (const device_span<T>& p : parts) each.push_back({p.data, p.size});
  return histogram_device_parts(dtype_of<std::remove_cv_t<T>>(), each, options);
}

// The CUDA device this thread's device calls run on (-1 without a usable GPU); never throws. A
// caller's GPU array must be in its memory.
int current_device();

// The stream pplab's device calls enqueue on outside a stream_scope (a cudaStream_t of the current
// device; null without a usable GPU): where a caller's producer of device data (DLPack's
// __dlpack__(stream=...)) is asked to make that data ready.
void* pplab_stream();

// Waits for the work queued on a caller's CUDA stream (a cudaStream_t); false if the wait failed or
// there is no usable GPU. How data a producer is still writing on its own stream is waited for
// before pplab reads it.
bool wait_for_stream(void* stream);

// While it lives, this thread's device calls enqueue on `stream` (a cudaStream_t; nullptr is
// CUDA's legacy default stream) instead of pplab's own: the caller's earlier work on that stream
// comes first, as it would for one of the caller's own kernels, and a call that answers on the
// host waits for that stream alone, never for the whole device (how PyTorch and CuPy users'
// current stream is honoured). Calls whose results stay in device memory (histogram_device_into,
// matmul_device) return once their work is queued there, as the caller's own kernels do: the
// caller's later work on that stream sees the results; other streams, and the host, wait for it
// (cudaStreamSynchronize, an event) first. Scopes nest; each restores the one before it.
class stream_scope {
public:
  explicit stream_scope(void* stream);
  ~stream_scope();
  stream_scope(const stream_scope&) = delete;
  stream_scope& operator=(const stream_scope&) = delete;

private:
  void* previous_;
  bool had_previous_;
};

}  // namespace pplab
