#pragma once
// 16-byte vector loads and stores between memory (global or shared) and registers, for float and
// double: four floats or two doubles in one instruction where a run of elements is 16-byte
// aligned. The matmul tiles and the convolution tiles both move their data this way. (memcpy
// is the CUDA headers' device built-in.)

namespace pplab::detail {

// 16 bytes of T: what one vector load moves.
template <class T> struct vec16;
template <> struct vec16<float> { using type = float4; };
template <> struct vec16<double> { using type = double2; };
template <class T> using vec16_t = typename vec16<T>::type;
template <class T> constexpr int vec_width = 16 / int(sizeof(T));

// One 16-byte load or store between a 16-byte aligned address and vec_width<T> registers.
template <class T> __device__ inline void load16(T* to, const T* from) {
  const auto x = *reinterpret_cast<const vec16_t<T>*>(from);
  memcpy(to, &x, 16);
}
template <class T> __device__ inline void store16(T* to, const T* from) {
  vec16_t<T> x;
  memcpy(&x, from, 16);
  *reinterpret_cast<vec16_t<T>*>(to) = x;
}

// `count` consecutive elements between registers and memory, 16 bytes at a time (the memory
// side 16-byte aligned).
template <int count, class T> __device__ inline void read_vec(T* to, const T* from) {
  static_assert(count % vec_width<T> == 0);
#pragma unroll
  for (int v = 0; v < count; v += vec_width<T>) load16(to + v, from + v);
}
template <int count, class T> __device__ inline void write_vec(T* to, const T* from) {
  static_assert(count % vec_width<T> == 0);
#pragma unroll
  for (int v = 0; v < count; v += vec_width<T>) store16(to + v, from + v);
}

}  // namespace pplab::detail
