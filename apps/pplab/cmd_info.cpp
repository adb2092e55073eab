// pplab info: the machine, the backends built, and its ceilings measured now.
#include <fmt/format.h>

#include "common.hpp"
#include "pplab/lab.hpp"

namespace pplab::cli {

void add_info(CLI::App& app) {
  auto* cmd = app.add_subcommand("info", "machine, backends built, measured ceilings");
  auto as_json = std::make_shared<bool>(false);
  auto no_measure = std::make_shared<bool>(false);
  cmd->add_flag("--json", *as_json, "print one JSON object");
  cmd->add_flag("--no-measure", *no_measure, "skip measuring the ceilings (a few seconds)");
  cmd->callback([as_json, no_measure] {
    const cpu_facts c = machine_cpu();
    const gpu_info& g = machine_gpu();
    nlohmann::json j = {
        {"pplab", version()}, {"cpu", c.model}, {"cores", c.cores}, {"threads", c.threads}};
    nlohmann::json backends = nlohmann::json::object();
    for (backend b : all_backends)
      backends[std::string(name_of(b))] = available(b);
    j["backends"] = backends;
    if (g.present)
      j["gpu"] = {{"name", g.name},
                  {"driver", g.driver},
                  {"sms", g.sm_count},
                  {"memory_bytes", g.mem_bytes},
                  {"theoretical_GBps", g.mem_GBps_theoretical}};
    else j["gpu"] = {{"absent", g.why_absent}};
    if (available(backend::mpi)) j["mpi"] = {{"job", describe(backend::mpi)}};
    else j["mpi"] = {{"absent", why_absent(backend::mpi)}};
    if (available(backend::nccl)) j["nccl"] = {{"gpus", describe(backend::nccl)}};
    else j["nccl"] = {{"absent", why_absent(backend::nccl)}};
    j["choices"] = choice_file_status();  // `pplab tune`'s
    // Under mpirun every rank answers the same: rank 0 prints.
    if (available(backend::mpi) && job_rank(backend::mpi) != 0) return;
    if (!*no_measure) {  // the lab's probes, on smaller buffers
      const auto measured = [](backend b, std::size_t bytes, double budget) {
        nlohmann::json out = nlohmann::json::object();
        for (const ceiling& k : measure_ceilings(b, bytes, budget)) out[k.key] = k.value;
        return out;
      };
      j["ceilings"] = measured(backend::cpu, std::size_t(256) << 20, 0.5);
      if (available(backend::cuda))
        j["gpu_ceilings"] = measured(backend::cuda, std::size_t(64) << 20, 0.15);
    }
    if (*as_json) {
      fmt::print("{}\n", j.dump(1));
      return;
    }
    fmt::print("pplab {}\ncpu      {} ({} logical cores, {} OpenMP threads)\n", version(), c.model,
               c.cores, c.threads);
    fmt::print("backends");
    for (auto& [name, ok] : backends.items())
      fmt::print(" {}{}", name, ok.get<bool>() ? "" : "(-)");
    fmt::print("   (-) = not usable here\n");
    if (g.present)
      fmt::print("gpu      {}, {} SMs, {:.1f} GiB, driver {}, {:.0f} GB/s theoretical\n", g.name,
                 g.sm_count, double(g.mem_bytes) / (1 << 30), g.driver, g.mem_GBps_theoretical);
    else fmt::print("gpu      none: {}\n", g.why_absent);
    fmt::print("nccl     {}\n", j["nccl"].contains("gpus")
                                    ? j["nccl"]["gpus"].get<std::string>()
                                    : "not usable: " + j["nccl"]["absent"].get<std::string>());
    fmt::print("choices  {}\n", j["choices"].get<std::string>());
    fmt::print("mpi      {}\n", j["mpi"].contains("job")
                                    ? j["mpi"]["job"].get<std::string>()
                                    : "not usable: " + j["mpi"]["absent"].get<std::string>());
    if (j.contains("ceilings"))
      fmt::print("ceilings read {:.1f} GB/s, copy {:.1f} GB/s (read + write), fp32 FMA {:.0f} "
                 "GFLOP/s (256 MiB buffers, all threads)\n",
                 j["ceilings"]["read_GBps"].get<double>(), j["ceilings"]["copy_GBps"].get<double>(),
                 j["ceilings"]["fp32_GFLOPs"].get<double>());
    if (j.contains("gpu_ceilings"))
      fmt::print("gpu      read {:.0f} GB/s (vectorized kernel), copy {:.0f} GB/s (read + write), "
                 "host to device {:.1f} GB/s, launch {:.1f} us (64 MiB buffers)\n",
                 j["gpu_ceilings"]["gpu_read_GBps"].get<double>(),
                 j["gpu_ceilings"]["gpu_copy_GBps"].get<double>(),
                 j["gpu_ceilings"]["gpu_h2d_GBps"].get<double>(),
                 j["gpu_ceilings"]["gpu_launch_us"].get<double>());
    std::string counts;
    for (std::string_view p : lab::patterns()) {
      std::size_t n = 0;
      for (const rung_info& r : lab::all_rungs()) n += r.pattern() == p;
      counts += (counts.empty() ? "" : ", ") + std::to_string(n) + " " + std::string(p);
    }
    fmt::print("rungs    {} (pplab list)\n", counts);
  });
}

}  // namespace pplab::cli
