#pragma once
// The registry: every rung of a pattern, on every backend built, reachable by id. Tests,
// `pplab list` and `pplab lab` walk it, so a rung is tested and measured once registered.
//
// The core names no pattern. A pattern is a module, src/<pattern>/: its rung.hpp says what a
// problem and a call of that pattern are (`using <pattern>_rung = basic_rung<Problem, Call>`),
// and each rung's file defines its record (`<pattern>_rung`: step, summary, flags, functions, by
// designated initializers; its id and backend are its file's place). The pattern's sources.cmake
// lists each backend folder's rungs in order; the build writes from those lists each folder's hook
// that adds them by explicit calls (add_ladder, below) and the file that joins the folders
// (cmake/patterns.cmake): `rungs_of<Rung>()` is defined, for each pattern, by a file that CMake
// writes with one call per backend folder compiled.
//
// The call contract, the same for every pattern: a rung says what it can run (`can_run`), how
// much scratch it needs (`scratch_bytes`, in its backend's memory; the first 256 bytes arrive
// zeroed, and a rung that counts there leaves them zero, unless the rung says it writes its
// scratch before reading it: `scratch_written_first`), and `run` enqueues its work on the
// call's stream. Inputs, outputs and scratch live in the memory of the rung's backend (host
// memory for seq and cpu, device memory for cuda); the executor of that backend
// (core/executor.hpp) puts them there.
#include <cstddef>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "pplab/backend.hpp"
#include "pplab/rung_info.hpp"

namespace pplab::detail {

using pplab::rung_info;

// One rung of any pattern. Problem says what to compute (and names its pattern:
// `static constexpr std::string_view pattern`), Call where the data is.
template <class Problem, class Call> struct basic_rung {
  using problem_type = Problem;
  using call_type = Call;
  rung_info info;
  bool (*can_run)(const Problem&) = nullptr;
  std::size_t (*scratch_bytes)(const Problem&) = nullptr;  // null: no scratch
  // True: every byte of scratch the rung reads it wrote first in the same call, so the API hands
  // it its scratch unzeroed (no memset enqueued before a short device call).
  bool scratch_written_first = false;
  void (*run)(const Call&) = nullptr;
  // What the lab notes beside the rung's row, or null: how it launches on this device (shared
  // memory, registers, resident blocks, occupancy) where that is the lesson of the rung.
  std::string (*explain)(const Problem&) = nullptr;
  std::size_t scratch(const Problem& p) const { return scratch_bytes ? scratch_bytes(p) : 0; }
};

// A folder's ladder, as its pattern's sources.cmake lists it (`<backend>_rungs`): each name is
// a rung's file, src/<pattern>/<backend>/<name>.cpp (.cu in the cuda folder), and the record that
// file defines, `<pattern>_<backend>::<name>`. The file's place is the rung's id and backend: the
// record gives neither, and the folder's hook, written by the build from the list
// (cmake/folder_ladder.cpp.in), adds each record in that order with the id
// "<pattern>/<backend>/<name>" and its folder's backend.
template <class Rung> struct named_record {
  const Rung* record;
  std::string_view id;  // "<pattern>/<backend>/<name>", from the file's place
};
template <class Rung>
void add_ladder(std::vector<Rung>& ladder, backend where,
                std::initializer_list<named_record<Rung>> records) {
  for (const named_record<Rung>& r : records) {
    if (!r.record->info.id.empty())  // the file's place says it; a record must not say otherwise
      throw std::logic_error("the record in " + std::string(r.id) + "'s file names itself " +
                             std::string(r.record->info.id));
    Rung named = *r.record;
    named.info.id = r.id;
    named.info.where = where;
    ladder.push_back(named);
  }
}

// The name of a rung type's pattern: "reduce".
template <class Rung> constexpr std::string_view pattern_of() {
  return Rung::problem_type::pattern;
}

// The rungs of one pattern on backend b, filled on first use from that backend's folder (a
// module's through its table, loading the module: core/modules.hpp). Defined per pattern by the
// build (cmake/ladder.cpp.in).
template <class Rung> const std::vector<Rung>& rungs_on(backend b);

// Every rung of one pattern, on every backend built, in backend order (seq, cpu, cuda, nccl,
// mpi): every module loaded. Defined per pattern by the build.
template <class Rung> const std::vector<Rung>& rungs_of();

// The backend an id names ("reduce/cpu/r02_..."), if it names one.
inline bool backend_of_id(std::string_view id, backend& b) {
  const std::size_t first = id.find('/'), second = id.find('/', first + 1);
  if (first == std::string_view::npos || second == std::string_view::npos) return false;
  const std::string_view name = id.substr(first + 1, second - first - 1);
  for (backend c : all_backends)
    if (name_of(c) == name) {
      b = c;
      return true;
    }
  return false;
}

// A rung by id, or null. Only the rungs of the backend the id names are asked for: finding a
// host rung loads no module.
template <class Rung> const Rung* find(std::string_view id) {
  backend b{};
  for (const Rung& r : backend_of_id(id, b) ? rungs_on<Rung>(b) : rungs_of<Rung>())
    if (r.info.id == id) return &r;
  return nullptr;
}

}  // namespace pplab::detail
