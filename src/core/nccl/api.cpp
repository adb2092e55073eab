// pplab::reduce_device_parts: the caller's parts, one per GPU, wrapped in one of the nccl
// executor's arrays without a copy, and reduced by the backend's rung (include/pplab/device.hpp).
#include "core/nccl/array.hpp"
#include "core/run.hpp"
#include "pplab/device.hpp"

namespace pplab {

scalar reduce_device_parts(dtype t, std::span<const device_part> parts, op o) {
  detail::require_backend(backend::nccl);
  const std::vector<detail::nccl::member>& ms = detail::nccl::members();
  std::vector<detail::nccl::slice> slices;
  const auto checks = [&] {
    if (parts.size() != ms.size())
      fail(errc::invalid_argument, "reduce: " + std::to_string(parts.size()) +
                                       " device parts for the " + std::to_string(ms.size()) +
                                       " GPUs this process drives (one part per GPU)");
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
        fail(errc::invalid_argument, "reduce: device part " + std::to_string(i) +
                                         " is not memory of GPU " + std::to_string(ms[i].device));
      }
      slices.push_back({const_cast<void*>(p.data), 0, p.size * size_of(t)});
    }
  };
  std::uint64_t local_n = 0;
  for (const device_part& p : parts) local_n += p.size;
  const std::uint64_t total = detail::agree_on_call(
      backend::nccl, "reduce " + std::string(name_of(t)) + " " + std::string(name_of(o)), local_n,
      checks);
  return detail::together([&] {
    if (o == op::mean && total == 0)
      fail(errc::invalid_argument, "reduce: the mean of an empty input is undefined");
    detail::executor& ex = detail::executor_for(backend::nccl);
    struct wrapped {
      void* p;
      ~wrapped() { detail::nccl::release_array(p); }
    } in{detail::nccl::wrap_array(std::move(slices))};
    const detail::reduce_problem p{t, o, local_n};
    return detail::run_in_place(detail::default_rung<detail::reduce_rung>(backend::nccl, p), ex, p,
                                in.p);
  });
}

}  // namespace pplab
