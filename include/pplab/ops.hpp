#pragma once
// Reduction operators: the built-in ones as tag values, and user-defined ones, which need only be
// associative and commutative and come with their identity (the reduction notes' requirement).
#include <cstdint>
#include <limits>
#include <string_view>
#include <type_traits>

namespace pplab {

// argmin and argmax answer the index of the first smallest (largest) element, with NaN as NumPy
// has it: the first NaN wins. They are the reduction notes' user-defined reduction with an
// identity, carried as (value, index) pairs. var and std_dev (named "var" and "std", NumPy's
// var and std with ddof=0) are the population variance and its square root, carried as
// (count, mean, sum of squared deviations) triples that two parts merge exactly as one would
// (Chan, Golub and LeVeque's update): one pass, no cancellation of a sum of squares.
// The nan ops are NumPy's nansum ... nanstd: the same reductions with every NaN left out (a NaN
// lifted to the operator's identity; nanmin and nanmax keep the other operand wherever one is
// NaN). Of integers they are the plain ops. nanmean is carried as moments (its own count).
// count_nonzero is NumPy's: how many elements are not zero (a NaN is not zero, so it counts), a
// sum of ones and zeros in 64 bits; NumPy's any and all are that count above 0 and equal to n.
enum class op {
  sum,
  product,
  min,
  max,
  mean,
  argmin,
  argmax,
  var,
  std_dev,
  count_nonzero,
  nansum,
  nanprod,
  nanmin,
  nanmax,
  nanmean,
  nanargmin,
  nanargmax,
  nanvar,
  nanstd
};
inline constexpr op all_ops[] = {
    op::sum,    op::product, op::min,       op::max,       op::mean,   op::argmin,
    op::argmax, op::var,     op::std_dev,   op::count_nonzero, op::nansum, op::nanprod,
    op::nanmin, op::nanmax,  op::nanmean,   op::nanargmin, op::nanargmax, op::nanvar,
    op::nanstd};
constexpr bool skips_nan(op o) noexcept { return o >= op::nansum; }
// The op a nan op leaves NaN out of (nanstd: std_dev); any other op itself.
constexpr op plain_of(op o) noexcept {
  switch (o) {
  case op::nansum:
    return op::sum;
  case op::nanprod:
    return op::product;
  case op::nanmin:
    return op::min;
  case op::nanmax:
    return op::max;
  case op::nanmean:
    return op::mean;
  case op::nanargmin:
    return op::argmin;
  case op::nanargmax:
    return op::argmax;
  case op::nanvar:
    return op::var;
  case op::nanstd:
    return op::std_dev;
  default:
    return o;
  }
}
constexpr bool is_arg(op o) noexcept {
  return plain_of(o) == op::argmin || plain_of(o) == op::argmax;
}
constexpr bool is_moments(op o) noexcept {
  return o == op::var || o == op::std_dev || o == op::nanmean || o == op::nanvar || o == op::nanstd;
}
// Whether NumPy answers op along an axis in the data's own type (numpy.sum(x, axis=k)'s dtype;
// answer_types::numpy, pplab/device.hpp): every answer of float data but an index or a count,
// and the min and max of integers. (Otherwise int64 or uint64 for integer sums and products,
// float64 for integer means and moments, int64 for indices and counts.)
constexpr bool numpy_keeps_type(bool float_data, op o) noexcept {
  return !is_arg(o) && o != op::count_nonzero &&
         (float_data || plain_of(o) == op::min || plain_of(o) == op::max);
}
std::string_view name_of(op o) noexcept;
op parse_op(std::string_view name);

template <op O> struct op_tag {
  static constexpr op value = O;
  constexpr operator op() const noexcept { return O; }
};
inline constexpr op_tag<op::sum> sum{};
inline constexpr op_tag<op::product> product{};
inline constexpr op_tag<op::min> min{};
inline constexpr op_tag<op::max> max{};
inline constexpr op_tag<op::mean> mean{};
inline constexpr op_tag<op::argmin> argmin{};
inline constexpr op_tag<op::argmax> argmax{};
inline constexpr op_tag<op::var> var{};
inline constexpr op_tag<op::std_dev> std_dev{};
inline constexpr op_tag<op::count_nonzero> count_nonzero{};
inline constexpr op_tag<op::nansum> nansum{};
inline constexpr op_tag<op::nanprod> nanprod{};
inline constexpr op_tag<op::nanmin> nanmin{};
inline constexpr op_tag<op::nanmax> nanmax{};
inline constexpr op_tag<op::nanmean> nanmean{};
inline constexpr op_tag<op::nanargmin> nanargmin{};
inline constexpr op_tag<op::nanargmax> nanargmax{};
inline constexpr op_tag<op::nanvar> nanvar{};
inline constexpr op_tag<op::nanstd> nanstd{};

// Integer sums and products accumulate in 64 bits (products wrap modulo 2^64); float sums and
// products accumulate in double. min and max keep the element type; mean, var and std_dev are
// doubles; argmin, argmax and count_nonzero answer a 64-bit integer. The nan ops answer as their
// plain ops do.
template <class T>
using wide_t =
    std::conditional_t<std::is_floating_point_v<T>, double,
                       std::conditional_t<std::is_signed_v<T>, std::int64_t, std::uint64_t>>;
template <class T, op O>
using reduce_result_t = std::conditional_t<
    is_arg(O) || O == op::count_nonzero, std::int64_t,
    std::conditional_t<
        plain_of(O) == op::min || plain_of(O) == op::max, T,
        std::conditional_t<plain_of(O) == op::mean || is_moments(O), double, wide_t<T>>>>;

// The identity of each built-in operator for accumulator type A: what an empty input gives.
// nanmin's and nanmax's is NaN, which their combine never keeps over a number.
template <class A> constexpr A identity_of(op o) noexcept {
  switch (o) {
  case op::product:
  case op::nanprod:
    return A(1);
  case op::nanmin:
  case op::nanmax:
    if constexpr (std::numeric_limits<A>::has_quiet_NaN) return std::numeric_limits<A>::quiet_NaN();
    return identity_of<A>(plain_of(o));
  case op::min:
    return std::numeric_limits<A>::has_infinity ? std::numeric_limits<A>::infinity()
                                                : std::numeric_limits<A>::max();
  case op::max:
    return std::numeric_limits<A>::has_infinity ? -std::numeric_limits<A>::infinity()
                                                : std::numeric_limits<A>::lowest();
  default:
    return A(0);
  }
}

// A user's operator: combine must be associative and commutative, and combine(identity, x) == x.
template <class T, class Combine> struct custom_op {
  T identity;
  Combine combine;
};
template <class T, class Combine> custom_op<T, Combine> make_op(T identity, Combine combine) {
  return {identity, combine};
}

// The reduction notes' example of a user-defined reduction: the 3-D point farthest from the origin.
struct point3 {
  float x = 0, y = 0, z = 0;
  friend constexpr bool operator==(const point3&, const point3&) = default;
};
// Ties in magnitude are broken by comparing (x, y, z), so the result never depends on the order
// in which a parallel tree meets the points: that is what makes the operator commutative.
struct farthest_from_origin {
#ifdef __CUDACC__
  __host__ __device__
#endif
      constexpr point3
      operator()(const point3& a, const point3& b) const noexcept {
    const float na = a.x * a.x + a.y * a.y + a.z * a.z;
    const float nb = b.x * b.x + b.y * b.y + b.z * b.z;
    if (na != nb) return nb > na ? b : a;
    if (a.x != b.x) return b.x > a.x ? b : a;
    if (a.y != b.y) return b.y > a.y ? b : a;
    return b.z > a.z ? b : a;
  }
};
inline custom_op<point3, farthest_from_origin> farthest_point_op() {
  return {point3{0, 0, 0}, farthest_from_origin{}};
}

}  // namespace pplab
