// The loader of the modules (core/modules.hpp). CMake says which modules this build made and
// how: PPLAB_MODULE_<M>_FILE, the file of a module built as a library of its own (loaded from
// libpplab's own folder, or else wherever the dynamic loader looks), or PPLAB_MODULE_<M>_LINKED,
// a module linked into libpplab (a static build).
#include "core/modules.hpp"

#include <dlfcn.h>

#include <atomic>
#include <filesystem>
#include <mutex>

#include "pplab/error.hpp"

// The entries of the modules linked into this library.
#ifdef PPLAB_MODULE_CUDA_LINKED
extern "C" const pplab::detail::module_exports* pplab_module_cuda();
#endif
#ifdef PPLAB_MODULE_NCCL_LINKED
extern "C" const pplab::detail::module_exports* pplab_module_nccl();
#endif
#ifdef PPLAB_MODULE_MPI_LINKED
extern "C" const pplab::detail::module_exports* pplab_module_mpi();
#endif
#ifdef PPLAB_MODULE_VENDORS_LINKED
extern "C" const pplab::detail::module_exports* pplab_module_vendors();
#endif

namespace pplab::detail {
namespace {

// One module: tried once (under the mutex), then read without it.
struct module_slot {
  std::mutex mutex;
  std::atomic<bool> tried{false};
  const module_exports* exports = nullptr;  // written before `tried`
  std::string why;
};

module_slot& slot(module_id m) {
  static module_slot slots[4];
  return slots[static_cast<int>(m)];
}

using entry_fn = const module_exports* (*)();

// A module linked into this library: its entry; else null.
entry_fn linked_entry(module_id m) {
  switch (m) {
#ifdef PPLAB_MODULE_CUDA_LINKED
  case module_id::cuda:
    return &pplab_module_cuda;
#endif
#ifdef PPLAB_MODULE_NCCL_LINKED
  case module_id::nccl:
    return &pplab_module_nccl;
#endif
#ifdef PPLAB_MODULE_MPI_LINKED
  case module_id::mpi:
    return &pplab_module_mpi;
#endif
#ifdef PPLAB_MODULE_VENDORS_LINKED
  case module_id::vendors:
    return &pplab_module_vendors;
#endif
  default:
    return nullptr;
  }
}

// The file of a module built as a library of its own; else null.
const char* module_file(module_id m) {
  switch (m) {
#ifdef PPLAB_MODULE_CUDA_FILE
  case module_id::cuda:
    return PPLAB_MODULE_CUDA_FILE;
#endif
#ifdef PPLAB_MODULE_NCCL_FILE
  case module_id::nccl:
    return PPLAB_MODULE_NCCL_FILE;
#endif
#ifdef PPLAB_MODULE_MPI_FILE
  case module_id::mpi:
    return PPLAB_MODULE_MPI_FILE;
#endif
#ifdef PPLAB_MODULE_VENDORS_FILE
  case module_id::vendors:
    return PPLAB_MODULE_VENDORS_FILE;
#endif
  default:
    return nullptr;
  }
}

// The folder this library was loaded from: where its modules are, built or installed.
std::filesystem::path own_folder() {
  Dl_info info{};
  if (!dladdr(reinterpret_cast<void*>(&own_folder), &info) || !info.dli_fname) return {};
  return std::filesystem::path(info.dli_fname).parent_path();
}

std::string entry_name(module_id m) { return "pplab_module_" + std::string(name_of(m)); }

bool fits(const module_exports* e) {
  return e && e->abi == module_abi && e->version == PPLAB_VERSION;
}

void load(module_id m, module_slot& s) {
  entry_fn entry = linked_entry(m);
  const std::string what = "the " + std::string(name_of(m)) + " module ";
  if (!entry) {
    const char* file = module_file(m);
    if (!file) return;
    // Beside libpplab first (the build tree, an installed prefix); then the loader's own search
    // (LD_LIBRARY_PATH, the program's run path). RTLD_LOCAL: nothing a module brings (the CUDA
    // runtime, Open MPI) may stand in for a library the program loads later (PyTorch's and
    // CuPy's CUDA runtime, in the same Python process).
    const std::filesystem::path beside = own_folder() / file;
    void* h = dlopen(beside.c_str(), RTLD_NOW | RTLD_LOCAL);
    std::string first_error;
    if (!h) {
      const char* e = dlerror();
      first_error = e ? e : "unknown error";
      h = dlopen(file, RTLD_NOW | RTLD_LOCAL);
    }
    if (!h) {
      const char* e = dlerror();
      std::error_code ec;
      s.why =
          what + file + " could not be loaded (" +
          (std::filesystem::exists(beside, ec) ? first_error : std::string(e ? e : "not found")) +
          ")";
      return;
    }
    entry = reinterpret_cast<entry_fn>(dlsym(h, entry_name(m).c_str()));
    if (!entry) {
      s.why = what + file + " has no " + entry_name(m) + ": not a pplab module";
      return;
    }
  }
  const module_exports* e = entry();
  if (!fits(e)) {
    s.why = what + "was built for another pplab (" + (e ? e->version : std::string("?")) +
            ", this is " + PPLAB_VERSION + ")";
    return;
  }
  s.exports = e;
}

}  // namespace

std::string_view name_of(module_id m) noexcept {
  switch (m) {
  case module_id::cuda:
    return "cuda";
  case module_id::nccl:
    return "nccl";
  case module_id::mpi:
    return "mpi";
  case module_id::vendors:
    return "vendors";
  }
  return "?";
}

std::optional<module_id> module_of(backend b) noexcept {
  switch (b) {
  case backend::seq:
  case backend::cpu:
    return std::nullopt;
  case backend::cuda:
    return module_id::cuda;
  case backend::nccl:
    return module_id::nccl;
  case backend::mpi:
    return module_id::mpi;
  }
  return std::nullopt;  // not a backend: no module
}

bool module_built(module_id m) { return linked_entry(m) || module_file(m); }

const module_exports* load_module(module_id m) {
  module_slot& s = slot(m);
  if (!s.tried.load(std::memory_order_acquire)) {
    std::lock_guard lock(s.mutex);
    if (!s.tried.load(std::memory_order_relaxed)) {
      load(m, s);
      s.tried.store(true, std::memory_order_release);
    }
  }
  return s.exports;
}

const module_exports* module_if_loaded(module_id m) {
  module_slot& s = slot(m);
  if (s.tried.load(std::memory_order_acquire)) return s.exports;
  // Not asked for through the core, but maybe in memory already: linked in, or linked by the
  // program itself (a program that calls pplab::use_mpi_communicator links libpplab_mpi).
  const char* file = module_file(m);
  if (linked_entry(m) || (file && dlopen(file, RTLD_NOW | RTLD_NOLOAD))) return load_module(m);
  return nullptr;
}

std::string module_why_absent(module_id m) { return load_module(m) ? std::string() : slot(m).why; }

void fail_no_vendor_function(std::string_view name) {
  const std::string why = !module_built(module_id::vendors) ? "this build has no vendors module"
                          : load_module(module_id::vendors) ? "its module does not have it"
                                                            : module_why_absent(module_id::vendors);
  fail(errc::unsupported,
       "this build's vendor baseline " + std::string(name) + " cannot run: " + why);
}

}  // namespace pplab::detail
