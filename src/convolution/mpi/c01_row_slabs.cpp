// convolution/mpi/c01_row_slabs: each rank holds a slab of whole rows (part_of the rows) and
// filters it with its local backend's best rung. Before that it needs the kh/2 rows above and
// below its slab: its neighbours' edge rows, or, where the slab touches the image's edge, the
// rows the boundary mode reads there (in wrap mode the other end of the image, which another rank
// holds; for a slab thinner than the halo, rows of ranks further away). Every rank knows every
// rank's slab, so each works out which of its rows every other rank needs, and one
// MPI_Alltoallv moves them all. The slab is then filtered in place by the local rung, and its
// first and last kh/2 output rows again from small bands with the halo rows (filter_slab), so the
// rows' boundary is the exchange's and the columns' the local rung's. The same bits as one
// process: every output is the same sum in the same order.
// Measured (2-core EPYC, 2 ranks with seq as the local backend,
// bench/results/cpu-2core-2026-11-25-mpi-convolution-seq.json): 8192 x 8192 f32 with 7 x 7 in 938
// ms against 1765 ms for one rank alone, 1.88x; the rest of the way to 2x is the exchange, the edge
// rows computed twice and the one rank having the machine to itself.
#include <algorithm>
#include <cstring>
#include <exception>
#include <vector>

#include "convolution/boundary.hpp"
#include "convolution/rung.hpp"
#include "core/mpi/world.hpp"

