#pragma once
// The host executor (seq and cpu), and the stand-in for a backend this build or machine lacks.
#include "core/executor.hpp"

namespace pplab::detail {

class host_executor final : public executor {
public:
  explicit host_executor(backend b) : kind_(b) {}
  backend kind() const noexcept override { return kind_; }
  std::string why_absent() const override { return {}; }
  std::string describe() const override;
  bool host_memory() const noexcept override { return true; }
  void* allocate(std::size_t bytes) override;
  void release(void* p) noexcept override;
  void copy_in(void* dst, const void* src, std::size_t bytes) override;
  void copy_out(void* dst, const void* src, std::size_t bytes) override;
  void copy_rows_in(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch,
                    std::size_t row_bytes, std::size_t rows) override;
  void copy_rows_out(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch,
                     std::size_t row_bytes, std::size_t rows) override;
  void fill(void* dst, int byte, std::size_t bytes) override;
  void* stream() override { return nullptr; }
  void synchronize() override {}
  timing time(const std::function<void()>& work, const time_plan& plan) override;
  std::vector<ceiling> measure_ceilings(std::size_t bytes, double budget_s) override;
  double read_GBps(std::size_t bytes, double budget_s) override;

private:
  backend kind_;
};

// A backend that cannot run here: every use throws pplab::error with the reason.
class absent_executor final : public executor {
public:
  absent_executor(backend b, std::string why) : kind_(b), why_(std::move(why)) {}
  backend kind() const noexcept override { return kind_; }
  std::string why_absent() const override { return why_; }
  std::string describe() const override { return "absent: " + why_; }
  bool host_memory() const noexcept override { return false; }
  void* allocate(std::size_t) override { fail_absent(); }
  void release(void*) noexcept override {}
  void copy_in(void*, const void*, std::size_t) override { fail_absent(); }
  void copy_out(void*, const void*, std::size_t) override { fail_absent(); }
  void copy_rows_in(void*, std::size_t, const void*, std::size_t, std::size_t,
                    std::size_t) override {
    fail_absent();
  }
  void copy_rows_out(void*, std::size_t, const void*, std::size_t, std::size_t,
                     std::size_t) override {
    fail_absent();
  }
  void fill(void*, int, std::size_t) override { fail_absent(); }
  void* stream() override { return nullptr; }
  void synchronize() override { fail_absent(); }
  timing time(const std::function<void()>&, const time_plan&) override { fail_absent(); }
  std::vector<ceiling> measure_ceilings(std::size_t, double) override { return {}; }
  double read_GBps(std::size_t, double) override { fail_absent(); }

private:
  [[noreturn]] void fail_absent() const;
  backend kind_;
  std::string why_;
};

// The backends' executors as the core sees them: forwarded to each backend's module, or an
// absent executor that says why (src/core/<backend>_forward.cpp, core/modules.hpp).
executor& cuda_executor();
executor& nccl_executor();
// The GPUs of the nccl backend's job (0 when it is not usable here).
int nccl_gpu_count();
executor& mpi_executor();

}  // namespace pplab::detail
