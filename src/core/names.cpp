// Names of dtypes, backends and ops, and their parsing, with errors that list choices.
#include <array>
#include <string>

#include "pplab/pplab.hpp"

namespace pplab {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = char(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

const char* version() noexcept { return PPLAB_VERSION; }

std::size_t size_of(dtype t) noexcept {
  return visit_dtype(t, [](auto v) { return sizeof(v); });
}

std::string_view name_of(dtype t) noexcept {
  static constexpr std::array<std::string_view, 10> names = {"i8",  "i16", "i32", "i64", "u8",
                                                             "u16", "u32", "u64", "f32", "f64"};
  return names[std::size_t(t)];
}

dtype parse_dtype(std::string_view name) {
  const std::string s = lower(name);
  struct alias {
    std::string_view name;
    dtype t;
  };
  static constexpr alias aliases[] = {
      {"int8", dtype::i8},     {"int16", dtype::i16},  {"int32", dtype::i32},
      {"int64", dtype::i64},   {"uint8", dtype::u8},   {"uint16", dtype::u16},
      {"uint32", dtype::u32},  {"uint64", dtype::u64}, {"float32", dtype::f32},
      {"float64", dtype::f64}, {"float", dtype::f32},  {"double", dtype::f64},
      {"byte", dtype::u8},     {"int", dtype::i32}};
  for (dtype t : all_dtypes)
    if (s == name_of(t)) return t;
  for (const alias& a : aliases)
    if (s == a.name) return a.t;
  fail(errc::invalid_argument, "unknown dtype '" + std::string(name) +
                                   "'; choose one of i8 i16 i32 i64 u8 u16 u32 u64 f32 f64");
}

std::string_view name_of(backend b) noexcept { return backend_table[std::size_t(b)].name; }

backend parse_backend(std::string_view name) {
  const std::string s = lower(name);
  for (backend b : all_backends)
    if (s == name_of(b)) return b;
  std::string choices;
  for (const backend_entry& e : backend_table) choices.append(" ").append(e.name);
  fail(errc::invalid_argument,
       "unknown backend '" + std::string(name) + "'; choose one of" + choices);
}

std::string_view name_of(op o) noexcept {
  static constexpr std::array<std::string_view, 19> names = {
      "sum",    "product", "min",    "max",     "mean",      "argmin",    "argmax",
      "var",    "std",     "count_nonzero", "nansum", "nanprod", "nanmin", "nanmax",
      "nanmean", "nanargmin", "nanargmax", "nanvar", "nanstd"};
  return names[std::size_t(o)];
}

op parse_op(std::string_view name) {
  const std::string s = lower(name);
  for (op o : all_ops)
    if (s == name_of(o)) return o;
  if (s == "prod") return op::product;
  fail(errc::invalid_argument,
       "unknown op '" + std::string(name) +
           "'; choose one of sum product min max mean argmin argmax var std count_nonzero, or "
           "one of the first nine after nan (nansum ... nanstd: NaN left out)");
}

}  // namespace pplab
