// convolution/nccl/c01_row_slabs: one process, the image's rows split over its GPUs (GPU g
// computes output rows part_of(rows, g, G)), each GPU filtering with the cuda backend's best
// rung. The image and the output are arrays of the nccl executor, split by bytes
// (core/nccl/array.hpp). Where a GPU's rows of both lie in its own slices (the lab's images are
// split by whole rows), it filters them in place, straight into the output, and then its first
// and last kh/2 output rows again from bands of 3 x kh/2 rows gathered with their halo, as the
// mpi rung does: the band's rows read over NVLink from the GPU that holds them (or, in wrap mode,
// from the image's far end), on the GPU's side stream while the slab is filtered in place, their
// rows written after it. Elsewhere (a GPU's rows across a slice's edge, a slab thinner than
// the halo) its rows and their halo are gathered whole into one band. No collective: the halo
// moves by peer copies, each GPU's work on its own streams, all enqueued from the calling thread.
// The same bits as one GPU: every output is the same rung's sum of the same taps.
// Measured (2 x H100 joined by NVLink, bench/results/h100x2-2026-11-26-convolution-nccl.json): a
// 16384 x 16384 f32 image with 7 x 7, reflect, in 0.625 ms against 1.106 ms on one GPU with c06,
// 1.77x; half the image on one GPU takes 0.553 ms, so the split costs about 70 us.
#include <algorithm>
#include <vector>

#include "convolution/rung.hpp"
#include "core/nccl/array.hpp"

namespace pplab::detail::convolution_nccl {
namespace {

// Bytes [offset, offset + bytes) of array x when they lie in member i's own slice, else null.
char* in_own_slice(const nccl::gpu_array& x, std::size_t i, std::size_t offset, std::size_t bytes) {
  const nccl::slice& s = x.slices[i];
  if (offset < s.offset || offset + bytes > s.offset + s.bytes) return nullptr;
  return static_cast<char*>(s.data) + (offset - s.offset);
}

struct gpu_filter {
  const convolution_call& c;
  const nccl::gpu_array& in;
  nccl::gpu_array& out;
  std::size_t i;  // the member
  const nccl::member& m;
  const convolution_rung& r;

  std::size_t in_row() const { return c.p.cols * c.p.channels * size_of(c.p.type); }
  std::size_t out_row() const { return c.p.cols * c.p.channels * size_of(output_type(c.p)); }

  // Output rows [first, first + count) from a band of their input rows with the halo: its
  // buffers allocated (and freed) on a stream `on`, filled and filtered there, the rows then
  // written into the output on the member's stream (write).
  struct band {
    std::size_t first, count;
    halo_rows h;
    nccl::device_buffer in, result, scratch;
  };
  band prepare(std::size_t first, std::size_t count, const nccl::member& on) const {
    convolution_problem q = c.p;
    const halo_rows h = rows_with_halo(c.p, first, count);
    q.rows = h.rows();
    return {first,
            count,
            h,
            nccl::device_buffer(on, h.rows() * in_row()),
            nccl::device_buffer(on, h.rows() * out_row()),
            nccl::device_buffer(on, std::max<std::size_t>(r.scratch(q), 256), 256)};
  }
  // The band's rows gathered a run of consecutive image rows at a time (peer copies where
  // another GPU holds them), then filtered.
  void compute(const band& b, const nccl::member& on) const {
    const convolution_problem& p = c.p;
    const std::size_t e = size_of(p.type), n = p.cols * p.channels;
    // A run of packed rows is one range of the array; padded rows a range each.
    const bool packed = c.ld_in * e == in_row();
    for_each_row_run(p, b.h, [&](std::size_t at, std::size_t count, std::size_t to) {
      for (std::size_t k = 0; k < (packed ? 1 : count); ++k)
        nccl::read_range(in, (at + k) * c.ld_in * e, b.in.as<char>() + (to + k) * in_row(),
                         (packed ? count : 1) * in_row(), on);
    });
    convolution_problem q = p;
    q.rows = b.h.rows();
    r.run({q, b.in.get(), n, c.mask, b.result.get(), n, b.scratch.get(), on.stream});
  }
  void write(const band& b) const {
    const std::size_t eo = size_of(output_type(c.p));
    const std::size_t skip = std::size_t(std::int64_t(b.first) - b.h.from);
    if (c.ld_out * eo == out_row()) {  // packed rows: one range
      nccl::write_range(out, b.first * out_row(), b.result.as<char>() + skip * out_row(),
                        b.count * out_row(), m);
      return;
    }
    for (std::size_t y = 0; y < b.count; ++y)
      nccl::write_range(out, (b.first + y) * c.ld_out * eo,
                        b.result.as<char>() + (skip + y) * out_row(), out_row(), m);
  }

