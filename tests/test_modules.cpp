// The backend modules (src/core/modules.hpp): a program that runs the host backends alone loads
// none of them, nor the libraries they bring (the CUDA runtime's cuBLAS, NCCL, Open MPI); asking
// for a backend loads its module. Its own executable, so that no other test has loaded one first.
#include <gtest/gtest.h>
#include <link.h>

#include <string>
#include <vector>

#include "core/executor.hpp"
#include "core/modules.hpp"
#include "core/registry.hpp"
#include "matmul/rung.hpp"
#include "pplab/pplab.hpp"
#include "reduce/rung.hpp"

namespace pplab::test {
namespace {

// The file names of every object loaded in this process now.
std::vector<std::string> loaded_objects() {
  std::vector<std::string> names;
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* out) {
        if (info->dlpi_name && *info->dlpi_name)
          static_cast<std::vector<std::string>*>(out)->push_back(info->dlpi_name);
        return 0;
      },
      &names);
  return names;
}

bool loaded(const std::string& part) {
  for (const std::string& name : loaded_objects())
    if (name.find(part) != std::string::npos) return true;
  return false;
}

TEST(Modules, HostCallsLoadNoModule) {
  std::vector<float> x(1000);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = float(i % 17);
  for (backend b : {backend::seq, backend::cpu}) {
    EXPECT_EQ(reduce(b, dtype::f32, x.data(), x.size(), op::sum).f, 7979.0);
    histogram_options h;
    h.bins = 17;
    h.lo = 0.0;
    h.hi = 17.0;
    EXPECT_EQ(histogram(b, dtype::f32, x.data(), x.size(), h).counts[16], 58u);
    std::vector<float> c(9);
    matmul(b, dtype::f32, 3, 3, 3, 1.0, x.data(), 3, x.data(), 3, 0.0, c.data(), 3);
    EXPECT_EQ(c[0], 0 * 0 + 1 * 3 + 2 * 6);
    const double mask[9] = {0, 0, 0, 0, 1, 0, 0, 0, 0};
    std::vector<float> out(100);
    correlate(b, dtype::f32, x.data(), 10, 10, 0, mask, 3, 3, out.data(), 0);
    EXPECT_EQ(out[42], x[42]);
  }
  for (const char* lib : {"libpplab_cuda", "libpplab_nccl", "libpplab_mpi", "libpplab_vendors",
                          "libcublas", "libmpi", "libnccl", "libopenblas", "libopencv"})
    EXPECT_FALSE(loaded(lib)) << lib << " was loaded by calls on the host backends";
  for (backend b : {backend::cuda, backend::nccl, backend::mpi})
    EXPECT_EQ(detail::backend_module_if_loaded(b), nullptr) << name_of(b);
}

// Asking for a backend loads its module where the build made one, and it answers: its rungs
// are in the ladder. Where it made none, the backend says why.
TEST(Modules, AskingForABackendLoadsItsModule) {
  for (backend b : {backend::cuda, backend::nccl, backend::mpi}) {
    const std::string why = detail::executor_for(b).why_absent();
    if (!detail::module_built(b)) {
      EXPECT_NE(why.find("this build has no"), std::string::npos) << why;
#ifdef PPLAB_CUDA_LEFT_OUT
      // The true reason the configure step left cuda out, not always "nvcc was not found".
      if (b == backend::cuda) {
        EXPECT_NE(why.find(PPLAB_CUDA_LEFT_OUT == 1   ? "PPLAB_CUDA=OFF"
                           : PPLAB_CUDA_LEFT_OUT == 2 ? "no GPU answered"
                                                      : "nvcc was not found"),
                  std::string::npos)
            << why;
      }
#endif
      EXPECT_TRUE(detail::rungs_on<detail::reduce_rung>(b).empty());
      continue;
    }
    ASSERT_NE(detail::backend_module(b), nullptr) << detail::module_why_absent(b);
    EXPECT_EQ(detail::module_why_absent(b), "");
    EXPECT_FALSE(detail::rungs_on<detail::reduce_rung>(b).empty()) << name_of(b);
    if (loaded("libpplab.so")) {  // a shared build: the module is a library of its own
      EXPECT_TRUE(loaded("libpplab_" + std::string(name_of(b)))) << name_of(b);
    }
  }
}

// A vendor baseline (OpenBLAS's m00) loads the vendors module when it runs, and answers.
TEST(Modules, AVendorBaselineLoadsItsModuleWhenItRuns) {
  if (!detail::module_built(detail::module_id::vendors) ||
      !detail::find<detail::matmul_rung>("matmul/cpu/m00_openblas"))
    GTEST_SKIP() << "this build has no OpenBLAS baseline";
  const std::vector<double> a = {1, 2, 3, 4}, b = {5, 6, 7, 8};
  std::vector<double> c(4);
  std::string ran;
  matmul(backend::cpu, dtype::f64, 2, 2, 2, 1.0, a.data(), 2, b.data(), 2, 0.0, c.data(), 2,
         {"matmul/cpu/m00_openblas", &ran});
  EXPECT_EQ(ran, "matmul/cpu/m00_openblas");
  EXPECT_EQ(c, (std::vector<double>{19, 22, 43, 50}));
  EXPECT_TRUE(loaded("libopenblas"));
}

}  // namespace
}  // namespace pplab::test
