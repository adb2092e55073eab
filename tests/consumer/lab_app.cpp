// A user's program on the two other libraries: pplab::io writes and reads a .npy file, pplab::lab
// runs the seq reduction ladder at the tests' size and every row is verified.
#include <pplab/io.hpp>
#include <pplab/lab.hpp>

#include <cstdio>
#include <cstring>
#include <string>

int main(int argc, char** argv) {
  const std::string path = std::string(argc > 1 ? argv[1] : ".") + "/x.npy";
  pplab::io::array a;
  a.type = pplab::dtype::f32;
  a.shape = {3};
  const float v[3] = {1.5f, -2.0f, 3.25f};
  a.bytes.resize(sizeof v);
  std::memcpy(a.bytes.data(), v, sizeof v);
  pplab::io::write_npy(path, a);
  const pplab::io::array b = pplab::io::read_npy(path);
  const bool same = b.type == a.type && b.shape == a.shape && b.bytes == a.bytes;

  pplab::lab::settings s;
  s.scale = pplab::lab::size::tiny;
  s.budget_s = 0.01;
  s.only_pattern = "reduce";
  s.only_backend = pplab::backend::seq;
  const pplab::lab::result r = pplab::lab::run(s);
  bool verified = !r.rows.empty();
  for (const pplab::lab::row& row : r.rows) verified = verified && row.verified;
  std::printf("npy round trip %s, %zu lab rows %s\n", same ? "ok" : "WRONG", r.rows.size(),
              verified ? "verified" : "NOT verified");
  return same && verified ? 0 : 1;
}
