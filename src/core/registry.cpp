#include "core/registry.hpp"

#include <string>

#include "core/device.hpp"

namespace pplab::detail {

const registry& rungs() {
  static const registry r = [] {
    registry out;
    register_reduce_seq(out);
    register_reduce_cpu(out);
    register_histogram_seq(out);
    register_histogram_cpu(out);
    register_matmul_seq(out);
    register_matmul_cpu(out);
#ifdef PPLAB_HAVE_OPENBLAS
    register_matmul_openblas(out);
#endif
#ifdef PPLAB_HAVE_CUDA
    register_reduce_cuda(out);
#endif
    return out;
  }();
  return r;
}

namespace {

template <class Rung> const Rung* find_in(const std::vector<Rung>& list, std::string_view id) {
  for (const Rung& r : list)
    if (r.info.id == id) return &r;
  return nullptr;
}

template <class Rung, class Problem>
const Rung& pick_in(const std::vector<Rung>& list, backend b, const Problem& p, pattern what) {
  // First choice: the highest rung that can run and suits; failing that, the highest that runs.
  const Rung* best = nullptr;
  const Rung* fallback = nullptr;
  for (const Rung& r : list) {
    if (r.info.where != b || r.info.rung < 1 || r.info.racy || !r.can_run(p)) continue;
    if (!fallback || r.info.rung > fallback->info.rung) fallback = &r;
    if constexpr (requires { r.suits; })
      if (r.suits && !r.suits(p)) continue;
    if (!best || r.info.rung > best->info.rung) best = &r;
  }
  if (!best) best = fallback;
  if (!best)
    fail(errc::unsupported, std::string("no ") + std::string(name_of(what)) + " rung of backend '" +
                                std::string(name_of(b)) +
                                "' can run this problem (see `pplab list`)");
  return *best;
}

}  // namespace

const reduce_rung* find_reduce(std::string_view id) { return find_in(rungs().reduce, id); }
const histogram_rung* find_histogram(std::string_view id) { return find_in(rungs().histogram, id); }
const matmul_rung* find_matmul(std::string_view id) { return find_in(rungs().matmul, id); }

const reduce_rung& pick_reduce(backend b, const reduce_problem& p) {
  return pick_in(rungs().reduce, b, p, pattern::reduce);
}
const histogram_rung& pick_histogram(backend b, const histogram_problem& p) {
  return pick_in(rungs().histogram, b, p, pattern::histogram);
}
const matmul_rung& pick_matmul(backend b, const matmul_problem& p) {
  return pick_in(rungs().matmul, b, p, pattern::matmul);
}

}  // namespace pplab::detail
