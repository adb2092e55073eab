#include "core/run_rung.hpp"

#include <memory>
#include <string>

#include "core/device.hpp"

namespace pplab::detail {

#ifdef PPLAB_HAVE_CUDA
// Defined in src/core/cuda_staging.cu: copies host data to the device, runs, copies back.
scalar run_reduce_on_device(const reduce_rung& r, const reduce_problem& p, const void* host_data);
#endif

void require_backend(backend b) {
  if (available(b)) return;
  if (b == backend::cuda)
    fail(errc::unsupported, "backend 'cuda' is not usable: " + gpu().why_absent);
  fail(errc::unsupported, "backend '" + std::string(name_of(b)) +
                              "' is not built yet; use seq or cpu (see `pplab info`)");
}

namespace {
struct host_scratch {
  explicit host_scratch(std::size_t bytes) : data(bytes ? new std::byte[bytes] : nullptr) {}
  std::unique_ptr<std::byte[]> data;
};
}  // namespace

scalar run_reduce(const reduce_rung& r, const reduce_problem& p, const void* host_data) {
#ifdef PPLAB_HAVE_CUDA
  if (r.mem == memory::device) return run_reduce_on_device(r, p, host_data);
#endif
  host_scratch scratch(r.scratch_bytes ? r.scratch_bytes(p) : 0);
  scalar out;
  r.run({p, host_data, &out, scratch.data.get(), nullptr});
  return out;
}

void run_histogram(const histogram_rung& r, const histogram_problem& p, const void* host_data,
                   std::uint64_t* host_counts) {
  if (r.mem == memory::device)
    fail(errc::unsupported, std::string(r.info.id) + " needs device memory");
  host_scratch scratch(r.scratch_bytes ? r.scratch_bytes(p) : 0);
  r.run({p, host_data, host_counts, scratch.data.get(), nullptr});
}

void run_matmul(const matmul_rung& r, const matmul_call& host_call) {
  if (r.mem == memory::device)
    fail(errc::unsupported, std::string(r.info.id) + " needs device memory");
  r.run(host_call);
}

}  // namespace pplab::detail
