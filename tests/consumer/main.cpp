// A user's program: include one header, link pplab::pplab.
#include <pplab/pplab.hpp>

#include <cstdio>
#include <vector>

int main() {
  std::vector<float> x(1000, 0.5f);
  const double s = pplab::reduce(pplab::cpu, x, pplab::sum);
  const auto h = pplab::histogram(pplab::cpu, std::vector<unsigned char>{1, 2, 2});
  std::printf("sum %g, bins %zu, count of 2: %llu\n", s, h.bins(),
              static_cast<unsigned long long>(h.counts[2]));
  return (s == 500 && h.counts[2] == 2) ? 0 : 1;
}
