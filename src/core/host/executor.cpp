// The host executor, for seq and cpu: memory is the process's own, work runs when called, the
// timer is the wall clock, and the ceilings are the cores' streaming read and copy and their
// register-resident multiply-add rate.
#include <omp.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>
#include <vector>

#include "core/ceilings.hpp"
#include "core/host/host_executor.hpp"
#include "pplab/error.hpp"

namespace pplab::detail {

std::string host_executor::describe() const {
  const cpu_facts c = cpu();
  return c.model + ", " + std::to_string(kind_ == backend::seq ? 1 : c.threads) + " thread" +
         (kind_ == backend::seq ? "" : "s");
}

void* host_executor::allocate(std::size_t bytes) {
  // 64-byte aligned, as vector loads and cache lines like. A large block (scratch, a lab's
  // arrays) comes as fresh pages from the system at every call: in 2 MiB pages where the kernel
  // has them for the asking (transparent huge pages in "madvise" mode, Debian's default), its
  // first touch costs one fault per 2 MiB instead of 512. On the 2-core EPYC VM, writing a
  // fresh 64 MiB block took 182-187 ms in 4 KiB pages and 5.4 ms in 2 MiB ones (after the
  // first, 110 ms); h02's private copies at 2^22 bins are such a block at every call.
  constexpr std::size_t huge = std::size_t(2) << 20;
  if (bytes >= 2 * huge) {
    const std::size_t whole = (bytes + huge - 1) / huge * huge;
    void* p = std::aligned_alloc(huge, whole);
    if (!p) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    madvise(p, whole, MADV_HUGEPAGE);  // advice only: a refusal leaves 4 KiB pages
#endif
    return p;
  }
  void* p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
  if (!p) throw std::bad_alloc();
  return p;
}
void host_executor::release(void* p) noexcept { std::free(p); }
void host_executor::copy_in(void* dst, const void* src, std::size_t bytes) {
  if (bytes) std::memcpy(dst, src, bytes);
}
void host_executor::copy_out(void* dst, const void* src, std::size_t bytes) {
  if (bytes) std::memcpy(dst, src, bytes);
}
void host_executor::copy_rows_in(void* dst, std::size_t dst_pitch, const void* src,
                                 std::size_t src_pitch, std::size_t row_bytes, std::size_t rows) {
  for (std::size_t r = 0; r < rows; ++r)
    std::memcpy(static_cast<char*>(dst) + r * dst_pitch,
                static_cast<const char*>(src) + r * src_pitch, row_bytes);
}
void host_executor::copy_rows_out(void* dst, std::size_t dst_pitch, const void* src,
                                  std::size_t src_pitch, std::size_t row_bytes, std::size_t rows) {
  copy_rows_in(dst, dst_pitch, src, src_pitch, row_bytes, rows);
}
void host_executor::fill(void* dst, int byte, std::size_t bytes) {
  if (bytes) std::memset(dst, byte, bytes);
}

timing host_executor::time(const std::function<void()>& work, const time_plan& plan) {
  return time_it(work, plan.min_reps, plan.budget_s);
}

std::vector<ceiling> host_executor::measure_ceilings(std::size_t bytes, double budget_s) {
  return {{"read_GBps", read_GBps(bytes, budget_s),
           "all-thread streaming sum, best of three loops (64-bit words; 32-bit words into 64-bit "
           "lanes; an OpenMP reduction of 32-bit words), best repeat of probes at the start and "
           "the end of the run"},
          {"copy_GBps", measure_copy_GBps(bytes, budget_s),
           "all-thread memcpy, bytes read + written, best repeat"},
          {"fp32_GFLOPs", measure_fma_GFLOPs(false, budget_s),
           "all-thread register-resident FMA loop"}};
}

double host_executor::read_GBps(std::size_t bytes, double budget_s) {
  return measure_read_GBps(bytes, budget_s);
}

namespace {
backend mpi_local_backend = backend::cpu;
}

executor& executor_for(backend b) {
  static host_executor seq_ex(backend::seq), cpu_ex(backend::cpu);
  switch (b) {
  case backend::seq:
    return seq_ex;
  case backend::cpu:
    return cpu_ex;
  case backend::cuda:
    return cuda_executor();
  case backend::nccl:
    return nccl_executor();
  case backend::mpi:
    return mpi_executor();
  }
  unknown_backend(b);
}

// ---- what every executor shares

void executor::stream_in(const void* host, std::size_t bytes, std::size_t chunk_bytes,
                         const chunk_fn& chunk, const drain_fn& drain) {
  const std::size_t chunks = bytes ? (bytes + chunk_bytes - 1) / chunk_bytes : 1;
  buffer staged[2];
  if (!host_memory())
    for (buffer& b : staged) b = buffer(*this, std::min(chunk_bytes, bytes));
  for (std::size_t c = 0; c < chunks; ++c) {
    const int slot = int(c % 2);
    const std::size_t first = c * chunk_bytes,
                      len = bytes ? std::min(chunk_bytes, bytes - first) : 0;
    const void* data = static_cast<const char*>(host) + first;
    if (!host_memory()) {
      copy_in(staged[slot].get(), data, len);
      data = staged[slot].get();
    }
    chunk(data, len, c, slot, stream());
    synchronize();
    drain(slot);
  }
}

// One slab at a time, through one buffer each way: the cuda executor overlaps them.
void executor::stream_slabs(std::size_t slabs, std::size_t in_row, std::size_t most_in_rows,
                            std::size_t out_row, std::size_t out_bytes, const slab_plan_fn& plan,
                            const slab_fn& work) {
  buffer in(*this, in_row * most_in_rows), out(*this, out_bytes);
  for (std::size_t s = 0; s < slabs; ++s) {
    const slab_rows rows = plan(s);
    std::size_t at = 0;
    for (const host_rows& run : rows.in) {
      copy_rows_in(in.as<char>() + at * in_row, in_row, run.data, run.pitch, in_row, run.rows);
      at += run.rows;
    }
    const void* back = work(s, in.get(), out.get(), 0, stream());
    synchronize();
    copy_rows_out(rows.out, rows.out_pitch, back, out_row, out_row, rows.out_rows);
  }
}

void* executor::adopt(std::span<const device_part>, std::size_t, const std::string& what) {
  fail(errc::invalid_argument, what + ": backend '" + std::string(name_of(kind())) +
                                   "' takes its data in one piece, not in parts per GPU");
}

void executor::copy_within(void* dst, const void* src, std::size_t bytes) {
  if (!host_memory())
    throw std::logic_error("executor::copy_within: not built for backend '" +
                           std::string(name_of(kind())) + "'");
  if (bytes) std::memcpy(dst, src, bytes);
}

std::uint64_t executor::agree_on_call(const std::string&, std::uint64_t local_n,
                                      const std::exception_ptr& local_error) {
  if (local_error) std::rethrow_exception(local_error);
  return local_n;
}

std::vector<std::byte> executor::gather_to_root(const void* mine, std::size_t bytes) {
  const std::byte* p = static_cast<const std::byte*>(mine);
  return std::vector<std::byte>(p, p + bytes);
}

buffer scratch_for(executor& ex, std::size_t bytes) {
  buffer b = buffer::in_stream_order(ex, std::max<std::size_t>(bytes, 256));
  ex.fill(b.get(), 0, 256);
  return b;
}

void absent_executor::fail_absent() const {
  fail(errc::unsupported,
       "backend '" + std::string(name_of(kind_)) + "' is not usable here: " + why_);
}

}  // namespace pplab::detail

namespace pplab {

void set_mpi_local(backend local) {
  if (local == backend::mpi || local == backend::nccl)
    fail(errc::invalid_argument, "the mpi backend's local backend is seq, cpu or cuda; got '" +
                                     std::string(name_of(local)) + "'");
  detail::mpi_local_backend = local;
}
backend mpi_local() noexcept { return detail::mpi_local_backend; }

}  // namespace pplab
