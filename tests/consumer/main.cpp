// A user's program: include one header, link pplab::pplab. Its first lines are the README's C++
// example, checked.
#include <pplab/pplab.hpp>

#include <cstdio>
#include <vector>

int main() {
  std::vector<float> x(1 << 20, 0.5f), img(512 * 512, 1.0f), out(img.size());
  double s = pplab::reduce(pplab::cpu, x, pplab::sum);
  auto h = pplab::histogram(pplab::cpu, x, {.bins = 64, .lo = 0.0, .hi = 1.0});
  std::vector<double> box(25, 1.0 / 25);
  pplab::correlate(pplab::cpu, pplab::dtype::f32, img.data(), 512, 512, 512, box.data(), 5, 5,
                   out.data(), 512);
  const auto bytes = pplab::histogram(pplab::cpu, std::vector<unsigned char>{1, 2, 2});
  std::printf("sum %g, bin 32 %llu, a blurred pixel %g, bins %zu, count of 2: %llu\n", s,
              static_cast<unsigned long long>(h.counts[32]), double(out[1000]), bytes.bins(),
              static_cast<unsigned long long>(bytes.counts[2]));
  const bool ok = s == 524288 && h.counts[32] == x.size() && out[1000] > 0.999f &&
                  out[1000] < 1.001f && bytes.counts[2] == 2;
  return ok ? 0 : 1;
}
