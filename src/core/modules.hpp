#pragma once
// The backends that bring their own libraries (cuda: the CUDA runtime, cuBLAS, NPP; nccl: NCCL;
// mpi: Open MPI) are modules: with a shared libpplab each is a library of its own
// (libpplab_cuda.so, libpplab_nccl.so, libpplab_mpi.so) that libpplab loads from its own folder
// the first time that backend is asked for, so a program that runs seq and cpu alone loads none
// of them. So are the host's vendor libraries (OpenBLAS, OpenCV), in the `vendors` module
// (libpplab_vendors.so): their baseline rungs are registered by the core, and call into the module
// when they run. In a static libpplab the modules are linked in and found the same way.
//
// A module gives the core a table of named functions (`module_exports`), filled by its one entry
// point, `pplab_module_<backend>` (cmake/module.cpp.in writes it): the register hook of each
// pattern's folder for that backend, and what the backend's own folder and the patterns add
// (src/core/<backend>/exports.cpp, a pattern's `<backend>_exports`). The core reaches a module
// only through that table: the forwarders in src/core/<backend>_forward.cpp, the ladders'
// `add_module_rungs`, and a pattern's own forwarders.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pplab/backend.hpp"

namespace pplab::detail {

// Raised when the table's layout changes: a module built for another libpplab is not used.
inline constexpr int module_abi = 1;

struct module_exports {
  using function = void (*)();
  int abi = module_abi;
  std::string version;  // the pplab version it was built with
  std::map<std::string, function, std::less<>> functions;
  template <class F> void add(std::string name, F* f) {
    functions.emplace(std::move(name), reinterpret_cast<function>(f));
  }
};

// The modules: one per backend with libraries of its own, and the host's vendor libraries.
enum class module_id { cuda, nccl, mpi, vendors };
std::string_view name_of(module_id m) noexcept;
// Backend b's module, or none for a backend of the host (seq, cpu: libpplab itself).
std::optional<module_id> module_of(backend b) noexcept;

// Whether this build made module m.
bool module_built(module_id m);
// Module m, loaded on first use; null if this build has none or it cannot be loaded (then
// module_why_absent says why). Thread-safe.
const module_exports* load_module(module_id m);
// The same without loading it: null until something asked for it (or, unless linked in, until it
// is in memory).
const module_exports* module_if_loaded(module_id m);
// Why load_module(m) is null: the file that was not found or not loaded, and the loader's words;
// empty when it loaded.
std::string module_why_absent(module_id m);

// The same, by the backend whose module it is.
inline bool module_built(backend b) {
  const std::optional<module_id> m = module_of(b);
  return m && module_built(*m);
}
inline const module_exports* backend_module(backend b) {
  const std::optional<module_id> m = module_of(b);
  return m ? load_module(*m) : nullptr;
}
inline const module_exports* backend_module_if_loaded(backend b) {
  const std::optional<module_id> m = module_of(b);
  return m ? module_if_loaded(*m) : nullptr;
}
inline std::string module_why_absent(backend b) {
  const std::optional<module_id> m = module_of(b);
  return m ? module_why_absent(*m) : std::string();
}

// Function `name` of module m as a pointer of type F*, or null (no module, or no such name).
template <class F> F* module_function(module_id m_id, std::string_view name) {
  const module_exports* m = load_module(m_id);
  if (!m) return nullptr;
  const auto it = m->functions.find(name);
  return it == m->functions.end() ? nullptr : reinterpret_cast<F*>(it->second);
}
template <class F> F* module_function(backend b, std::string_view name) {
  const std::optional<module_id> m = module_of(b);
  return m ? module_function<F>(*m, name) : nullptr;
}

// Function `name` of the vendors module, which must be there: else pplab::error (unsupported)
// saying why (a vendor baseline's rung runs it).
[[noreturn]] void fail_no_vendor_function(std::string_view name);
template <class F> F* vendor_function(std::string_view name) {
  if (F* f = module_function<F>(module_id::vendors, name)) return f;
  fail_no_vendor_function(name);
}

// A pattern's rungs on a module's backend: its register hook (`hook`, e.g.
// "register_reduce_cuda") called on `all`, if the module has loaded.
template <class Rung>
void add_module_rungs(backend b, std::string_view hook, std::vector<Rung>& all) {
  if (auto* add = module_function<void(std::vector<Rung>&)>(b, hook)) add(all);
}

}  // namespace pplab::detail
