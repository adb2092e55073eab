// The parts of the run path every pattern shares that need no pattern's types: the backend
// check, the scratch rule, and the errors of the choice.
#include "core/run.hpp"

#include <stdexcept>
#include <string>

#include "core/ceilings.hpp"
#include "core/device.hpp"
#include "pplab/error.hpp"

namespace pplab {

bool available(backend b) { return detail::executor_for(b).usable(); }
void require(backend b) { detail::require_backend(b); }

cpu_facts machine_cpu() { return detail::cpu(); }
const gpu_info& machine_gpu() { return detail::gpu(); }
std::string describe(backend b) { return detail::executor_for(b).describe(); }
std::string why_absent(backend b) { return detail::executor_for(b).why_absent(); }
std::vector<ceiling> measure_ceilings(backend b, std::size_t bytes, double budget_s) {
  return detail::executor_for(b).measure_ceilings(bytes, budget_s);
}

int job_rank(backend b) { return detail::executor_for(b).rank(); }
int job_ranks(backend b) { return detail::executor_for(b).ranks(); }
std::uint64_t agree(backend b, const std::string& signature, std::uint64_t local_n,
                    const std::exception_ptr& local_error) {
  return detail::executor_for(b).agree_on_call(signature, local_n, local_error);
}
std::vector<std::byte> gather_to_root(backend b, const void* mine, std::size_t bytes) {
  return detail::executor_for(b).gather_to_root(mine, bytes);
}

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

void fail_policy_names(backend b, std::string_view id) {
  fail(errc::unsupported, "internal error: the policy of backend '" + std::string(name_of(b)) +
                              "' names '" + std::string(id) +
                              "', which is not a registered, deterministic rung of it "
                              "(a vendor's rung that may be absent is named only where built)");
}

void unknown_backend(backend b) {
  throw std::logic_error("pplab: backend value " + std::to_string(int(b)) +
                         " is not in pplab::backend's table");
}

void fail_no_rung_can_run(std::string_view pattern, backend b) {
  const std::string what(pattern);
  fail(errc::unsupported, "no " + what + " rung of backend '" + std::string(name_of(b)) +
                              "' can run this problem (see `pplab list " + what + "`)");
}

void fail_no_such_rung(std::string_view pattern, std::string_view id) {
  const std::string what(pattern);
  fail(errc::invalid_argument, "no " + what + " rung '" + std::string(id) +
                                   "' (the rungs: pplab.rungs('" + what +
                                   "') in Python, `pplab list " + what + "` on the command line)");
}

void fail_ambiguous_rung(std::string_view pattern, std::string_view id, const std::string& all) {
  fail(errc::invalid_argument, "rung '" + std::string(id) + "' is ambiguous: " + all +
                                   "; give the whole id (see `pplab list " + std::string(pattern) +
                                   "`)");
}

void fail_other_backend(std::string_view id, backend its, backend asked) {
  fail(errc::invalid_argument, std::string(id) + " is a rung of backend '" +
                                   std::string(name_of(its)) + "', not of '" +
                                   std::string(name_of(asked)) + "'; call it with backend '" +
                                   std::string(name_of(its)) + "'");
}

void fail_cannot_run(std::string_view id) {
  fail(errc::unsupported, std::string(id) + " cannot run this problem");
}

}  // namespace pplab::detail
