// The choice file of `pplab tune` (pplab/tuning.hpp): read once, on the first pick of a rung,
// and consulted by default_rung (core/run.hpp) before the built-in policy.
#include "pplab/tuning.hpp"

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <unistd.h>

#include "core/run.hpp"
#include "pplab/error.hpp"
#include "pplab/machine.hpp"

namespace pplab {
namespace {

constexpr const char* format_name = "pplab choices 1";

struct loaded_choices {
  bool read = false;
  std::string status;
  std::vector<tuned_choice> choices;
  std::map<std::string, std::string, std::less<>> by_class;  // pattern, backend, key -> rung
};

std::mutex choices_mutex;
loaded_choices state;
bool consulted = true;

std::string class_of(std::string_view pattern, std::string_view where, std::string_view key) {
  return std::string(pattern) + '\n' + std::string(where) + '\n' + std::string(key);
}

loaded_choices read_file() {
  loaded_choices out;
  out.read = true;
  const std::string path = choice_file();
  if (path.empty()) {
    out.status = "none ($PPLAB_CHOICES turns it off): the built-in policy";
    return out;
  }
  std::ifstream in(path);
  if (!in) {
    out.status = "none at " + path + " (`pplab tune` writes one): the built-in policy";
    return out;
  }
  try {
    const nlohmann::json j = nlohmann::json::parse(in);
    if (j.value("format", "") != format_name)
      throw std::runtime_error("not a pplab choice file (format '" + j.value("format", "") + "')");
    const std::string machine = j.at("machine").get<std::string>();
    if (machine != machine_name()) {
      out.status = path + " was written on another machine (" + machine +
                   "), not used: run `pplab tune` here";
      return out;
    }
    for (const nlohmann::json& c : j.at("choices")) {
      tuned_choice t;
      t.pattern = c.at("pattern").get<std::string>();
      t.backend = c.at("backend").get<std::string>();
      t.key = c.at("key").get<std::string>();
      t.rung = c.at("rung").get<std::string>();
      t.ms = c.value("ms", 0.0);
      t.policy_rung = c.value("policy_rung", "");
      t.policy_ms = c.value("policy_ms", 0.0);
      out.by_class[class_of(t.pattern, t.backend, t.key)] = t.rung;
      out.choices.push_back(std::move(t));
    }
    out.status = path + ": " + std::to_string(out.choices.size()) +
                 " tuned choices for this machine, the built-in policy for the rest";
  } catch (const std::exception& e) {
    out = {};
    out.read = true;
    out.status =
        path + " is unreadable (" + e.what() + "), not used: run `pplab tune` again, or remove it";
  }
  return out;
}

const loaded_choices& current() {  // under choices_mutex
  if (!state.read) state = read_file();
  return state;
}

}  // namespace

bool reads_tuned_choices(backend b) {
  return b == backend::seq || b == backend::cpu || b == backend::cuda;
}

std::string choice_file() {
  if (const char* set = std::getenv("PPLAB_CHOICES")) {
    const std::string path = set;
    return path == "none" ? std::string() : path;
  }
  if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg && *xdg)
    return (std::filesystem::path(xdg) / "pplab" / "choices.json").string();
  if (const char* home = std::getenv("HOME"); home && *home)
    return (std::filesystem::path(home) / ".config" / "pplab" / "choices.json").string();
  return {};
}

std::string machine_name() {
  const cpu_facts cpu = machine_cpu();
  const gpu_info& gpu = machine_gpu();
  return cpu.model + ", " + std::to_string(cpu.cores) + " CPUs; " +
         (gpu.present ? gpu.name : std::string("no GPU"));
}

std::string choice_file_status() {
  const std::lock_guard lock(choices_mutex);
  return current().status;
}

std::vector<tuned_choice> tuned_choices() {
  const std::lock_guard lock(choices_mutex);
  return current().choices;
}

void reload_choices() {
  const std::lock_guard lock(choices_mutex);
  state = {};
}

void use_tuned_choices(bool on) {
  const std::lock_guard lock(choices_mutex);
  consulted = on;
}

void write_choice_file(const std::string& path, const std::vector<tuned_choice>& choices) {
  if (path.empty())
    fail(errc::invalid_argument, "tune: no place for the choice file: set PPLAB_CHOICES or HOME");
  nlohmann::json list = nlohmann::json::array();
  for (const tuned_choice& c : choices)
    list.push_back({{"pattern", c.pattern},
                    {"backend", c.backend},
                    {"key", c.key},
                    {"rung", c.rung},
                    {"ms", c.ms},
                    {"policy_rung", c.policy_rung},
                    {"policy_ms", c.policy_ms}});
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  const nlohmann::json j = {
      {"format", format_name}, {"machine", machine_name()}, {"written", stamp}, {"choices", list}};
  const std::filesystem::path target(path);
  std::error_code ec;
  if (target.has_parent_path()) std::filesystem::create_directories(target.parent_path(), ec);
  // Written whole beside the target, then renamed over it: a reader sees the old file or the new.
  const std::filesystem::path temp = target.string() + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(temp);
    out << j.dump(1) << '\n';
    out.close();
    if (!out) {
      std::filesystem::remove(temp, ec);
      fail(errc::io, "tune: cannot write " + temp.string());
    }
  }
  std::filesystem::rename(temp, target, ec);
  if (ec) {
    std::filesystem::remove(temp, ec);
    fail(errc::io, "tune: cannot write " + path + ": " + ec.message());
  }
  reload_choices();
}

std::string detail::tuned_rung(std::string_view pattern, backend b,
                               const std::function<std::string()>& key) {
  if (!reads_tuned_choices(b)) return {};
  const std::lock_guard lock(choices_mutex);
  if (!consulted) return {};
  const loaded_choices& c = current();
  if (c.by_class.empty()) return {};  // no choice file (the usual case): no key to build
  const auto it = c.by_class.find(class_of(pattern, name_of(b), key()));
  return it == c.by_class.end() ? std::string() : it->second;
}

}  // namespace pplab
