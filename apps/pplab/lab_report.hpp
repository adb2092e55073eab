#pragma once
// Showing a lab run: the table on the terminal, the JSON record, the SVG chart.
#include <string>

#include "pplab/lab.hpp"

namespace pplab::cli {

void print_table(const lab::result& lab);
std::string record_json(const lab::result& lab, bool quick);  // the JSON record
std::string chart_svg(const lab::result& lab);                // the SVG chart

}  // namespace pplab::cli
