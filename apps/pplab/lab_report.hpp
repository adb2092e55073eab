#pragma once
// Showing a lab run: the table on the terminal, the JSON record, the SVG chart.
#include <functional>
#include <string>

#include "pplab/lab.hpp"

namespace pplab::cli {

void print_table(const lab::result& lab);
std::string record_json(const lab::result& lab, bool quick);  // the JSON record
std::string chart_svg(const lab::result& lab);                // the SVG chart

// The lab's progress line on stderr for a run of settings s: "[k/N, about T s left] what runs",
// or nothing (an empty function) when `shown` is false or stderr is not a terminal. Clear the
// line with end_progress_line() once the run is over.
std::function<void(const std::string&)> progress_line(const lab::settings& s, bool shown);
void end_progress_line(const std::function<void(const std::string&)>& line);

}  // namespace pplab::cli
