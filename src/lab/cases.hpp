#pragma once
// The patterns this build has, each with its rungs and its lab case: the one list that the lab,
// `pplab list` and `pplab info` walk. The build writes it (cmake/patterns.cmake), so a new pattern
// is added by its module and its case, src/lab/<pattern>_case.cpp, and by nothing here.
#include <string>
#include <string_view>
#include <vector>

#include "core/registry.hpp"
#include "pplab/lab.hpp"

namespace pplab::lab {

class session;

struct pattern_case {
  std::string_view pattern;                              // "reduce"
  std::vector<detail::rung_info> (*rungs)();             // its registered rungs, in order
  void (*run)(session&);                                 // its case: problems x backends x rungs
  std::vector<std::string> (*planned)(const settings&);  // the rung ids its case would run
};

// In the order the build adds the patterns.
const std::vector<pattern_case>& pattern_cases();

template <class Rung> std::vector<detail::rung_info> infos_of() {
  std::vector<detail::rung_info> out;
  for (const Rung& r : detail::rungs_of<Rung>()) out.push_back(r.info);
  return out;
}

}  // namespace pplab::lab
