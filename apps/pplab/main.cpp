// pplab: reduction, histogram, tiled matrix multiplication and 2-D convolution on every level of
// hardware.
// Errors go to stderr as `pplab: error: ...`, exit status 1 for bad data, 2 for bad usage; in a
// job of several ranks (mpi) rank 0 prints an error every rank met, and the job ends through
// MPI_Abort with that status.
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <string>

#include "common.hpp"
#include "pplab/io.hpp"

// An empty value (an unset shell variable, `--input ""` or `--n=`) is refused for every option
// and argument alike, before anything runs: no option means zero or its default when empty.
static void refuse_empty_values(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const std::size_t eq = arg.find('=');
    if (arg.rfind("--", 0) == 0 && eq != std::string::npos && eq + 1 == arg.size())
      pplab::fail(pplab::errc::invalid_argument,
                  arg.substr(0, eq) + " was given an empty value; give one, or leave it out");
    if (!arg.empty()) continue;
    const std::string before = i > 1 ? argv[i - 1] : "";
    pplab::fail(pplab::errc::invalid_argument,
                (before.rfind("-", 0) == 0 ? before + " was given an empty value"
                 : before.empty()          ? std::string("an empty argument")
                                           : "an empty argument after '" + before + "'") +
                    " (an unset shell variable?); give a value, or leave it out");
  }
}

// SIGINT or SIGTERM: the outputs not yet written whole leave no temporary file, and the process
// then dies of the signal, so its exit status says it was interrupted (130, 143).
extern "C" void on_interrupt(int sig) {
  pplab::io::output_file::remove_unfinished();
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

int main(int argc, char** argv) {
  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);
  CLI::App app{"pplab: reduction, histogram, tiled matrix multiplication and 2-D convolution, each "
               "with its whole ladder of optimizations, measured on this machine.\n"
               "Start with `pplab lab --quick`; `pplab SUBCOMMAND --help` explains each one."};
  app.require_subcommand(1);
  app.set_version_flag("--version", pplab::version());
  pplab::cli::add_info(app);
  pplab::cli::add_list(app);
  pplab::cli::add_reduce(app);
  pplab::cli::add_histogram(app);
  pplab::cli::add_histogram2d(app);
  pplab::cli::add_histogramdd(app);
  pplab::cli::add_matmul(app);
  pplab::cli::add_convolve(app);
  pplab::cli::add_lab(app);
  pplab::cli::add_tune(app);
  try {
    refuse_empty_values(argc, argv);
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return pplab::end_with_error(std::string(e.what()) + "\nRun with --help for usage.", 2, true);
  } catch (const pplab::error& e) {
    return pplab::end_with_error(e.what(), e.code() == pplab::errc::invalid_argument ? 2 : 1,
                                 dynamic_cast<const pplab::agreed_error*>(&e));
  } catch (const std::bad_alloc&) {
    return pplab::end_with_error(
        "out of memory: the input, or the memory its call needs, does not fit; try a "
        "smaller one",
        1, false);
  } catch (const std::exception& e) {
    return pplab::end_with_error(e.what(), 1, false);
  }
  // Output that never arrived (a full disk, a closed pipe) is a failure, not a success.
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    std::fprintf(stderr, "pplab: error: cannot write to standard output: %s\n",
                 std::strerror(errno ? errno : EIO));
    return 1;
  }
  return 0;
}
