#include "core/device.hpp"
#include "pplab/backend.hpp"

namespace pplab {

bool available(backend b) {
  switch (b) {
    case backend::seq:
    case backend::cpu: return true;
    case backend::cuda: return detail::gpu().present;
    default: return false;
  }
}

#ifndef PPLAB_HAVE_CUDA
const detail::gpu_info& detail::gpu() {
  static const gpu_info none = [] {
    gpu_info g;
    g.why_absent = "this build has no CUDA backend (nvcc was not found)";
    return g;
  }();
  return none;
}
#endif

}  // namespace pplab
