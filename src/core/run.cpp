// The parts of the run path every pattern shares that need no pattern's types: the backend
// check, the scratch rule, and the errors of the choice.
#include "core/run.hpp"

#include <string>

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

void fail_policy_names(backend b, std::string_view id) {
  fail(errc::unsupported, "internal error: the policy of backend '" + std::string(name_of(b)) +
                              "' names '" + std::string(id) +
                              "', which is not a registered, deterministic rung of it");
}

void fail_no_rung_can_run(std::string_view pattern, backend b) {
  const std::string what(pattern);
  fail(errc::unsupported, "no " + what + " rung of backend '" + std::string(name_of(b)) +
                              "' can run this problem (see `pplab list " + what + "`)");
}

void fail_no_such_rung(std::string_view pattern, std::string_view id) {
  const std::string what(pattern);
  fail(errc::invalid_argument,
       "no " + what + " rung '" + std::string(id) + "' (see `pplab list " + what + "`)");
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
