#include "matmul/matmul_common.hpp"

namespace pplab::detail {

void matmul_cpu_m01(const matmul_call&);
void matmul_cpu_m02(const matmul_call&);
void matmul_cpu_m03(const matmul_call&);
#ifdef PPLAB_HAVE_OPENBLAS
void register_matmul_openblas(
    std::vector<matmul_rung>&);  // m00_openblas.cpp, built when OpenBLAS is found
#endif

void register_matmul_cpu(std::vector<matmul_rung>& r) {
  r.push_back({{"matmul/cpu/m01_loop_order_ikj", backend::cpu, 1,
                "i-k-j order: unit stride along rows of B and C, rows over threads"},
               float_or_double,
               nullptr,
               matmul_cpu_m01});
  r.push_back({{"matmul/cpu/m02_cache_tiled", backend::cpu, 2,
                "64x64 tiles: each block of B reused from cache 64 times"},
               float_or_double,
               nullptr,
               matmul_cpu_m02});
  r.push_back({{"matmul/cpu/m03_packed_microkernel", backend::cpu, 3,
                "packed panels and a 6x16 register-blocked FMA micro-kernel"},
               float_or_double,
               nullptr,
               matmul_cpu_m03});
#ifdef PPLAB_HAVE_OPENBLAS
  register_matmul_openblas(r);
#endif
}

}  // namespace pplab::detail
