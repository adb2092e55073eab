// pplab: reduction, histogram and tiled matrix multiplication on every level of hardware.
// Errors go to stderr as `pplab: error: ...`, exit status 1 for bad data, 2 for bad usage.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>

#include "common.hpp"

int main(int argc, char** argv) {
  CLI::App app{"pplab: reduction, histogram and tiled matrix multiplication, each with its whole "
               "ladder of optimizations, measured on this machine.\n"
               "Start with `pplab lab --quick`; `pplab SUBCOMMAND --help` explains each one."};
  app.require_subcommand(1);
  app.set_version_flag("--version", pplab::version());
  pplab::cli::add_info(app);
  pplab::cli::add_list(app);
  pplab::cli::add_reduce(app);
  pplab::cli::add_histogram(app);
  pplab::cli::add_matmul(app);
  pplab::cli::add_lab(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "pplab: error: %s\nRun with --help for usage.\n", e.what());
    return 2;
  } catch (const pplab::error& e) {
    std::fprintf(stderr, "pplab: error: %s\n", e.what());
    return e.code() == pplab::errc::invalid_argument ? 2 : 1;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "pplab: error: out of memory; try a smaller input (--n)\n");
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pplab: error: %s\n", e.what());
    return 1;
  }
  // Output that never arrived (a full disk, a closed pipe) is a failure, not a success.
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    std::fprintf(stderr, "pplab: error: cannot write to standard output: %s\n",
                 std::strerror(errno ? errno : EIO));
    return 1;
  }
  return 0;
}
