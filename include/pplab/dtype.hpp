#pragma once
// Element types pplab reads and reduces, with their names as NumPy writes them.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

namespace pplab {

enum class dtype : std::uint8_t { i8, i16, i32, i64, u8, u16, u32, u64, f32, f64 };

inline constexpr dtype all_dtypes[] = {dtype::i8,  dtype::i16, dtype::i32, dtype::i64, dtype::u8,
                                       dtype::u16, dtype::u32, dtype::u64, dtype::f32, dtype::f64};

std::size_t size_of(dtype t) noexcept;
std::string_view name_of(dtype t) noexcept;  // "i8" ... "f64"
dtype parse_dtype(std::string_view name);    // accepts i8/int8/uint8/float32/float/double...
constexpr bool is_float(dtype t) noexcept { return t == dtype::f32 || t == dtype::f64; }
constexpr bool is_signed_int(dtype t) noexcept { return t <= dtype::i64; }

template <class T> constexpr dtype dtype_of() noexcept {
  if constexpr (std::is_same_v<T, std::int8_t>) return dtype::i8;
  else if constexpr (std::is_same_v<T, std::int16_t>) return dtype::i16;
  else if constexpr (std::is_same_v<T, std::int32_t>) return dtype::i32;
  else if constexpr (std::is_same_v<T, std::int64_t>) return dtype::i64;
  else if constexpr (std::is_same_v<T, std::uint8_t>) return dtype::u8;
  else if constexpr (std::is_same_v<T, std::uint16_t>) return dtype::u16;
  else if constexpr (std::is_same_v<T, std::uint32_t>) return dtype::u32;
  else if constexpr (std::is_same_v<T, std::uint64_t>) return dtype::u64;
  else if constexpr (std::is_same_v<T, float>) return dtype::f32;
  else if constexpr (std::is_same_v<T, double>) return dtype::f64;
  else static_assert(sizeof(T) == 0, "pplab: unsupported element type");
}

// Calls f(T{}) with T the C++ type of t: the one place a run-time dtype becomes a type.
template <class F> decltype(auto) visit_dtype(dtype t, F&& f) {
  switch (t) {
  case dtype::i8:
    return f(std::int8_t{});
  case dtype::i16:
    return f(std::int16_t{});
  case dtype::i32:
    return f(std::int32_t{});
  case dtype::i64:
    return f(std::int64_t{});
  case dtype::u8:
    return f(std::uint8_t{});
  case dtype::u16:
    return f(std::uint16_t{});
  case dtype::u32:
    return f(std::uint32_t{});
  case dtype::u64:
    return f(std::uint64_t{});
  case dtype::f32:
    return f(float{});
  default:
    return f(double{});
  }
}

}  // namespace pplab
