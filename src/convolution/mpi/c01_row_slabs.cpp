// convolution/mpi/c01_row_slabs: each rank holds a slab of whole rows (part_of the rows) and
// filters it with its local backend's best rung. Before that it needs the kh/2 rows above and
// below its slab: its neighbours' edge rows, or, where the slab touches the image's edge, the
// rows the boundary mode reads there (in wrap mode the other end of the image, which another rank
// holds; for a slab thinner than the halo, rows of ranks further away). Every rank knows every
// rank's slab, so each works out which of its rows every other rank needs, and one
// MPI_Alltoallv moves them all. The slab with its halo rows is then filtered as an image of
// count + kh - 1 rows; its first and last kh/2 output rows (whose taps would need the boundary)
// are dropped, so the rows' boundary is the exchange's and the columns' the local rung's. The same
// bits as one process: every output is the same sum in the same order.
#include <algorithm>
#include <cstring>
#include <exception>
#include <vector>

#include "convolution/boundary.hpp"
#include "convolution/rung.hpp"
#include "core/mpi/world.hpp"

namespace pplab::detail {
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

// The slab with its halo, packed: own rows copied, the others' taken from what arrived (from
// each rank in the order of `need`), the constant rows filled; filtered as an image of its own
// by the local backend, its first and last kh/2 rows dropped.
void filter_slab(const convolution_call& c, part mine, const std::vector<std::int64_t>& need,
                 const std::vector<std::byte>& recv, const std::vector<int>& recv_at) {
  const convolution_problem& p = c.p;
  const int me = mpi::rank(), ranks = mpi::size();
  const std::size_t e = size_of(p.type), row = p.cols * e;
  std::vector<std::byte> slab(need.size() * row);
  std::vector<int> taken(std::size_t(ranks), 0);
  for (std::size_t i = 0; i < need.size(); ++i) {
    std::byte* to = slab.data() + i * row;
    const std::int64_t g = need[i];
    if (g < 0) {
      if (p.type == dtype::f32) std::fill_n(reinterpret_cast<float*>(to), p.cols, float(p.cval));
      else std::fill_n(reinterpret_cast<double*>(to), p.cols, p.cval);
      continue;
    }
    const int q = owner_of(g, p.rows, ranks);
    const std::byte* from =
        q == me ? static_cast<const std::byte*>(c.in) + (std::size_t(g) - mine.first) * c.ld_in * e
                : recv.data() + recv_at[std::size_t(q)] + taken[std::size_t(q)];
    if (q != me) taken[std::size_t(q)] += int(row);
    std::memcpy(to, from, row);
  }
  const backend local = mpi_local();
  convolution_problem whole = p;
  whole.rows = need.size();
  std::vector<std::byte> out(need.size() * row);
  run_rung(default_rung<convolution_rung>(local, whole), executor_for(local),
           {whole, slab.data(), p.cols, c.mask, out.data(), p.cols, nullptr, nullptr});
  const std::size_t rh = p.kh / 2;
  for (std::size_t y = 0; y < mine.count; ++y)
    std::memcpy(static_cast<std::byte*>(c.out) + y * c.ld_out * e, out.data() + (y + rh) * row,
                row);
}

}  // namespace

void convolution_mpi_c01(const convolution_call& c) {
  const convolution_problem& p = c.p;
  const int me = mpi::rank(), ranks = mpi::size();
  const part mine = part_of(p.rows, me, ranks);
  const std::size_t e = size_of(p.type), row = p.cols * e;
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

// The halo's bytes to any one rank must fit an int (MPI's counts): every real image does.
bool convolution_mpi_can_run(const convolution_problem& p) {
  return float_or_double(p) && p.cols * size_of(p.type) * (p.kh + 1) < (std::size_t(1) << 31);
}

void register_convolution_mpi(std::vector<convolution_rung>& r) {
  r.push_back({{"convolution/mpi/c01_row_slabs", backend::mpi, 1,
                "row slabs; the halo rows every rank needs moved by one MPI_Alltoallv; each slab "
                "filtered by the local backend"},
               convolution_mpi_can_run,
               nullptr,
               convolution_mpi_c01});
}

}  // namespace pplab::detail
