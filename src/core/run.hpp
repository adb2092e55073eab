#pragma once
// The run path every pattern shares: the backend check, the agreement of a job's ranks on a
// call, the policy's pick of the API's rung, and the lookup of a rung by id. Each pattern's
// api.cpp adds its own `run_rung` (host data through the executor of the rung's backend) and
// declares its `policy` in its rung.hpp.
//
// The API's rung is an explicit policy per backend and problem (`policy(backend, problem)`, in
// each pattern's policy.cpp), separate from the ladder's numbering: an ordered list of rung ids,
// of which the first that can run the problem is used. A policy that names a racy,
// non-reproducible, opt-in or baseline rung is a bug, refused here.
#include <cstdint>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/executor.hpp"
#include "core/registry.hpp"

namespace pplab::detail {

// Throws pplab::error (unsupported) with the reason when backend b is not usable here.
void require_backend(backend b);

// The start of every API call: runs `checks` (this process's own checks of its arguments), then
// agrees with the other ranks of backend b's job, if it has any, on their outcome and on
// `signature` (executor::agree_on_call); returns the length of all the ranks' parts together.
// A single process: the checks' error is thrown as it is, and the answer is `n`.
template <class Checks>
std::uint64_t agree_on_call(backend b, const std::string& signature, std::uint64_t n,
                            Checks&& checks) {
  std::exception_ptr failed;
  try {
    checks();
  } catch (...) {
    failed = std::current_exception();
  }
  return executor_for(b).agree_on_call(signature, n, failed);
}

using pplab::together;

// Whether `scratch` bytes can be had: up to `never_in_doubt` always (the data and the results
// need that much room anyway, and most rungs' scratch is that small, so no device query is made
// for them); above it, if they leave `never_in_doubt` of free_bytes() (asked only then).
constexpr std::size_t never_in_doubt = std::size_t(64) << 20;
bool scratch_fits(std::size_t scratch, const std::function<std::size_t()>& free_bytes);

// Errors of the choice, worded once for every pattern.
[[noreturn]] void fail_policy_names(backend b, std::string_view id);
[[noreturn]] void fail_no_rung_can_run(std::string_view pattern, backend b);
[[noreturn]] void fail_no_such_rung(std::string_view pattern, std::string_view id);
[[noreturn]] void fail_ambiguous_rung(std::string_view pattern, std::string_view id,
                                      const std::string& all);
[[noreturn]] void fail_cannot_run(std::string_view id);
[[noreturn]] void fail_other_backend(std::string_view id, backend its, backend asked);

// A size as a tune key gives it: "2^k" for 2^k <= n < 2^(k+1) ("0" for none), so that a tuned
// choice serves every size within a factor of two of the one measured.
inline std::string size_class(std::size_t n) {
  int k = -1;
  for (std::size_t v = n; v; v >>= 1) ++k;
  return k < 0 ? std::string("0") : "2^" + std::to_string(k);
}

// The rung `pplab tune` measured fastest on this machine for p's class of problem (its pattern's
// tune_key) on backend b, or empty (pplab/tuning.hpp; src/core/tuning.cpp).
// The key is built only where a choice file holds choices.
std::string tuned_rung(std::string_view pattern, backend b,
                       const std::function<std::string()>& key);

// The free memory of b's executor as the choices below ask it: once, and only when a large
// scratch needs it (scratch_fits), so that a call whose rungs need little never asks the device.
inline std::function<std::size_t()> free_bytes_when_asked(backend b) {
  return [b, free = std::optional<std::size_t>()]() mutable {
    if (!free) free = executor_for(b).free_bytes();
    return *free;
  };
}

// Of the rungs `ids` names (`named(id)`: the rung, or null to pass it by), the first that can run
// p and whose scratch fits the free memory; if none fits, the first that can run p (its
// allocation then says how much memory it lacked); null if none can. The API's choice (below) and
// the variants that name a precision (split_tf32) walk their lists with it.
template <class Rung, class Named>
const Rung* first_fitting(const std::vector<std::string_view>& ids,
                          const typename Rung::problem_type& p,
                          const std::function<std::size_t()>& free_bytes, Named named) {
  const Rung* runnable = nullptr;
  for (std::string_view id : ids) {
    const Rung* r = named(id);
    if (!r || !r->can_run(p)) continue;
    if (scratch_fits(r->scratch(p), free_bytes)) return r;
    if (!runnable) runnable = r;
  }
  return runnable;
}

// The rung the API runs for backend b, with the free memory told (the tests' way to see the
// choice on a full device): the tuned rung for p's class when there is one that can run p and
// whose scratch fits (it may be a vendor baseline; never a rung the API may not run unasked,
// rung_info::api_may_run);
// else the policy's first rung that can run p and whose scratch fits; if none fits, the first
// that can run p (its allocation then says how much memory it lacked).
template <class Rung>
const Rung& default_rung_within(backend b, const typename Rung::problem_type& p,
                                const std::function<std::size_t()>& free_bytes) {
  if (const std::string id = tuned_rung(pattern_of<Rung>(), b, [&] { return tune_key(p); });
      !id.empty()) {
    const Rung* r = find<Rung>(id);  // a rung this build lacks: the policy instead
    if (r && r->info.where == b && r->info.api_may_run() && r->can_run(p) &&
        scratch_fits(r->scratch(p), free_bytes))
      return *r;
  }
  const Rung* r = first_fitting<Rung>(policy(b, p), p, free_bytes, [&](std::string_view id) {
    const Rung* named = find<Rung>(id);
    if (!named || named->info.where != b || named->info.step < 0 || !named->info.api_may_run())
      fail_policy_names(b, id);
    return named;
  });
  if (r) return *r;
  fail_no_rung_can_run(pattern_of<Rung>(), b);
}

// The same, the free memory asked of b's executor (once, and only for a large scratch).
template <class Rung> const Rung& default_rung(backend b, const typename Rung::problem_type& p) {
  return default_rung_within<Rung>(b, p, free_bytes_when_asked(b));
}

// Scratch for rung r on problem p: none for a rung without a scratch function (the call
// contract's "null: no scratch", core/registry.hpp: such a rung never reads its scratch), else
// scratch_for's; a rung that writes its scratch before reading it (`scratch_written_first`) gets
// the bytes it asks for unzeroed, and none where it asks for none. Spares a device call an
// allocation, a wait and a memset.
template <class Rung>
buffer scratch_of(executor& ex, const Rung& r, const typename Rung::problem_type& p) {
  if (!r.scratch_bytes) return buffer();
  if (!r.scratch_written_first) return scratch_for(ex, r.scratch(p));
  const std::size_t bytes = r.scratch(p);
  return bytes ? buffer::in_stream_order(ex, bytes) : buffer();
}

// Of `items` (rungs, or their descriptions: `info_of(item)` gives the rung_info), the one whose
// whole id is `id`, or else whose id ends in `id` after a '/' ("m14_f32_split_tf32",
// "cuda/m14_f32_split_tf32") where only one does; null when none does. Several: an error.
template <class T, class InfoOf>
const T* by_id_or_end(const std::vector<T>& items, std::string_view pattern, std::string_view id,
                      InfoOf info_of) {
  std::vector<const T*> ends;
  for (const T& item : items) {
    const std::string_view full = info_of(item).id;
    if (full == id) return &item;
    if (!id.empty() && full.size() > id.size() && full.ends_with(id) &&
        full[full.size() - id.size() - 1] == '/')
      ends.push_back(&item);
  }
  if (ends.size() > 1) {
    std::string all;
    for (const T* e : ends) all += (all.empty() ? "" : ", ") + std::string(info_of(*e).id);
    fail_ambiguous_rung(pattern, id, all);
  }
  return ends.empty() ? nullptr : ends.front();
}

template <class Rung> const Rung* find_by_id_or_end(std::string_view id) {
  return by_id_or_end(rungs_of<Rung>(), pattern_of<Rung>(), id,
                      [](const Rung& r) -> const rung_info& { return r.info; });
}

// A rung named by the user (--rung): it exists, its backend is usable, it can run p.
template <class Rung>
const Rung& rung_by_id(std::string_view id, const typename Rung::problem_type& p) {
  const Rung* r = find_by_id_or_end<Rung>(id);
  if (!r) fail_no_such_rung(pattern_of<Rung>(), id);
  require_backend(r->info.where);
  if (!r->can_run(p)) fail_cannot_run(id);
  return *r;
}

// The rung a call runs on backend b: the one `how` names (which must be of backend b), or the
// policy's pick; its id told to `how.ran`.
template <class Rung>
const Rung& chosen_rung(backend b, const typename Rung::problem_type& p, const rung_choice& how) {
  const Rung& r = how.rung.empty() ? default_rung<Rung>(b, p) : rung_by_id<Rung>(how.rung, p);
  if (r.info.where != b) fail_other_backend(r.info.id, r.info.where, b);
  if (how.ran) *how.ran = r.info.id;
  return r;
}

}  // namespace pplab::detail