namespace pplab::detail::convolution_mpi {
namespace {

// The global rows (or -1: a row of the constant value) that the slab [first, first + count)
// reads, its halo included, in order.
std::vector<std::int64_t> rows_read(const convolution_problem& p, part slab) {
  std::vector<std::int64_t> out;
  if (slab.count == 0) return out;
  const auto rh = std::int64_t(p.kh / 2);
  for (std::int64_t g = std::int64_t(slab.first) - rh;
       g < std::int64_t(slab.first + slab.count) + rh; ++g)
    out.push_back(boundary_index(g, std::int64_t(p.rows), p.mode));
  return out;
}

int owner_of(std::int64_t row, std::size_t rows, int ranks) {
  int lo = 0, hi = ranks - 1;  // the slabs are in rank order: a binary search
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (std::int64_t(part_of(rows, mid, ranks).first) <= row) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

// Rows first..last of `need` (the slab's rows with their halo) packed into one image: own rows
// copied from the call's input, the others' from what arrived, the constant rows filled.
std::vector<std::byte> assemble(const convolution_problem& p,
                                const std::vector<const std::byte*>& from, std::size_t first,
                                std::size_t last) {
  const std::size_t values = p.cols * p.channels, row = values * size_of(p.type);
  std::vector<std::byte> out((last - first) * row);
  for (std::size_t i = first; i < last; ++i) {
    std::byte* to = out.data() + (i - first) * row;
    if (from[i]) std::memcpy(to, from[i], row);
    else if (p.type == dtype::f32) std::fill_n(reinterpret_cast<float*>(to), values, float(p.cval));
    else if (p.type == dtype::u8) std::fill_n(to, values, std::byte(std::uint8_t(p.cval)));
    else std::fill_n(reinterpret_cast<double*>(to), values, p.cval);
  }
  return out;
}

// The size of a row of the input and of the output, in bytes (a u8 image's rows hold its
// channels; its output may be f32).
std::size_t in_row_bytes(const convolution_problem& p) {
  return p.cols * p.channels * size_of(p.type);
}
std::size_t out_row_bytes(const convolution_problem& p) {
  return p.cols * p.channels * size_of(output_type(p));
}

// `rows` packed rows filtered by the local backend as an image of their own; output rows
// [skip, skip + keep) written to `out` (row stride ld_out).
void filter_rows(const convolution_call& c, const void* in, std::size_t rows, std::size_t ld_in,
                 std::size_t skip, std::size_t keep, std::byte* out) {
  const convolution_problem& p = c.p;
  const std::size_t eo = size_of(output_type(p)), row = out_row_bytes(p);
  const backend local = mpi_local();
  convolution_problem sub = p;
  sub.rows = rows;
  if (skip == 0 && keep == rows) {  // every output row kept: straight into the output
    run_rung(default_rung<convolution_rung>(local, sub), executor_for(local),
             {sub, in, ld_in, c.mask, out, c.ld_out, nullptr, nullptr});
    return;
  }
  std::vector<std::byte> result(rows * row);
  run_rung(default_rung<convolution_rung>(local, sub), executor_for(local),
           {sub, in, ld_in, c.mask, result.data(), p.cols * p.channels, nullptr, nullptr});
  for (std::size_t y = 0; y < keep; ++y)
    std::memcpy(out + y * c.ld_out * eo, result.data() + (skip + y) * row, row);
}

// The slab's outputs. Its own rows are filtered in place, straight into the output: every output
// row but the first and last kh/2 reads only rows of the slab. Those 2 x kh/2 rows are then
// computed again from a band of 3 x kh/2 rows with the halo (a slab thinner than that is filtered
// whole, halo included), so no more than a few rows are ever copied.
void filter_slab(const convolution_call& c, part mine, const std::vector<std::int64_t>& need,
                 const std::vector<std::byte>& recv, const std::vector<int>& recv_at) {
  const convolution_problem& p = c.p;
  const int me = mpi::rank(), ranks = mpi::size();
  const std::size_t e = size_of(p.type), eo = size_of(output_type(p)), row = in_row_bytes(p);
  const std::size_t rh = p.kh / 2, packed = p.cols * p.channels;
  // Where each row of `need` is: this rank's input, what arrived (each rank's rows in the order
  // of `need`), or nowhere (the constant).
  std::vector<const std::byte*> from(need.size(), nullptr);
  std::vector<int> taken(std::size_t(ranks), 0);
  for (std::size_t i = 0; i < need.size(); ++i) {
    const std::int64_t g = need[i];
    if (g < 0) continue;
    const int q = owner_of(g, p.rows, ranks);
    if (q == me) {
      from[i] = static_cast<const std::byte*>(c.in) + (std::size_t(g) - mine.first) * c.ld_in * e;
    } else {
      from[i] = recv.data() + recv_at[std::size_t(q)] + taken[std::size_t(q)];
      taken[std::size_t(q)] += int(row);
    }
  }
  auto* out = static_cast<std::byte*>(c.out);
  if (mine.count < 2 * rh + 1) {
    const std::vector<std::byte> slab = assemble(p, from, 0, need.size());
    filter_rows(c, slab.data(), need.size(), packed, rh, mine.count, out);
    return;
  }
  filter_rows(c, c.in, mine.count, c.ld_in, 0, mine.count, out);
  if (rh == 0) return;
  const std::vector<std::byte> top = assemble(p, from, 0, 3 * rh);
  filter_rows(c, top.data(), 3 * rh, packed, rh, rh, out);
  const std::vector<std::byte> bottom = assemble(p, from, mine.count - rh, mine.count + 2 * rh);
  filter_rows(c, bottom.data(), 3 * rh, packed, rh, rh, out + (mine.count - rh) * c.ld_out * eo);
}

void run(const convolution_call& c) {
  const convolution_problem& p = c.p;
  const int me = mpi::rank(), ranks = mpi::size();
  const part mine = part_of(p.rows, me, ranks);
  const std::size_t e = size_of(p.type), row = in_row_bytes(p);
  // What every rank reads; the rows of mine that each needs go to it in its order.
  std::vector<int> send_counts(std::size_t(ranks), 0), recv_counts(std::size_t(ranks), 0);
  std::vector<std::byte> send;
  for (int q = 0; q < ranks; ++q) {
    if (q == me) continue;
    for (std::int64_t g : rows_read(p, part_of(p.rows, q, ranks)))
      if (g >= 0 && owner_of(g, p.rows, ranks) == me) {
        const auto* from =
            static_cast<const std::byte*>(c.in) + (std::size_t(g) - mine.first) * c.ld_in * e;
        send.insert(send.end(), from, from + row);
        send_counts[std::size_t(q)] += int(row);
      }
  }
  const std::vector<std::int64_t> need = rows_read(p, mine);
  for (std::int64_t g : need)
    if (g >= 0 && owner_of(g, p.rows, ranks) != me)
      recv_counts[std::size_t(owner_of(g, p.rows, ranks))] += int(row);
  std::vector<int> send_at(std::size_t(ranks), 0), recv_at(std::size_t(ranks), 0);
  for (int q = 1; q < ranks; ++q) {
    send_at[std::size_t(q)] = send_at[std::size_t(q - 1)] + send_counts[std::size_t(q - 1)];
    recv_at[std::size_t(q)] = recv_at[std::size_t(q - 1)] + recv_counts[std::size_t(q - 1)];
  }
  std::vector<std::byte> recv(std::size_t(recv_at.back() + recv_counts.back()) + 1);
  send.resize(send.size() + 1);
  mpi::check(MPI_Alltoallv(send.data(), send_counts.data(), send_at.data(), MPI_BYTE, recv.data(),
                           recv_counts.data(), recv_at.data(), MPI_BYTE, mpi::comm()),
             "MPI_Alltoallv");
  std::exception_ptr failed;
  try {
    if (mine.count) filter_slab(c, mine, need, recv, recv_at);
  } catch (...) {
    failed = std::current_exception();
  }
  mpi::agree(failed);  // a rank's local failure is every rank's
}

// The halo's bytes to any one rank must fit an int (MPI's counts): every real image does. A u8
// image's rows of the constant are made of bytes, so its cval must be one.
bool can_run(const convolution_problem& p) {
  const bool byte_cval = p.mode != boundary::constant ||
                         (p.cval >= 0 && p.cval <= 255 && p.cval == double(std::uint8_t(p.cval)));
  return (float_or_double(p) || (u8_image(p) && byte_cval)) &&
         in_row_bytes(p) * (p.kh + 1) < (std::size_t(1) << 31);
}

}  // namespace

extern const convolution_rung c01_row_slabs{
    .info = {.step = 1,
             .summary = "row slabs; the halo rows every rank needs moved by one MPI_Alltoallv; "
                        "each slab filtered by the local backend"},
    .can_run = can_run,
    .run = run,
};

}  // namespace pplab::detail::convolution_mpi