  // The first pass: the GPU's rows filtered in place, straight into the output, where they lie
  // in its own slices, else whole from one band. True when the edge rows remain (edges).
  bool slab(part mine) const {
    const convolution_problem& p = c.p;
    if (mine.count == 0) return false;
    const std::size_t e = size_of(p.type), eo = size_of(output_type(p)), rh = p.kh / 2;
    const auto span = [&](std::size_t ld, std::size_t row) {
      return ((mine.count - 1) * ld + p.cols * p.channels) * row;
    };
    const char* own_in = in_own_slice(in, i, mine.first * c.ld_in * e, span(c.ld_in, e));
    char* own_out = in_own_slice(out, i, mine.first * c.ld_out * eo, span(c.ld_out, eo));
    if (!own_in || !own_out || mine.count < 2 * rh + 1) {
      const band whole = prepare(mine.first, mine.count, m);
      compute(whole, m);
      write(whole);
      return false;
    }
    convolution_problem q = p;
    q.rows = mine.count;
    nccl::device_buffer scratch(m, std::max<std::size_t>(r.scratch(q), 256), 256);
    r.run({q, own_in, c.ld_in, c.mask, own_out, c.ld_out, scratch.get(), m.stream});
    return rh > 0;
  }

  // The second: the first and last kh/2 rows from bands on the side stream while the first pass
  // runs, written after it (it wrote those rows too, from the slab's own edges). The bands'
  // buffers live on the side stream, freed there after the writes.
  void edges(part mine) const {
    const std::size_t rh = c.p.kh / 2;
    nccl::member side = m;
    side.stream = m.side;
    nccl::stream_mark computed, written;
    const band top = prepare(mine.first, rh, side),
               bottom = prepare(mine.first + mine.count - rh, rh, side);
    compute(top, side), compute(bottom, side);
    computed.record(m.side);
    computed.wait_in(m.stream);
    write(top), write(bottom);
    written.record(m.stream);
    written.wait_in(m.side);
  }
};

void run(const convolution_call& c) {
  const nccl::gpu_array& in = nccl::array_at(c.in);
  nccl::gpu_array& out = nccl::array_at(c.out);
  const int gpus = nccl::world_size();
  const convolution_rung& r = default_rung<convolution_rung>(backend::cuda, c.p);
  // Every GPU's first pass enqueued before any GPU's bands, all from this thread: a few
  // launches and copies a GPU, quicker to enqueue than a thread per GPU is to start.
  std::vector<char> edges_left(nccl::members().size(), 0);
  nccl::each([&](std::size_t i, const nccl::member& m) {
    edges_left[i] = gpu_filter{c, in, out, i, m, r}.slab(part_of(c.p.rows, m.rank, gpus));
  });
  nccl::each([&](std::size_t i, const nccl::member& m) {
    if (edges_left[i]) gpu_filter{c, in, out, i, m, r}.edges(part_of(c.p.rows, m.rank, gpus));
  });
  nccl::synchronize();
}

// Arrays split over the GPUs of one process (in a job of one process per GPU each holds its own
// part, which this rung does not take).
bool can_run(const convolution_problem& p) {
  return (float_or_double(p) || u8_image(p)) && !nccl::job_of_processes();
}

}  // namespace

extern const convolution_rung c01_row_slabs{
    .info = {.step = 1,
             .summary =
                 "rows split over the GPUs of one process, each GPU's filtered in place by the "
                 "cuda rung; its edge rows again from bands with the halo read over NVLink"},
    .can_run = can_run,
    .run = run,
};

}  // namespace pplab::detail::convolution_nccl
