// The pieces of a histogram of host data with an inferred range on the GPU, each timed alone
// (median of repeats, wall clock around the whole call) beside the whole call: the staged copy
// in, stream_in with no work, the device-resident histogram (its min, max and counts), one
// device min, a 1 GiB allocation, and the API call. Says where the time over the copy goes.
// Usage: host_data_pieces [log2 n of f32, default 28]
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "core/executor.hpp"
#include "core/generate.hpp"
#include "core/timing.hpp"
#include "pplab/device.hpp"
#include "pplab/pplab.hpp"

using namespace pplab;

int main(int argc, char** argv) {
  if (!available(backend::cuda)) {
    std::printf("no GPU: %s\n", detail::executor_for(backend::cuda).why_absent().c_str());
    return 0;
  }
  const std::size_t n = std::size_t(1) << (argc > 1 ? std::atoi(argv[1]) : 28), bytes = n * 4;
  std::vector<float> host(n);
  detail::generate(dtype::f32, host.data(), n, detail::distribution::uniform, 7);
  detail::executor& ex = detail::executor_for(backend::cuda);
  detail::buffer dev(ex, bytes);
  histogram_options o;
  o.bins = 1024;
  const auto show = [&](const char* what, auto&& run) {
    const detail::timing t = detail::time_it(run, 7, 1.0);
    std::printf("%-44s %9.3f ms  %7.1f GB/s of the data\n", what, t.median_s * 1e3,
                bytes / t.median_s * 1e-9);
  };
  show("copy_in, staged through pinned chunks", [&] { ex.copy_in(dev.get(), host.data(), bytes); });
  show("stream_in, no work on the chunks", [&] {
    ex.stream_in(
        host.data(), bytes, std::size_t(64) << 20,
        [](const void*, std::size_t, std::size_t, int, void*) {}, [](int) {});
  });
  show("allocate and free the data's size", [&] { detail::buffer b(ex, bytes); });
  show("device min (reduce_device)", [&] { reduce_device(dtype::f32, dev.get(), n, op::min); });
  show("device histogram, range inferred", [&] { histogram_device(dtype::f32, dev.get(), n, o); });
  show("the API call on host data, range inferred",
       [&] { histogram(backend::cuda, dtype::f32, host.data(), n, o); });
  return 0;
}
