#pragma once
// Showing a lab run: the table on the terminal, the JSON record, the SVG chart.
#include <string>

#include "lab/lab.hpp"

namespace pplab::cli {

void print_table(const lab::result& lab);
void write_record(const lab::result& lab, bool quick, const std::string& path);
void write_chart(const lab::result& lab, const std::string& path);

}  // namespace pplab::cli
