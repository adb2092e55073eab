// pplab::reduce_device_parts and pplab::histogram_device_parts: the caller's parts, one per GPU,
// wrapped in one of the nccl executor's arrays without a copy, and given to the backend's rung
// (include/pplab/device.hpp).
#include "core/nccl/array.hpp"
#include "core/run.hpp"
#include "histogram/binning.hpp"
#include "pplab/device.hpp"

namespace pplab {
namespace {

// The parts as slices of an array, each checked to be memory of its GPU (`what`: the call's name,
// for the errors). Run inside the call's agreement: a bad part on one rank fails every rank.
std::vector<detail::nccl::slice> slices_of(const char* what, dtype t,
                                           std::span<const device_part> parts) {
  const std::vector<detail::nccl::member>& ms = detail::nccl::members();
  if (parts.size() != ms.size())
    fail(errc::invalid_argument, std::string(what) + ": " + std::to_string(parts.size()) +
                                     " device parts for the " + std::to_string(ms.size()) +
                                     " GPUs this process drives (one part per GPU)");
  std::vector<detail::nccl::slice> slices;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const device_part& p = parts[i];
    if (p.size == 0) {
      slices.push_back({nullptr, 0, 0});
      continue;
    }
    cudaPointerAttributes attr{};
    if (!p.data || cudaPointerGetAttributes(&attr, p.data) != cudaSuccess ||
        attr.type != cudaMemoryTypeDevice || attr.device != ms[i].device) {
      (void)cudaGetLastError();
      fail(errc::invalid_argument, std::string(what) + ": device part " + std::to_string(i) +
                                       " is not memory of GPU " + std::to_string(ms[i].device));
    }
    slices.push_back({const_cast<void*>(p.data), 0, p.size * size_of(t)});
  }
  return slices;
}

std::uint64_t elements(std::span<const device_part> parts) {
  std::uint64_t n = 0;
  for (const device_part& p : parts) n += p.size;
  return n;
}

// An array over the caller's slices for the length of a call.
struct wrapped {
  void* p;
  explicit wrapped(std::vector<detail::nccl::slice> s)
      : p(detail::nccl::wrap_array(std::move(s))) {}
  ~wrapped() { detail::nccl::release_array(p); }
  wrapped(const wrapped&) = delete;
  wrapped& operator=(const wrapped&) = delete;
};

}  // namespace

scalar reduce_device_parts(dtype t, std::span<const device_part> parts, op o) {
  detail::require_backend(backend::nccl);
  std::vector<detail::nccl::slice> slices;
  const std::uint64_t local_n = elements(parts);
  const std::uint64_t total = detail::agree_on_call(
      backend::nccl, "reduce " + std::string(name_of(t)) + " " + std::string(name_of(o)), local_n,
      [&] { slices = slices_of("reduce", t, parts); });
  return detail::together([&] {
    if (o == op::mean && total == 0)
      fail(errc::invalid_argument, "reduce: the mean of an empty input is undefined");
    const wrapped in(std::move(slices));
    const detail::reduce_problem p{t, o, local_n};
    return detail::run_in_place(detail::default_rung<detail::reduce_rung>(backend::nccl, p),
                                detail::executor_for(backend::nccl), p, in.p);
  });
}

histogram_result histogram_device_parts(dtype t, std::span<const device_part> parts,
                                        const histogram_options& options) {
  detail::require_backend(backend::nccl);
  std::vector<detail::nccl::slice> slices;
  const std::uint64_t local_n = elements(parts);
  // A range inferred from the data: the whole job's minimum and maximum, over the same parts.
  const detail::histogram_problem p = detail::resolve_histogram_in_place(
      backend::nccl, t, local_n, options, [&](op o) { return reduce_device_parts(t, parts, o); },
      [&] { slices = slices_of("histogram", t, parts); });
  return detail::together([&] {
    const wrapped in(std::move(slices));
    return detail::histogram_in_place(
        detail::default_rung<detail::histogram_rung>(backend::nccl, p),
        detail::executor_for(backend::nccl), p, in.p);
  });
}

}  // namespace pplab
