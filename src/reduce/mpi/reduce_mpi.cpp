// The mpi reduction rungs' shared parts (see reduce_mpi.hpp).
#include "reduce/mpi/reduce_mpi.hpp"

#include <limits>

#include "core/mpi/world.hpp"
#include "reduce/reduce_common.hpp"
#include "reduce/rung.hpp"

namespace pplab::detail::reduce_mpi {

partial local_partial(const reduce_call& c) {
  partial mine;
  mine.n = c.p.n, mine.type = c.p.type, mine.what = c.p.what;
  std::exception_ptr failed;
  try {
    if (c.p.what == op::mean && c.p.n == 0) {
      mine.value = scalar::of(0.0);
    } else {
      const backend local = mpi_local();
      mine.value = run_rung(default_rung<reduce_rung>(local, c.p), executor_for(local), c.p, c.in);
    }
  } catch (...) {
    failed = std::current_exception();
  }
  mpi::agree(failed);
  if (is_arg(c.p.what)) {
    // The local index made the whole array's (the ranks before hold the elements before), and
    // the value there read from this rank's part: the pair every combine needs.
    std::uint64_t before = 0;
    mpi::check(MPI_Exscan(&mine.n, &before, 1, MPI_UINT64_T, MPI_SUM, mpi::comm()), "MPI_Exscan");
    if (mpi::rank() == 0) before = 0;  // MPI leaves rank 0's result undefined
    const std::int64_t local = mine.value.i;
    mine.index = local < 0 ? -1 : std::int64_t(before) + local;
    if (local >= 0)
      visit_dtype(c.p.type, [&](auto tag) {
        mine.value = scalar::of(static_cast<const decltype(tag)*>(c.in)[local]);
      });
  }
  return mine;
}

namespace {
// MPI's user function: inout[i] = in[i] joined with inout[i] (in holds the lower ranks' part
// when MPI keeps the order; with a commutative operator it need not).
void join_fn(void* in, void* inout, int* len, MPI_Datatype*) {
  const partial* a = static_cast<const partial*>(in);
  partial* b = static_cast<partial*>(inout);
  for (int i = 0; i < *len; ++i) b[i] = join(a[i], b[i]);
}
}  // namespace

MPI_Datatype partial_type() {
  static MPI_Datatype t = [] {
    MPI_Datatype d;
    mpi::check(MPI_Type_contiguous(int(sizeof(partial)), MPI_BYTE, &d), "MPI_Type_contiguous");
    mpi::check(MPI_Type_commit(&d), "MPI_Type_commit");
    return d;
  }();
  return t;
}

MPI_Op join_op() {
  static MPI_Op o = [] {
    MPI_Op made;
    mpi::check(MPI_Op_create(join_fn, 1, &made), "MPI_Op_create");
    return made;
  }();
  return o;
}

builtin builtin_for(const reduce_problem& p) {
  if (p.what == op::count_nonzero) return {MPI_UINT64_T, MPI_SUM};  // counts of any dtype
  if (is_float(p.type) || p.what == op::mean || is_arg(p.what)) return {};
  // Sums and products wrap modulo 2^64 alike for signed and unsigned: add as unsigned (a signed
  // overflow would be undefined); min and max need the sign.
  const bool is_signed = is_signed_int(p.type);
  switch (p.what) {
  case op::sum:
    return {MPI_UINT64_T, MPI_SUM};
  case op::product:
    return {MPI_UINT64_T, MPI_PROD};
  case op::min:
    return {is_signed ? MPI_INT64_T : MPI_UINT64_T, MPI_MIN};
  default:
    return {is_signed ? MPI_INT64_T : MPI_UINT64_T, MPI_MAX};
  }
}

}  // namespace pplab::detail::reduce_mpi
