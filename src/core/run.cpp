// The parts of the run path every pattern shares: the backend check, the policy's pick, and the
// lookup of a rung by id.
#include "core/run.hpp"

#include <optional>
#include <string>
#include <vector>

#include "pplab/error.hpp"

namespace pplab {
bool available(backend b) { return detail::executor_for(b).usable(); }
}  // namespace pplab

namespace pplab::detail {

void require_backend(backend b) {
  const std::string why = executor_for(b).why_absent();
  if (!why.empty())
    fail(errc::unsupported, "backend '" + std::string(name_of(b)) + "' is not usable here: " + why);
}

bool scratch_fits(std::size_t scratch, const std::function<std::size_t()>& free_bytes) {
  if (scratch <= never_in_doubt) return true;
  const std::size_t free = free_bytes();
  return free >= never_in_doubt && scratch <= free - never_in_doubt;
}

template <class Rung> const Rung& default_rung(backend b, const typename Rung::problem_type& p) {
  std::optional<std::size_t> free;  // asked once, and only for a large scratch
  return default_rung_within<Rung>(b, p, [&] {
    if (!free) free = executor_for(b).free_bytes();
    return *free;
  });
}

template <class Rung>
const Rung& default_rung_within(backend b, const typename Rung::problem_type& p,
                                const std::function<std::size_t()>& free_bytes) {
  const Rung* runnable = nullptr;  // the first that can run p, fitting or not
  for (std::string_view id : policy(b, p)) {
    const Rung* r = find<Rung>(id);
    if (!r || r->info.where != b || r->info.rung < 1 || r->info.racy || !r->info.reproducible)
      fail(errc::unsupported, "internal error: the policy of backend '" + std::string(name_of(b)) +
                                  "' names '" + std::string(id) +
                                  "', which is not a registered, deterministic rung of it");
    if (!r->can_run(p)) continue;
    if (scratch_fits(r->scratch(p), free_bytes)) return *r;
    if (!runnable) runnable = r;
  }
  if (runnable) return *runnable;
  const std::string what(name_of(pattern_of<Rung>()));
  fail(errc::unsupported, "no " + what + " rung of backend '" + std::string(name_of(b)) +
                              "' can run this problem (see `pplab list " + what + "`)");
}

// A rung by its whole id, or by the end of one after a '/' ("m14_f32_split_tf32",
// "cuda/m14_f32_split_tf32") where only one id ends so.
template <class Rung> const Rung* find_by_id_or_end(std::string_view id, const std::string& what) {
  if (const Rung* r = find<Rung>(id)) return r;
  std::vector<const Rung*> ends;
  for (const Rung& r : rungs_of<Rung>()) {
    const std::string_view full = r.info.id;
    if (!id.empty() && full.size() > id.size() && full.ends_with(id) &&
        full[full.size() - id.size() - 1] == '/')
      ends.push_back(&r);
  }
  if (ends.size() > 1) {
    std::string all;
    for (const Rung* r : ends) all += (all.empty() ? "" : ", ") + std::string(r->info.id);
    fail(errc::invalid_argument, "rung '" + std::string(id) + "' is ambiguous: " + all +
                                     "; give the whole id (see `pplab list " + what + "`)");
  }
  return ends.empty() ? nullptr : ends.front();
}

template <class Rung>
const Rung& variant_by_id(std::string_view id, const typename Rung::problem_type& p) {
  const std::string what(name_of(pattern_of<Rung>()));
  const Rung* r = find_by_id_or_end<Rung>(id, what);
  if (!r)
    fail(errc::invalid_argument,
         "no " + what + " rung '" + std::string(id) + "' (see `pplab list " + what + "`)");
  require_backend(r->info.where);
  if (!r->can_run(p)) fail(errc::unsupported, std::string(id) + " cannot run this problem");
  return *r;
}

template const reduce_rung& default_rung_within<reduce_rung>(backend, const reduce_problem&,
                                                             const std::function<std::size_t()>&);
template const histogram_rung&
default_rung_within<histogram_rung>(backend, const histogram_problem&,
                                    const std::function<std::size_t()>&);
template const matmul_rung& default_rung_within<matmul_rung>(backend, const matmul_problem&,
                                                             const std::function<std::size_t()>&);
template const reduce_rung& default_rung<reduce_rung>(backend, const reduce_problem&);
template const histogram_rung& default_rung<histogram_rung>(backend, const histogram_problem&);
template const matmul_rung& default_rung<matmul_rung>(backend, const matmul_problem&);
template const reduce_rung& variant_by_id<reduce_rung>(std::string_view, const reduce_problem&);
template const histogram_rung& variant_by_id<histogram_rung>(std::string_view,
                                                             const histogram_problem&);
template const matmul_rung& variant_by_id<matmul_rung>(std::string_view, const matmul_problem&);

}  // namespace pplab::detail
