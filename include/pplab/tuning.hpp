#pragma once
// `pplab tune`'s choice file: for this machine, which rung was measured fastest for each class of
// problem on each backend (as FFTW's wisdom and cuDNN's benchmark mode keep theirs). The API
// reads it on the first call that picks a rung, and runs the rung it names for a problem of that
// class when that rung can run the problem; it falls back to the built-in policy
// (src/<pattern>/policy.cpp) for every other problem, when there is no file, or when the file
// was written on another machine. The seq, cpu and cuda backends read it; mpi and nccl do not
// (every rank must run the same rung, and a job's machines may differ).
//
// A class of problem is a pattern's tune key: its dtype and shape in powers of two (reduce
// "f32 sum n~2^28", histogram "f32 bins~2^10 n~2^28", matmul "f32 m~2^12 n~2^12 k~2^12",
// convolution "f32 7x7 px~2^26"), so a tuned choice serves every problem of the same class.
#include <string>
#include <string_view>
#include <vector>

#include "pplab/backend.hpp"

namespace pplab {

struct tuned_choice {
  std::string pattern, backend, key;  // the class of problem: a pattern's tune key
  std::string rung;                   // the rung measured fastest
  double ms = 0;                      // its median
  std::string policy_rung;            // the built-in policy's pick, and its median (0: unmeasured)
  double policy_ms = 0;
};

// Whether backend b reads the choices: seq, cpu and cuda (an mpi or nccl job's ranks must run
// the same rung, and its machines may differ).
bool reads_tuned_choices(backend b);

// Where the API reads the choices: $PPLAB_CHOICES when set ("" or "none": no file), else
// $XDG_CONFIG_HOME/pplab/choices.json, else $HOME/.config/pplab/choices.json.
std::string choice_file();

// This machine as a choice file names it: the CPU's model and core count, and the GPU's name.
std::string machine_name();

// What the API does with the choice file, in a sentence (`pplab info`): none, used (how many
// choices), written for another machine, or unreadable (and why).
std::string choice_file_status();

// Writes `choices` for this machine to `path` (replacing it whole; the directory is made), and
// makes the API read it again.
void write_choice_file(const std::string& path, const std::vector<tuned_choice>& choices);

// The choices the API uses now (empty without a usable file).
std::vector<tuned_choice> tuned_choices();

// Reads the choice file again on the next call (after another process wrote it).
void reload_choices();

// Whether the API consults the choices (default true). Off, it runs the built-in policy alone:
// `pplab tune` measures the policy's picks so.
void use_tuned_choices(bool on);

}  // namespace pplab
