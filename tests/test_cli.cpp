// The command line end to end: outputs, JSON shapes, and exit status 1 (bad data) or 2 (bad
// usage) with a `pplab: error:` message for every kind of bad input, never a crash.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <vector>

#include "core/generate.hpp"
#include "core/run.hpp"
#include "histogram/rung.hpp"
#include "pplab/io.hpp"
#include "pplab/lab.hpp"
#include "pplab/pplab.hpp"
#include "reduce/rung.hpp"
#include "test_support.hpp"

namespace pplab::test {
namespace {

namespace fs = std::filesystem;

struct result {
  int code;
  std::string out, err;
};

class Cli : public ::testing::Test {
protected:
  void SetUp() override {
    dir = fs::temp_directory_path() / ("pplab_cli_" + std::to_string(::getpid()));
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }

  std::string path(const std::string& name) const { return (dir / name).string(); }

  result run(const std::string& args) const { return shell(std::string(PPLAB_CLI) + " " + args); }

  // The command line as a job of `ranks` processes under mpiexec; `args` may read the rank from
  // $OMPI_COMM_WORLD_RANK (it runs in sh). A hang would be killed after two minutes.
  result run_job(int ranks, const std::string& args) const {
#ifdef PPLAB_MPIEXEC
    return shell("OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1 "
                 "timeout 120 " PPLAB_MPIEXEC " --oversubscribe -n " +
                 std::to_string(ranks) + " sh -c 'exec " + PPLAB_CLI + " " + args + "'");
#else
    (void)ranks, (void)args;
    return {};
#endif
  }

  result shell(const std::string& command) const {
    const std::string out = path("stdout"), err = path("stderr");
    const std::string cmd = command + " >" + out + " 2>" + err;
    const int status = std::system(cmd.c_str());
    const auto slurp = [](const std::string& p) {
      std::ifstream in(p);
      std::stringstream s;
      s << in.rdbuf();
      return s.str();
    };
    return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), slurp(out),
            slurp(err)};
  }

  std::string read_all(const std::string& p) const {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  void write(const std::string& name, const std::string& bytes) const {
    std::ofstream(path(name), std::ios::binary) << bytes;
  }

  void expect_failure(const std::string& args, int code, const std::string& words) const {
    const result r = run(args);
    EXPECT_EQ(r.code, code) << args << "\n" << r.err;
    EXPECT_EQ(r.err.rfind("pplab: error: ", 0), 0u) << args << "\n" << r.err;
    EXPECT_NE(r.err.find(words), std::string::npos) << args << "\n" << r.err;
  }

  fs::path dir;
};

// correlate and convolve refuse a bad mask or mode with exit 2 and write nothing; an image in
// gives an image out, each channel filtered on its own, rounded and saturated.
TEST_F(Cli, FiltersRefuseBadMasksAndWriteImages) {
  const auto npy = [&](const std::string& name, dtype t, std::vector<std::size_t> shape) {
    io::array a;
    a.type = t;
    a.shape = shape;
    std::size_t n = 1;
    for (std::size_t s : shape) n *= s;
    a.bytes.assign(n * size_of(t), std::byte{1});
    io::write_npy(path(name), a);
  };
  npy("x.npy", dtype::f32, {9, 7});
  npy("even.npy", dtype::f64, {4, 3});
  npy("big.npy", dtype::f64, {65, 3});
  npy("flat.npy", dtype::f64, {9});
  npy("bytes.npy", dtype::u8, {3, 3});
  const std::string in = "correlate --input " + path("x.npy") + " --out " + path("y.npy") + " ";
  // Masks the rungs do not take (an even side, a side past 31), --origin, or an array of another
  // rank: SciPy's arithmetic (its answers checked against SciPy by tests/scipy_oracle.py).
  for (const std::string& mask : {path("even.npy"), path("big.npy")}) {
    const result r = run("convolve --input " + path("x.npy") + " --mask " + mask +
                         " --origin 0,-1 --json --out " + path("scipys.npy"));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("\"rung\":\"scipy order\""), std::string::npos) << r.out;
    EXPECT_EQ(io::read_npy(path("scipys.npy")).shape, (std::vector<std::size_t>{9, 7}));
    fs::remove(path("scipys.npy"));
  }
  expect_failure(in + "--mask " + path("flat.npy"), 2, "2-D");
  expect_failure(in + "--mask " + path("even.npy") + " --origin 2", 2, "invalid origin 2");
  expect_failure(in + "--mask box:3 --origin 1,2,3", 2, "3 values for an array of 2 axes");
  expect_failure(in + "--mask box:3 --origin x", 2, "a whole number");
  expect_failure(in + "--mask " + path("even.npy") + " --rung c01_direct_loop", 2,
                 "SciPy's arithmetic, not a rung");
  expect_failure("correlate --input " + path("flat.npy") + " --mask box:3", 2,
                 "the mask has 2 axes and the input 1");
  expect_failure(in + "--mask " + path("bytes.npy"), 2, "u8");
  expect_failure(in + "--mask box:3 --mode same", 2, "unknown boundary mode");
  expect_failure(in + "--mask box:4", 2, "odd");
  expect_failure(in + "--mask gaussian:sigma=4", 2, "below 3.875");
  expect_failure(in + "--mask gaussian:sigma=3.875", 2, "below 3.875");
  expect_failure(in + "--mask gaussian:sigma=3e18", 2, "below 3.875");
  expect_failure(in + "--mask gaussian:sigma=1e300", 2, "below 3.875");
  // The widest Gaussian that fits (31 taps) runs; a tiny one is the identity, as in SciPy.
  {
    const result wide =
        run("correlate --input " + path("x.npy") + " --mask gaussian:sigma=3.874 --json");
    ASSERT_EQ(wide.code, 0) << wide.err;
    EXPECT_NE(wide.out.find("\"mask\":[31,31]"), std::string::npos) << wide.out;
    const result tiny = run("correlate --input " + path("x.npy") +
                            " --mask gaussian:sigma=1e-300 --out " + path("tiny.npy"));
    ASSERT_EQ(tiny.code, 0) << tiny.err;
    EXPECT_EQ(read_all(path("tiny.npy")), read_all(path("x.npy")));
    fs::remove(path("tiny.npy"));
  }
  expect_failure(in + "--mask laplace", 2, "unknown mask");
  // pplab filter NAME: scipy.ndimage's named filters; their values are checked against SciPy by
  // tests/scipy_oracle.py, their refusals here.
  const std::string named = "filter --input " + path("x.npy") + " --out " + path("y.npy") + " ";
  expect_failure(named.substr(0, 7) + "bilateral --input " + path("x.npy"), 2, "no such filter");
  expect_failure(named + "gaussian", 2, "give --sigma");
  expect_failure(named + "gaussian --sigma -1", 2, "0 or more");
  expect_failure(named + "gaussian --sigma 4", 2, "at most 31");
  expect_failure(named + "gaussian --sigma 1e300", 2, "at most 31");
  expect_failure(named + "gaussian --sigma 1,2,3", 2, "one value, or two");
  expect_failure(named + "gaussian --sigma x", 2, "not a number");
  expect_failure(named + "gaussian --sigma 1 --truncate 0", 2, "above 0");
  expect_failure(named + "uniform --size 0", 2, "a whole number, 1 to 31");
  expect_failure(named + "uniform --size 2.5", 2, "a whole number, 1 to 31");
  expect_failure(named + "uniform --size 32", 2, "a whole number, 1 to 31");
  expect_failure(named + "sobel --axis 2", 2, "--axis 2");
  {
    const result sobel = run(named + "sobel --axis 0 --mode constant --cval 2 --json");
    ASSERT_EQ(sobel.code, 0) << sobel.err;  // SciPy's two passes, 3 x 1 then 1 x 3
    EXPECT_NE(sobel.out.find("\"mask\":[3,3]"), std::string::npos) << sobel.out;
    EXPECT_NE(sobel.out.find("\"op\":\"filter sobel\""), std::string::npos) << sobel.out;
    fs::remove(path("y.npy"));
  }
  expect_failure("correlate --shape 5x --mask box:3", 2, "--shape wants RxC");
  // An empty generated image is an empty answer, as an empty file is.
  const result empty = run("correlate --shape 0x5 --mask box:3 --out " + path("empty.npy"));
  ASSERT_EQ(empty.code, 0) << empty.err;
  EXPECT_NE(empty.out.find("no rung ran"), std::string::npos) << empty.out;
  EXPECT_EQ(io::read_npy(path("empty.npy")).shape, (std::vector<std::size_t>{0, 5}));
  expect_failure("correlate --input " + path("x.npy") + " --mask box:3 --out " + path("y.jpg"), 2,
                 "it writes .npy, .png, .ppm, .pgm, .pnm");
  EXPECT_FALSE(fs::exists(path("y.jpg"))) << "an output named for no known format was written";
  EXPECT_FALSE(fs::exists(path("y.npy"))) << "a refused filter wrote its output";
  // A 2 x 3 RGB image, every channel its own constant: a box filter keeps each, in its channel.
  {
    std::ofstream ppm(path("in.ppm"), std::ios::binary);
    ppm << "P6\n3 2\n255\n";
    for (int i = 0; i < 6; ++i) ppm << char(10) << char(100) << char(250);
  }
  const result r = run("convolve --input " + path("in.ppm") +
                       " --mask box:3 --mode nearest --out " + path("out.ppm"));
  ASSERT_EQ(r.code, 0) << r.err;
  const io::input out = io::read_input(path("out.ppm"), "", nullptr);
  ASSERT_EQ(out.channels.size(), 3u);
  for (std::size_t c = 0; c < 3; ++c) {
    const auto* v = static_cast<const std::uint8_t*>(out.channels[c].data());
    for (std::size_t i = 0; i < 6; ++i) EXPECT_EQ(int(v[i]), c == 0 ? 10 : c == 1 ? 100 : 250);
  }
}

// --u8 writes a float image's filtered values rounded and saturated, whatever its float width:
// an f64 image of 100.0 is 100 everywhere, never its bytes read as f32.
TEST_F(Cli, U8OutputOfFloatImagesIsTheirRoundedValues) {
  for (dtype t : {dtype::f32, dtype::f64}) {
    io::array a;
    a.type = t;
    a.shape = {4, 5};
    a.bytes.resize(20 * size_of(t));
    for (std::size_t i = 0; i < 20; ++i) {
      const double v = i == 7 ? 300.0 : i == 8 ? -5.0 : 100.25;
      if (t == dtype::f64) static_cast<double*>(a.data())[i] = v;
      else static_cast<float*>(a.data())[i] = float(v);
    }
    io::write_npy(path("f.npy"), a);
    const result r =
        run("correlate --input " + path("f.npy") + " --mask box:1 --u8 --out " + path("u8.npy"));
    ASSERT_EQ(r.code, 0) << r.err;
    const io::array out = io::read_npy(path("u8.npy"));
    ASSERT_EQ(out.type, dtype::u8);
    ASSERT_EQ(out.shape, (std::vector<std::size_t>{4, 5}));
    const auto* v = static_cast<const std::uint8_t*>(out.data());
    for (std::size_t i = 0; i < 20; ++i)
      EXPECT_EQ(int(v[i]), i == 7 ? 255 : i == 8 ? 0 : 100) << name_of(t) << " at " << i;
  }
}

// Output names match their formats in any case, as input names do: X.NPY is a .npy, Y.PGM a PGM.
TEST_F(Cli, OutputExtensionsIgnoreCase) {
  const result npy = run("correlate --shape 6x7 --mask box:3 --out " + path("X.NPY"));
  ASSERT_EQ(npy.code, 0) << npy.err;
  EXPECT_EQ(io::read_npy(path("X.NPY")).shape, (std::vector<std::size_t>{6, 7}));
  const result pgm = run("correlate --shape 6x7 --mask box:3 --out " + path("Y.PGM"));
  ASSERT_EQ(pgm.code, 0) << pgm.err;
  EXPECT_EQ(read_all(path("Y.PGM")).rfind("P5\n7 6\n255\n", 0), 0u);
  const result mm =
      run("matmul --a " + path("X.NPY") + " --b " + path("X.NPY") + " --out " + path("Z.Npy"));
  EXPECT_EQ(mm.code, 2) << "6x7 times 6x7 is a shape error, not a name error: " << mm.err;
  EXPECT_EQ(mm.err.find("no format"), std::string::npos) << mm.err;
}

TEST_F(Cli, ReduceJsonMatchesTheLibraryOnTheSameGeneratedData) {
  const result r = run("reduce --op sum --dtype i32 --n 100003 --seed 9 --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  std::vector<std::int32_t> x(100003);
  detail::generate(dtype::i32, x.data(), x.size(), detail::distribution::uniform, 9);
  EXPECT_EQ(j["op"], "sum");
  EXPECT_EQ(j["dtype"], "i32");
  EXPECT_EQ(j["n"], 100003);
  EXPECT_EQ(j["value"].get<std::int64_t>(), reduce(seq, x, sum));
}

TEST_F(Cli, ReduceReadsTextAndNpyAndRunsAVariant) {
  write("x.txt", "1 2 3\n4,5\n");
  result r = run("reduce --op mean --input " + path("x.txt") + " --json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["value"].get<double>(), 3.0);
  // The rung the call ran, as the call itself reports it: the policy's pick.
  EXPECT_EQ(
      nlohmann::json::parse(r.out)["rung"].get<std::string>(),
      detail::default_rung<detail::reduce_rung>(backend::cpu, {dtype::f64, op::mean, 5}).info.id);
  r = run("histogram --input " + path("x.txt") + " --bins 4 --json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["rung"].get<std::string>(),
            detail::default_rung<detail::histogram_rung>(backend::cpu,
                                                         {dtype::f64, 5, 4, 1, 5, true, false})
                .info.id);
  io::array a;
  a.type = dtype::f32;
  a.shape = {3};
  const float v[3] = {1.5f, -7.0f, 2.0f};
  a.bytes.assign(reinterpret_cast<const std::byte*>(v), reinterpret_cast<const std::byte*>(v) + 12);
  io::write_npy(path("x.npy"), a);
  r = run("reduce --op min --input " + path("x.npy") +
          " --rung reduce/cpu/r02_partition_tree_combine --json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["value"].get<double>(), -7.0);
  // A rung by the last part of its id, when only one id ends so; a part of a part names none.
  r = run("reduce --op min --input " + path("x.npy") +
          " --variant r02_partition_tree_combine --json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["value"].get<double>(), -7.0);
  EXPECT_EQ(nlohmann::json::parse(r.out)["rung"].get<std::string>(),
            "reduce/cpu/r02_partition_tree_combine");
  expect_failure("reduce --op sum --variant tree_combine", 2, "no reduce rung");
  r = run("reduce --op max --input " + path("x.npy"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("max of"), std::string::npos);
}

// reduce --exact: the real sum rounded once, where a float sum loses the 1 whole; the mean; what
// it does not take refused with exit 2.
TEST_F(Cli, ReduceExactly) {
  io::array a;
  a.type = dtype::f64;
  a.shape = {4};
  const double v[4] = {1e300, 1.0, -1e300, std::ldexp(1.0, -60)};
  a.bytes.assign(reinterpret_cast<const std::byte*>(v), reinterpret_cast<const std::byte*>(v) + 32);
  io::write_npy(path("e.npy"), a);
  result r = run("reduce --op sum --exact --input " + path("e.npy") + " --json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["value"].get<double>(), 1.0);
  r = run("reduce --op mean --exact --backend seq --input " + path("e.npy") + " --json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["value"].get<double>(), 0.25);
  r = run("reduce --op sum --exact --backend seq --rung r02_exact_long_accumulator --input " +
          path("e.npy") + " --json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["value"].get<double>(), 1.0);
  EXPECT_EQ(nlohmann::json::parse(r.out)["rung"], "reduce/seq/r02_exact_long_accumulator");
  expect_failure("reduce --op sum --exact --rung r03_simd_accumulators --input " + path("e.npy"), 1,
                 "cannot run this problem");
  expect_failure("reduce --op max --exact --input " + path("e.npy"), 2, "sum and mean");
  // Along an axis: each line's exact sum (a 2 x 3 array: 1e300 and -1e300 cancel in column 0).
  io::array m;
  m.type = dtype::f64;
  m.shape = {2, 3};
  const double g[6] = {1e300, 1.0, 2.0, -1e300, std::ldexp(1.0, -60), 3.0};
  m.bytes.assign(reinterpret_cast<const std::byte*>(g), reinterpret_cast<const std::byte*>(g) + 48);
  io::write_npy(path("m.npy"), m);
  r = run("reduce --op sum --exact --axis 0 --input " + path("m.npy") + " --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto cols = nlohmann::json::parse(r.out)["values"];
  ASSERT_EQ(cols.size(), 3u);
  EXPECT_EQ(cols[0].get<double>(), 0.0);
  EXPECT_EQ(cols[1].get<double>(), 1.0 + std::ldexp(1.0, -60));
  EXPECT_EQ(cols[2].get<double>(), 5.0);
  r = run("reduce --op mean --exact --axis -1 --input " + path("m.npy") + " --json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["values"][1].get<double>(), -1e300 / 3);
  expect_failure("reduce --op max --exact --axis 0 --input " + path("m.npy"), 2, "sum");
  expect_failure("reduce --op sum --exact --dtype i32 --n 10", 2, "exact already");
  // Generated data spread over 120 binades (--dist spread: blocks no window takes): seq's and
  // cpu's exact sums are the long accumulator's, and the data's exponents do spread.
  for (const char* type : {"f32", "f64"}) {
    const std::string spread =
        std::string("reduce --op sum --exact --n 100003 --dist spread --json --dtype ") + type;
    r = run(spread + " --backend seq --rung r02_exact_long_accumulator");
    ASSERT_EQ(r.code, 0) << r.err;
    const double want = nlohmann::json::parse(r.out)["value"].get<double>();
    for (const char* b : {"seq", "cpu"}) {
      r = run(spread + " --backend " + b);
      ASSERT_EQ(r.code, 0) << r.err;
      EXPECT_EQ(nlohmann::json::parse(r.out)["value"].get<double>(), want) << type << " " << b;
    }
  }
  std::vector<float> x(4096);
  detail::generate(dtype::f32, x.data(), x.size(), detail::distribution::spread, 1);
  const auto [lo, hi] = std::minmax_element(
      x.begin(), x.end(), [](float a, float b) { return std::abs(a) < std::abs(b); });
  EXPECT_GT(std::log2(std::abs(*hi)) - std::log2(std::abs(*lo)), 100.0);
  EXPECT_LT(std::abs(*hi), 0x1p66f);
}

// reduce --axis K: one axis of a .npy array reduced, as numpy.sum(x, axis=K): JSON and .npy
// answers, negative axes, and bad axes refused with exit 2.
TEST_F(Cli, ReduceAlongAnAxis) {
  io::array a;
  a.type = dtype::i32;
  a.shape = {2, 3, 4};
  std::vector<std::int32_t> v(24);
  for (int i = 0; i < 24; ++i) v[std::size_t(i)] = i;
  a.bytes.assign(reinterpret_cast<const std::byte*>(v.data()),
                 reinterpret_cast<const std::byte*>(v.data()) + 96);
  io::write_npy(path("x.npy"), a);
  result r = run("reduce --op sum --input " + path("x.npy") + " --axis 1 --json");
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["shape"], nlohmann::json({2, 4}));
  EXPECT_EQ(j["values"], nlohmann::json({12, 15, 18, 21, 48, 51, 54, 57}));
  r = run("reduce --op max --input " + path("x.npy") + " --axis -1 --out " + path("m.npy"));
  ASSERT_EQ(r.code, 0) << r.err;
  const io::array m = io::read_npy(path("m.npy"));
  EXPECT_EQ(m.type, dtype::i64);
  EXPECT_EQ(m.shape, (std::vector<std::size_t>{2, 3}));
  std::vector<std::int64_t> got(6);
  std::memcpy(got.data(), m.data(), 48);
  EXPECT_EQ(got, (std::vector<std::int64_t>{3, 7, 11, 15, 19, 23}));
  expect_failure("reduce --op sum --input " + path("x.npy") + " --axis 3", 2, "out of bounds");
  expect_failure("reduce --op sum --input " + path("x.npy") + " --out " + path("y.npy"), 2,
                 "--out is for --axis");
  // argmin and argmax: the first extreme's index, of the whole array and along an axis.
  v[5] = 100, v[17] = 100, v[9] = -7;
  std::memcpy(a.bytes.data(), v.data(), 96);
  io::write_npy(path("t.npy"), a);
  for (const char* b : {"seq", "cpu"}) {
    r = run("reduce --op argmax --backend " + std::string(b) + " --input " + path("t.npy") +
            " --json");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out)["value"], 5);
    r = run("reduce --op argmin --backend " + std::string(b) + " --input " + path("t.npy") +
            " --axis 0 --json");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out)["values"],
              nlohmann::json({0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
  }
  r = run("reduce --op argmax --input " + path("t.npy") + " --axis 2 --json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["values"], nlohmann::json({3, 1, 3, 3, 1, 3}));
}

// The nan ops from the shell: NaN left out, whole and along an axis; a line of NaN alone is an
// error for nanargmin and nanargmax (exit 2), NaN with a number for nanmax's.
TEST_F(Cli, NanOpsLeaveNaNOut) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  io::array a;
  a.type = dtype::f64;
  a.shape = {2, 3};
  const std::vector<double> v = {nan, 4.0, 1.0, nan, nan, 2.5};
  a.bytes.assign(reinterpret_cast<const std::byte*>(v.data()),
                 reinterpret_cast<const std::byte*>(v.data()) + 48);
  io::write_npy(path("n.npy"), a);
  for (const char* b : {"seq", "cpu"}) {
    const std::string in = " --backend " + std::string(b) + " --input " + path("n.npy") + " --json";
    result r = run("reduce --op nanmax" + in);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out)["value"], 4.0);
    r = run("reduce --op nanmean" + in);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_DOUBLE_EQ(nlohmann::json::parse(r.out)["value"].get<double>(), 2.5);
    r = run("reduce --op nansum" + in + " --axis 0");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out)["values"], nlohmann::json({0.0, 4.0, 3.5}));
    r = run("reduce --op nanargmin" + in + " --axis 1");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out)["values"], nlohmann::json({2, 2}));
  }
  const std::vector<double> alone = {nan, nan};
  a.shape = {2};
  a.bytes.assign(reinterpret_cast<const std::byte*>(alone.data()),
                 reinterpret_cast<const std::byte*>(alone.data()) + 16);
  io::write_npy(path("alone.npy"), a);
  expect_failure("reduce --op nanargmax --input " + path("alone.npy"), 2, "All-NaN slice");
}

TEST_F(Cli, HistogramOfATextFileCountsLetters) {
  write("hello.dat", "hello");  // not .txt (numbers) nor .npy: read as bytes
  const result r = run("histogram --input " + path("hello.dat") + " --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["counts"].size(), 256u);
  ASSERT_EQ(j["edges"].size(), 257u);
  EXPECT_EQ(j["counts"]['l'], 2);
  EXPECT_EQ(j["counts"]['h'], 1);
  EXPECT_EQ(j["underflow"], 0);
  EXPECT_EQ(j["nan"], 0);
  const result chart = run("histogram --input " + path("hello.dat"));
  ASSERT_EQ(chart.code, 0);
  EXPECT_NE(chart.out.find("'l'"), std::string::npos) << chart.out;
}

TEST_F(Cli, HistogramRangeBinsNumpyAndCsv) {
  write("v.txt", "0 0.5 1 1 2 -1 nan");
  result r = run("histogram --input " + path("v.txt") + " --bins 2 --range 0:1 --json");
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["counts"], nlohmann::json({1, 1}));
  EXPECT_EQ(j["overflow"], 3);
  EXPECT_EQ(j["underflow"], 1);
  EXPECT_EQ(j["nan"], 1);
  r = run("histogram --input " + path("v.txt") + " --bins 2 --range=0:1 --numpy --json");
  j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["counts"], nlohmann::json({1, 3}));
  // --numpy names NumPy's major version, 1 or 2; the text output says which it followed.
  for (const char* major : {"1", "2"}) {
    r = run("histogram --input " + path("v.txt") + " --bins 2 --range 0:1 --numpy=" + major);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find(std::string("as NumPy ") + major), std::string::npos) << r.out;
  }
  expect_failure("histogram --input " + path("v.txt") + " --numpy=3", 2, "--numpy=1 or --numpy=2");
  r = run("histogram --input " + path("v.txt") + " --bins 4 --range -1:3 --csv");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1 + 4 + 3);
}

// numpy.histogram's bins=array, weights= and density= from files: the sums and densities of a
// hand-checked case, the edges as given, and bad edges or weights refused with exit 2.
TEST_F(Cli, HistogramEdgesWeightsAndDensity) {
  write("v.txt", "0 0.5 1 1 2 -1 nan 3");
  write("e.txt", "0, 1\n2.5");  // bins [0, 1) and [1, 2.5]
  io::array w;
  w.type = dtype::f64;
  w.shape = {8};
  const double weights[8] = {1, 2, 4, 8, 16, 32, 64, 128};
  w.bytes.assign(reinterpret_cast<const std::byte*>(weights),
                 reinterpret_cast<const std::byte*>(weights) + sizeof weights);
  io::write_npy(path("w.npy"), w);
  result r = run("histogram --input " + path("v.txt") + " --edges " + path("e.txt") + " --json");
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["counts"], nlohmann::json({2, 3}));
  EXPECT_EQ(j["edges"], nlohmann::json({0.0, 1.0, 2.5}));
  r = run("histogram --input " + path("v.txt") + " --edges " + path("e.txt") + " --weights " +
          path("w.npy") + " --json");
  ASSERT_EQ(r.code, 0) << r.err;
  j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["sums"], nlohmann::json({3.0, 28.0}));
  EXPECT_EQ(j["underflow"], 32.0);
  EXPECT_EQ(j["overflow"], 128.0);
  EXPECT_EQ(j["nan"], 64.0);
  r = run("histogram --input " + path("v.txt") + " --edges " + path("e.txt") + " --weights " +
          path("w.npy") + " --density --json");
  ASSERT_EQ(r.code, 0) << r.err;
  j = nlohmann::json::parse(r.out);
  EXPECT_DOUBLE_EQ(j["density"][0].get<double>(), 3.0 / 1 / 31);
  EXPECT_DOUBLE_EQ(j["density"][1].get<double>(), 28.0 / 1.5 / 31);
  r = run("histogram --input " + path("v.txt") + " --edges " + path("e.txt") + " --weights " +
          path("w.npy"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("sums of weights"), std::string::npos) << r.out;
  write("down.txt", "0 2 1");
  expect_failure("histogram --input " + path("v.txt") + " --edges " + path("down.txt"), 2,
                 "must not decrease");
  write("word.txt", "0 x 1");
  expect_failure("histogram --input " + path("v.txt") + " --edges " + path("word.txt"), 2,
                 "not a number");
  expect_failure("histogram --input " + path("v.txt") + " --edges " + path("e.txt") + " --bins 3",
                 2, "--edges alone");
  write("short.txt", "1 2 3");
  expect_failure("histogram --input " + path("short.txt") + " --weights " + path("w.npy"), 2,
                 "8 weights for 3 values");
}

// histogram2d: points from two .npy files into a grid, as numpy.histogram2d; the bins as .npy
// (float64), JSON counts, weights; bad bins refused with exit 2.
TEST_F(Cli, Histogram2dCountsPointsIntoAGrid) {
  const auto save = [&](const std::string& name, std::vector<double> v) {
    io::array a;
    a.type = dtype::f64;
    a.shape = {v.size()};
    a.bytes.assign(reinterpret_cast<const std::byte*>(v.data()),
                   reinterpret_cast<const std::byte*>(v.data()) + v.size() * 8);
    io::write_npy(path(name), a);
  };
  save("x.npy", {0.1, 0.6, 0.6, 1.0, 5.0, std::nan("")});
  save("y.npy", {0.1, 0.1, 0.9, 1.0, 0.5, 0.5});
  save("w.npy", {1, 2, 4, 8, 16, 32});
  const std::string points = "histogram2d --x " + path("x.npy") + " --y " + path("y.npy");
  result r = run(points + " --bins 2 --range 0:1,0:1 --json --out " + path("h.npy"));
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["counts"], nlohmann::json({1, 0, 1, 2}));  // x [0, .5): y low; x [.5, 1]: both
  EXPECT_EQ(j["outside"], 2);
  const io::array h = io::read_npy(path("h.npy"));
  EXPECT_EQ(h.type, dtype::f64);
  EXPECT_EQ(h.shape, (std::vector<std::size_t>{2, 2}));
  r = run(points + " --bins 2x1 --range 0:1,0:1 --weights " + path("w.npy") + " --json");
  ASSERT_EQ(r.code, 0) << r.err;
  j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["sums"], nlohmann::json({1.0, 14.0}));
  EXPECT_EQ(j["outside"], 48.0);
  expect_failure(points + " --bins 8y4", 2, "NXxNY");
  expect_failure(points + " --range 0:1", 2, "X0:X1,Y0:Y1");
}

// histogramdd: an (N, D) array's rows, or an image's pixels (its channels the axes), into bins
// per axis, as numpy.histogramdd; the bins as .npy of D axes; bad bins and ranges refused.
TEST_F(Cli, HistogramddCountsRowsAndPixels) {
  io::array a;
  a.type = dtype::f64;
  a.shape = {5, 3};
  const double rows[15] = {0.1, 0.1, 0.1, 0.9, 0.1, 0.9, 0.9, 0.1,
                           0.9, 1.0, 1.0, 1.0, 2.0, 0.5, 0.5};  // the last outside axis 0
  a.bytes.assign(reinterpret_cast<const std::byte*>(rows),
                 reinterpret_cast<const std::byte*>(rows) + sizeof rows);
  io::write_npy(path("p.npy"), a);
  result r = run("histogramdd --input " + path("p.npy") +
                 " --bins 2 --range 0:1,0:1,0:1 --json --out " + path("h.npy"));
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  // bins in C order: (0,0,0) one, (1,0,1) two, (1,1,1) one (on every last edge)
  EXPECT_EQ(j["counts"], nlohmann::json({1, 0, 0, 0, 0, 2, 0, 1}));
  EXPECT_EQ(j["outside"], 1);
  const io::array h = io::read_npy(path("h.npy"));
  EXPECT_EQ(h.shape, (std::vector<std::size_t>{2, 2, 2}));
  // A 2x1 binary PPM: pixels (255, 0, 10) and (255, 1, 10), 2 x 2 x 1 bins over 0:256.
  write("img.ppm", std::string("P6\n2 1\n255\n") + std::string("\xff\x00\x0a\xff\x01\x0a", 6));
  r = run("histogramdd --input " + path("img.ppm") +
          " --bins 2x2x1 --range 0:256,0:256,0:256 --json");
  ASSERT_EQ(r.code, 0) << r.err;
  j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["counts"], nlohmann::json({0, 0, 2, 0}));  // red high, green and blue low
  expect_failure("histogramdd --input " + path("p.npy") + " --bins 2x2", 2, "2 numbers for 3");
  expect_failure("histogramdd --input " + path("p.npy") + " --range 0:1", 2, "one lo:hi per axis");
  expect_failure("histogramdd --input " + path("p.npy") + " --bins 4y4", 2, "joined by x");
}

TEST_F(Cli, HistogramOfAnImageGivesOneHistogramPerChannel) {
  // A 2x1 binary PPM: pixels (255, 0, 10) and (255, 1, 10).
  write("img.ppm", std::string("P6\n2 1\n255\n") + std::string("\xff\x00\x0a\xff\x01\x0a", 6));
  const result r = run("histogram --input " + path("img.ppm") + " --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["channels"].size(), 3u);
  EXPECT_EQ(j["channels"][0]["channel"], "R");
  EXPECT_EQ(j["channels"][0]["counts"][255], 2);
  EXPECT_EQ(j["channels"][1]["counts"][0], 1);
  EXPECT_EQ(j["channels"][1]["counts"][1], 1);
  EXPECT_EQ(j["channels"][2]["counts"][10], 2);
}

TEST_F(Cli, MatmulWritesTheProduct) {
  io::array a, b;
  a.type = b.type = dtype::f64;
  a.shape = {2, 3};
  b.shape = {3, 1};
  const double av[6] = {1, 2, 3, 4, 5, 6}, bv[3] = {1, 0, -1};
  a.bytes.assign(reinterpret_cast<const std::byte*>(av),
                 reinterpret_cast<const std::byte*>(av) + 48);
  b.bytes.assign(reinterpret_cast<const std::byte*>(bv),
                 reinterpret_cast<const std::byte*>(bv) + 24);
  io::write_npy(path("a.npy"), a);
  io::write_npy(path("b.npy"), b);
  const result r =
      run("matmul --a " + path("a.npy") + " --b " + path("b.npy") + " --out " + path("c.npy"));
  ASSERT_EQ(r.code, 0) << r.err;
  const io::array c = io::read_npy(path("c.npy"));
  ASSERT_EQ(c.shape, (std::vector<std::size_t>{2, 1}));
  const double* cv = reinterpret_cast<const double*>(c.bytes.data());
  EXPECT_EQ(cv[0], -2.0);
  EXPECT_EQ(cv[1], -2.0);
  expect_failure("matmul --a " + path("a.npy") + " --b " + path("a.npy"), 2, "shapes do not match");
  expect_failure("matmul --a " + path("a.npy") + " --b " + path("b.npy") + " --out " +
                     path("c.csv"),
                 2, "'.csv' is no format this command writes; it writes .npy");
  EXPECT_FALSE(fs::exists(path("c.csv"))) << "an output named for no known format was written";
}

// numpy.matmul's shapes from .npy files: a stack times a matrix, a stack broadcast against a
// stack of one, a matrix times a vector (the axis dropped), two vectors (a 0-d answer); every
// value small integers, so the products are exact.
TEST_F(Cli, MatmulTakesVectorsAndStacks) {
  const auto save = [&](const std::string& name, std::vector<std::size_t> shape) {
    io::array x;
    x.type = dtype::f64;
    x.shape = shape;
    std::size_t n = 1;
    for (std::size_t d : shape) n *= d;
    std::vector<double> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = double(int(i % 7) - 3);
    x.bytes.assign(reinterpret_cast<const std::byte*>(v.data()),
                   reinterpret_cast<const std::byte*>(v.data() + n));
    io::write_npy(path(name), x);
    return v;
  };
  const std::vector<double> a = save("a3.npy", {3, 2, 4}), b = save("b2.npy", {4, 5}),
                            one = save("b1.npy", {1, 4, 5}), v = save("v.npy", {4}),
                            bad = save("bad.npy", {2, 4, 5});
  const auto product = [&](const std::string& x, const std::string& y) {
    const result r = run("matmul --a " + path(x) + " --b " + path(y) + " --out " + path("c.npy"));
    EXPECT_EQ(r.code, 0) << r.err;
    return io::read_npy(path("c.npy"));
  };
  for (const char* right : {"b2.npy", "b1.npy"}) {
    const io::array c = product("a3.npy", right);
    ASSERT_EQ(c.shape, (std::vector<std::size_t>{3, 2, 5})) << right;
    const double* cv = reinterpret_cast<const double*>(c.bytes.data());
    for (std::size_t s = 0; s < 3; ++s)
      for (std::size_t i = 0; i < 2; ++i)
        for (std::size_t j = 0; j < 5; ++j) {
          double want = 0;
          for (std::size_t k = 0; k < 4; ++k) want += a[(s * 2 + i) * 4 + k] * b[k * 5 + j];
          EXPECT_EQ(cv[(s * 2 + i) * 5 + j], want) << right << " " << s << " " << i << " " << j;
        }
  }
  const io::array mv = product("a3.npy", "v.npy");
  ASSERT_EQ(mv.shape, (std::vector<std::size_t>{3, 2}));
  EXPECT_EQ(reinterpret_cast<const double*>(mv.bytes.data())[5],
            a[20] * v[0] + a[21] * v[1] + a[22] * v[2] + a[23] * v[3]);
  const io::array dot = product("v.npy", "v.npy");
  EXPECT_TRUE(dot.shape.empty());
  EXPECT_EQ(reinterpret_cast<const double*>(dot.bytes.data())[0],
            v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3]);
  expect_failure("matmul --a " + path("a3.npy") + " --b " + path("bad.npy"), 2, "do not broadcast");
  expect_failure("matmul --a " + path("v.npy") + " --b " + path("a3.npy"), 2,
                 "must equal B's rows");
  expect_failure("matmul --a " + path("a3.npy") + " --b " + path("b2.npy") + " --c " +
                     path("b2.npy"),
                 2, "--c takes matrices");
}

// The nccl backend: where two GPUs answer, the same answer as the library's seq backend on the
// same generated data; elsewhere one clear error naming why, and `pplab info` says it too.
TEST_F(Cli, NcclBackendAnswersAsSeqOrSaysWhyNot) {
  const std::string args = "reduce --op sum --dtype i32 --n 100003 --seed 9 --json --backend nccl";
  const result info = run("info --json --no-measure");
  ASSERT_EQ(info.code, 0) << info.err;
  const auto nccl_line = nlohmann::json::parse(info.out)["nccl"];
  if (!available(backend::nccl)) {
    EXPECT_TRUE(nccl_line.contains("absent")) << info.out;
    expect_failure(args, 1, "backend 'nccl' is not usable here");
    return;
  }
  EXPECT_TRUE(nccl_line.contains("gpus")) << info.out;
  const result r = run(args);
  ASSERT_EQ(r.code, 0) << r.err;
  std::vector<std::int32_t> x(100003);
  detail::generate(dtype::i32, x.data(), x.size(), detail::distribution::uniform, 9);
  EXPECT_EQ(nlohmann::json::parse(r.out)["value"].get<std::int64_t>(), reduce(seq, x, sum));
}

// `pplab histogram --backend cuda`: where a GPU answers, the same output, byte for byte, as the
// cpu backend's for every kind of input the command takes (generated data of each width, natural
// and even bins from 1 to 2^20, inferred and given ranges, --numpy, skew that sends h12 to h11,
// a file with NaN, infinities and values on the edges, an image's channels, no data at all);
// elsewhere one clear error naming why.
TEST_F(Cli, CudaHistogramAnswersAsCpuOrSaysWhyNot) {
  if (!available(backend::cuda)) {
    expect_failure("histogram --backend cuda", 1, "backend 'cuda' is not usable here");
    return;
  }
  io::array a;
  a.type = dtype::f32;
  a.shape = {9};
  const float inf = std::numeric_limits<float>::infinity();
  const float v[9] = {0.0f, 1.0f, 0.5f, -0.0f, std::nanf(""), inf, -inf, 0.999999f, 1e-30f};
  a.bytes.assign(reinterpret_cast<const std::byte*>(v), reinterpret_cast<const std::byte*>(v) + 36);
  io::write_npy(path("edges.npy"), a);
  write("img.ppm", std::string("P6\n2 2\n255\n") +
                       std::string("\xff\x00\x0a\xff\x01\x0a\x00\x00\x00\x7f\x80\x81", 12));
  const std::vector<std::string> cases = {
      "--n 100003",
      "--dtype i8 --n 4099 --dist normal",
      "--dtype i16 --n 70001",
      "--dtype u16 --n 65537 --dist constant",
      "--dtype i32 --n 31 --bins 5 --range -100:100",
      "--dtype u32 --n 1 --bins 1",
      "--dtype i64 --n 100003 --bins 1000 --dist skewed",
      "--dtype u64 --n 8191 --bins 3",
      "--dtype f32 --n 100003 --bins 1000 --range -0.25:0.75",
      "--dtype f32 --n 1048583 --bins 65536 --dist normal",
      "--dtype f32 --n 1048583 --bins 1048576 --range 0:1",
      "--dtype f32 --n 1048583 --bins 1048576 --range 0:1 --dist skewed",
      "--dtype f64 --n 99991 --bins 37 --numpy",
      "--dtype f32 --n 0 --bins 4 --range 0:1",
      "--input " + path("edges.npy") + " --bins 4 --range 0:1",
      "--input " + path("edges.npy") + " --bins 4 --range 0:1 --numpy",
      "--input " + path("img.ppm"),
  };
  for (const auto& args : cases) {
    const result want = run("histogram --json --backend cpu " + args),
                 got = run("histogram --json --backend cuda " + args);
    ASSERT_EQ(want.code, 0) << args << "\n" << want.err;
    ASSERT_EQ(got.code, 0) << args << "\n" << got.err;
    // The same answer; the rungs that gave it differ (each backend's own).
    const auto answer = [](const std::string& out) {
      nlohmann::json j = nlohmann::json::parse(out);
      if (j.contains("channels"))
        for (auto& c : j["channels"]) c.erase("rung");
      j.erase("rung");
      return j;
    };
    EXPECT_EQ(answer(got.out), answer(want.out)) << args;
  }
}

TEST_F(Cli, BadInputEndsInAClearErrorAndTheRightStatus) {
  write("bad.npy", "\x93NUMPY\x01\x00garbage");
  write("ints.txt", "1 2 3");
  io::array m;
  m.type = dtype::i32;
  m.shape = {1, 1};
  m.bytes.resize(4);
  io::write_npy(path("int.npy"), m);
  expect_failure("histogram --bins 0", 2, "bins");
  expect_failure("histogram --dtype f32 --range 1:0", 2, "lo must be below hi");
  expect_failure("histogram --range 1", 2, "LO:HI");
  expect_failure("histogram --input " + path("missing.bin"), 1, "cannot open");
  expect_failure("reduce --op sum --input " + path("bad.npy"), 1, "npy");
  expect_failure("reduce --op sum --dtype complex", 2, "unknown dtype");
  expect_failure("reduce --op median", 2, "unknown op");
  expect_failure("reduce", 2, "--op");
  expect_failure("reduce --op sum --backend gpu", 2, "unknown backend");
  expect_failure("reduce --op sum --variant reduce/cpu/nope", 2, "no reduce rung");
  expect_failure("reduce --op mean --input " + path("ints.txt") + " --format raw", 2, "--dtype");
  expect_failure("matmul --a " + path("int.npy") + " --b " + path("int.npy"), 1, "float32");
  expect_failure("matmul --a " + path("missing.npy") + " --b " + path("int.npy"), 1, "cannot open");
  expect_failure("matmul", 2, "--shape MxNxK");
  expect_failure("matmul --shape 4x4", 2, "--shape wants MxNxK");
  expect_failure("matmul --shape 4x4x4 --a " + path("int.npy"), 2, "give --a and --b");
  expect_failure("matmul --shape 4x4x4 --dtype i32", 2, "f32 or f64");
  const result generated = run("matmul --shape 2x3x4 --backend seq");
  EXPECT_EQ(generated.code, 0) << generated.err;
  EXPECT_NE(generated.out.find("(2x4) x (4x3)"), std::string::npos) << generated.out;
  expect_failure("frobnicate", 2, "");
  // Sizes that overflow or exceed the machine are refused before anything is allocated.
  expect_failure("reduce --op sum --n 4611686018427387904 --json", 2, "more than 2^64 bytes");
  expect_failure("reduce --op sum --n 1099511627776 --dtype f64", 2, "more than this machine");
  expect_failure("reduce --op sum --n -5", 2, "--n must be 0 or more");
  expect_failure("reduce --op sum --input " + dir.string(), 1, "is a directory");
  // Outputs: a full device or a path that cannot be written is an error, never "wrote".
  const int full = std::system(
      (std::string(PPLAB_CLI) + " reduce --op sum --n 10 --json >/dev/full 2>" + path("full.err"))
          .c_str());
  EXPECT_EQ(WEXITSTATUS(full), 1) << "stdout on a full device";
  expect_failure("lab reduce --backend seq --quick --json /dev/full --chart " + path("c.svg"), 1,
                 "/dev/full");
  expect_failure("lab reduce --backend seq --quick --json " + path("no/such/dir/x.json"), 1,
                 "cannot write");
  EXPECT_EQ(run("--help").code, 0);
  EXPECT_EQ(run("histogram --help").code, 0);
}

// A text that is not numbers gets a hint to count its bytes; a text's bytes are labelled by their
// characters, an image's pixel values by their numbers; no note of hidden bins when none is.
TEST_F(Cli, HistogramLabelsAndHintsForTextsAndImages) {
  write("book.txt", "# Call me Ishmael.\nCall me.\n");
  expect_failure("histogram --input " + path("book.txt"), 1, "--format bytes");
  result r = run("histogram --input " + path("book.txt") + " --format bytes");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("'#'"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("(0 empty bins"), std::string::npos) << r.out;
  write("img.ppm", std::string("P6\n2 2\n255\n") +
                       std::string("\x21\x0a\x0a\x21\x01\x0a\x00\x00\x00\x7f\x80\x81", 12));
  r = run("histogram --input " + path("img.ppm"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.find("'!'"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("\\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" 33 "), std::string::npos) << r.out;
}

// A 16-bit image is read as u16 samples (a PGM's are big-endian), never cut to its high bytes.
TEST_F(Cli, SixteenBitImagesAreReadWhole) {
  write("deep.pgm",
        std::string("P5\n2 2\n65535\n") + std::string("\x12\x34\xff\xff\x00\x01\x01\x00", 8));
  const result r = run("reduce --op sum --input " + path("deep.pgm") + " --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["dtype"], "u16");
  EXPECT_EQ(j["value"].get<std::uint64_t>(), 0x1234u + 0xffffu + 1u + 0x100u);
  // A 16-bit gray PNG of two pixels, 0x1234 and 0xfffe.
  write("deep.png",
        std::string("\x89\x50\x4e\x47\x0d\x0a\x1a\x0a\x00\x00\x00\x0d\x49\x48\x44\x52\x00\x00\x00"
                    "\x02\x00\x00\x00\x01\x10\x00\x00\x00\x00\x81\xd9\xfc\x15\x00\x00\x00\x0d\x49"
                    "\x44\x41\x54\x78\x9c\x63\x10\x32\xf9\xff\x0f\x00\x03\xe5\x02\x44\x58\xd5\x1a"
                    "\x21\x00\x00\x00\x00\x49\x45\x4e\x44\xae\x42\x60\x82",
                    70));
  const result p = run("reduce --op sum --input " + path("deep.png") + " --json");
  if (p.err.find("this build reads no PNG") != std::string::npos) GTEST_SKIP() << p.err;
  ASSERT_EQ(p.code, 0) << p.err;
  EXPECT_EQ(nlohmann::json::parse(p.out)["value"].get<std::uint64_t>(), 0x1234u + 0xfffeu);
}

// A run ended by SIGTERM (or SIGINT) leaves no temporary file beside its outputs, keeps the old
// record, and its exit status says it was killed by the signal.
TEST_F(Cli, AnInterruptedRunLeavesNoTemporaryFile) {
  write("rec.json", "old record");
  const std::string cmd = std::string(PPLAB_CLI) +
                          " lab reduce --backend seq --quick --budget 3 --no-progress --json " +
                          path("rec.json") +
                          " >/dev/null 2>&1 & pid=$!; sleep 1; kill -TERM $pid; "
                          "wait $pid; echo $? > " +
                          path("status");
  ASSERT_EQ(std::system(("sh -c '" + cmd + "'").c_str()), 0);
  EXPECT_EQ(read_all(path("status")), "143\n");
  EXPECT_EQ(read_all(path("rec.json")), "old record");
  for (const auto& e : std::filesystem::directory_iterator(dir))
    EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();
}

// Absurd numbers (a negative, NaN or endless budget, a negative seed, a matrix past memory) and
// an empty value for any option are errors. An empty value (an unset shell variable) must not
// become a zero, a default or generated data. Exit status 2, nothing written.
TEST_F(Cli, AbsurdAndEmptyValuesAreRefused) {
  expect_failure("lab --quick --budget -1", 2, "--budget");
  expect_failure("lab --quick --budget nan", 2, "--budget");
  expect_failure("lab --quick --budget 1e30", 2, "--budget");
  expect_failure("reduce --op sum --seed -1", 2, "--seed");
  expect_failure("matmul --shape 99999999x99999999x9", 2, "more than this machine");
  for (const std::string args :
       {"reduce --op sum --input ''", "reduce --op sum --n ''",
        "reduce --op sum --n=", "reduce --op sum --seed ''", "reduce --op sum --dtype ''",
        "reduce --op ''", "histogram --range ''", "histogram --bins ''", "list ''", "lab --json ''",
        "matmul --a x.npy --b y.npy --alpha ''", "matmul --a x.npy --b y.npy --out ''"})
    expect_failure(args, 2, "empty");
}

// The chart's default path is the record's, its extension made .svg: a dot in a folder's name is
// not the record's extension, and no file the command was not told of is written. One file for
// both outputs is refused before anything runs.
TEST_F(Cli, LabWritesOnlyTheFilesItIsToldOf) {
  std::filesystem::create_directories(path("t/run.d"));
  write("t/run.svg", "precious");
  const std::string lab = "lab reduce --backend seq --quick --budget 0.01 --no-progress ";
  result r = run(lab + "--json " + path("t/run.d/record"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(read_all(path("t/run.svg")), "precious");
  EXPECT_TRUE(std::filesystem::exists(path("t/run.d/record")));
  EXPECT_TRUE(std::filesystem::exists(path("t/run.d/record.svg")));
  expect_failure(lab + "--json " + path("x") + " --chart " + path("x"), 2, "the same file");
  expect_failure(lab + "--json " + path("t/../x") + " --chart " + path("x"), 2, "the same file");
  EXPECT_FALSE(std::filesystem::exists(path("x")));
  for (const auto& e : std::filesystem::directory_iterator(dir))
    EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();
}

TEST_F(Cli, MatmulOutputIsWrittenWholeOrNotAtAll) {
  io::array m;
  m.type = dtype::f32;
  m.shape = {2, 2};
  m.bytes.resize(16);
  io::write_npy(path("m.npy"), m);
  expect_failure("matmul --a " + path("m.npy") + " --b " + path("m.npy") + " --out /dev/full", 1,
                 "No space left");
  // An unwritable output is reported before the product is computed.
  const result r = run("matmul --a " + path("m.npy") + " --b " + path("m.npy") + " --out " +
                       path("missing/dir/c.npy"));
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.out, "") << "the product ran before the output was found unwritable";
  // An earlier file at the path is replaced whole, and no temporary file is left beside it.
  write("c.npy", "old");
  ASSERT_EQ(
      run("matmul --a " + path("m.npy") + " --b " + path("m.npy") + " --out " + path("c.npy")).code,
      0);
  EXPECT_EQ(io::read_npy(path("c.npy")).shape, (std::vector<std::size_t>{2, 2}));
  std::size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir))
    files += e.path().filename().string().rfind("c.npy", 0) == 0;
  EXPECT_EQ(files, 1u);
}

// JSON has no NaN or infinity: they are the strings "nan", "inf" and "-inf", never null.
TEST_F(Cli, NonFiniteValuesStayApartInJson) {
  write("v.txt", "1 inf 3");
  result r = run("reduce --op sum --input " + path("v.txt") + " --json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["value"], "inf");
  write("v.txt", "1 -inf 3");
  r = run("reduce --op min --input " + path("v.txt") + " --json");
  EXPECT_EQ(nlohmann::json::parse(r.out)["value"], "-inf");
  write("v.txt", "1 nan 3");
  r = run("reduce --op max --input " + path("v.txt") + " --json");
  EXPECT_EQ(nlohmann::json::parse(r.out)["value"], "nan");
}

TEST_F(Cli, InfoListAndAQuickLabRecord) {
  result r = run("info --json --no-measure");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(nlohmann::json::parse(r.out)["backends"]["cpu"].get<bool>());
  r = run("list reduce --json");
  ASSERT_EQ(r.code, 0) << r.err;
  std::size_t reduce_rungs = 0, cpu_rungs = 0, exact_cpu_rungs = 0, moments_cpu_rungs = 0;
  for (const detail::rung_info& x : lab::all_rungs())
    if (x.pattern() == "reduce") {
      ++reduce_rungs, cpu_rungs += x.where == backend::cpu;
      exact_cpu_rungs += x.where == backend::cpu && x.id.find("exact") != std::string_view::npos;
      moments_cpu_rungs +=
          x.where == backend::cpu && x.id.find("moments") != std::string_view::npos;
    }
  EXPECT_EQ(nlohmann::json::parse(r.out).size(), reduce_rungs);
  r = run("lab reduce --backend cpu --quick --budget 0.01 --json " + path("lab.json"));
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  std::ifstream in(path("lab.json"));
  const auto rec = nlohmann::json::parse(in);
  EXPECT_TRUE(rec.contains("ceilings"));
  EXPECT_GT(rec["ceilings"]["read_GBps"].get<double>(), 0);
  // Six plain problems (a count_nonzero among them), each on every plain cpu rung; a var and a
  // nanmean, on the rungs for var alone and r02 (which takes every op); a nansum on r02 and r03
  // (r01's omp clause takes no nan op); two exact ones, on the exact rungs.
  EXPECT_EQ(rec["rows"].size(), 6 * (cpu_rungs - exact_cpu_rungs - moments_cpu_rungs) +
                                    2 * (moments_cpu_rungs + 1) + 2 + 2 * exact_cpu_rungs);
  for (const auto& row : rec["rows"]) EXPECT_TRUE(row["verified"].get<bool>()) << row.dump();
  EXPECT_FALSE(rec["ceilings"].contains("store_GBps"));  // measured for histograms only
  for (const auto& row : rec["rows"])  // an honest ceiling: no rung reads above it
    EXPECT_FALSE(rec["ceilings"][row["ceiling"].get<std::string>()].is_null()) << row.dump();
  EXPECT_TRUE(fs::exists(path("lab.svg")));
}

// --rung (or --variant) keeps the rungs whose id has the text, and the baselines; a text no rung
// has is an error before anything runs.
TEST_F(Cli, LabRungFilter) {
  const result r =
      run("lab matmul --backend cpu --quick --budget 0.01 --variant m02 --json " + path("mm.json"));
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  std::ifstream in(path("mm.json"));
  const auto rec = nlohmann::json::parse(in);
  ASSERT_FALSE(rec["rows"].empty());
  bool filtered = false;
  for (const auto& row : rec["rows"]) {
    const std::string id = row["rung"].get<std::string>();
    EXPECT_TRUE(id.find("m02") != std::string::npos || row["step"].get<int>() == 0) << id;
    filtered |= id.find("m02") != std::string::npos;
  }
  EXPECT_TRUE(filtered);
  expect_failure("lab matmul --backend cpu --quick --variant no_such_rung", 2, "no_such_rung");
}

// The chart can be read without the table: a legend, each panel's ceiling with its unit, an axis,
// and each bar's rate and speed-up over the baseline; it renders (rsvg-convert, where installed).
TEST_F(Cli, TheLabChartSaysWhatItsBarsMean) {
  const result r =
      run("lab matmul --backend cpu --quick --budget 0.01 --no-progress --json " + path("c.json"));
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  const std::string svg = read_all(path("c.svg"));
  for (const char* words :
       {"share of the ceiling", "the vendor baseline", "100% of the ceiling",
        "ceiling: fp32 FMA peak", "GFLOP/s", "x the baseline", ">0%<", ">100%<", "the API runs"})
    EXPECT_NE(svg.find(words), std::string::npos) << words;
  if (std::system("command -v rsvg-convert >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "rsvg-convert (Debian librsvg2-bin) is not installed: not rendered";
  EXPECT_EQ(std::system(("rsvg-convert " + path("c.svg") + " -o " + path("c.png")).c_str()), 0);
  EXPECT_GT(std::filesystem::file_size(path("c.png")), 1000u);
}

// The histogram lab measures the byte histogram's floor (one counter store per byte) beside the
// read bandwidth, shows it in the byte panels and keeps it in the record.
TEST_F(Cli, HistogramLabMeasuresTheStoreFloor) {
  const result r =
      run("lab histogram --backend cpu --quick --budget 0.01 --json " + path("hist.json"));
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("u8 uniform 2^8 bins n=2^26   (read bandwidth"), std::string::npos);
  EXPECT_NE(r.out.find("one counter store per byte:"), std::string::npos) << r.out;
  std::ifstream in(path("hist.json"));
  const auto rec = nlohmann::json::parse(in);
  const double store = rec["ceilings"]["store_GBps"].get<double>();
  EXPECT_GT(store, 0);
  EXPECT_LT(store, 1e4);  // a rate in GB/s, not a time or a count
  ASSERT_FALSE(rec["rows"].empty());
  for (const auto& row : rec["rows"]) EXPECT_TRUE(row["verified"].get<bool>()) << row.dump();
}

#ifdef PPLAB_MPIEXEC
// Jobs of 1, 2 and 3 ranks print one answer, rank 0's, equal to the seq backend's on the whole
// data: generated (each rank makes its part) or read from a .npy file (each rank its slice).
TEST_F(Cli, MpiJobsPrintOneAnswerEqualToSeq) {
  io::array a;
  a.type = dtype::i32;
  a.shape = {1001};
  a.bytes.resize(1001 * 4);
  detail::generate(dtype::i32, a.data(), 1001, detail::distribution::normal, 5);
  io::write_npy(path("x.npy"), a);
  const std::string inputs[] = {"--n 100003 --dtype f32", "--n 2 --dtype i64",
                                "--input " + path("x.npy")};
  for (const std::string& data : inputs)
    for (const char* what : {"reduce --op sum", "reduce --op max", "histogram --bins 17"}) {
      const result want = run(std::string(what) + " --backend seq --json " + data);
      ASSERT_EQ(want.code, 0) << want.err;
      const auto w = nlohmann::json::parse(want.out);
      for (int ranks : {1, 2, 3}) {
        const std::string args = std::string(what) + " --backend mpi --json " + data;
        const result got = run_job(ranks, args);
        if (ranks > 1 && data == inputs[0] && what == std::string("reduce --op sum")) {
          // A float sum: the same bits in a second job of the same rank count.
          const result again = run_job(ranks, args);
          EXPECT_EQ(again.out, got.out) << ranks << " ranks";
        }
        ASSERT_EQ(got.code, 0) << ranks << " ranks: " << args << "\n" << got.err;
        ASSERT_EQ(std::count(got.out.begin(), got.out.end(), '\n'), 1) << got.out;
        const auto g = nlohmann::json::parse(got.out);
        if (w.contains("counts")) {
          EXPECT_EQ(g["counts"], w["counts"]) << args;
          EXPECT_EQ(g["edges"], w["edges"]) << args;
        } else if (w["value"].is_number_float()) {
          EXPECT_NEAR(g["value"].get<double>(), w["value"].get<double>(),
                      1e-12 * std::abs(w["value"].get<double>()))
              << args;
        } else {
          EXPECT_EQ(g["value"], w["value"]) << args;
        }
      }
    }
}

// The lab in a job runs the one loop over the mpi backend: every mpi rung gets a verified row on
// each problem made for the job, beside one baseline (rank 0 alone, step 0) and with one API pick
// per problem; rank 0 alone writes the record. Three ranks: the parts and SUMMA's blocks uneven.
TEST_F(Cli, MpiLabVerifiesEveryRungOfTheJob) {
  const std::string json = path("mpi-lab.json");
  const result r = run_job(3, "lab --backend mpi --quick --budget 0.01 --no-progress --json " +
                                  json + " --chart " + path("mpi-lab.svg"));
  ASSERT_EQ(r.code, 0) << r.err;
  std::ifstream in(json);
  const auto rec = nlohmann::json::parse(in);
  std::map<std::string, int> baselines, picks;
  std::set<std::string> rungs;
  for (const auto& row : rec["rows"]) {
    EXPECT_TRUE(row["verified"].get<bool>()) << row.dump();
    EXPECT_EQ(row["backend"], "mpi") << row.dump();
    EXPECT_NE(row["problem"].get<std::string>().find("on 3 ranks"), std::string::npos);
    const std::string problem =
        row["pattern"].get<std::string>() + " " + row["problem"].get<std::string>();
    baselines[problem] += row["step"].get<int>() == 0;
    picks[problem] += row.value("api_pick", false);
    rungs.insert(row["rung"].get<std::string>());
  }
  ASSERT_FALSE(baselines.empty());
  for (const auto& [problem, count] : baselines) EXPECT_EQ(count, 1) << problem;
  for (const auto& [problem, count] : picks) EXPECT_EQ(count, 1) << problem;
  for (const rung_info& info : lab::all_rungs()) {
    if (info.where != backend::mpi) continue;
    EXPECT_TRUE(rungs.count(std::string(info.id))) << info.id << " has no row";
  }
}

// A filter on 1 to 4 ranks, each reading its own rows of the .npy, writes the same bytes as one
// process on the local backend (in wrap mode the first rank needs the last rank's rows).
TEST_F(Cli, MpiFilterWritesWhatOneProcessWrites) {
  io::array a;
  a.type = dtype::f32;
  a.shape = {37, 29};
  a.bytes.resize(37 * 29 * 4);
  detail::generate(dtype::f32, a.data(), 37 * 29, detail::distribution::normal, 3);
  io::write_npy(path("img.npy"), a);
  const std::string args =
      "correlate --input " + path("img.npy") + " --mask gaussian:sigma=1.5 " + "--mode wrap --out ";
  ASSERT_EQ(run(args + path("want.npy") + " --backend cpu").code, 0);
  for (int ranks : {1, 2, 3, 4}) {
    const std::string out = path("got" + std::to_string(ranks) + ".npy");
    const result r = run_job(ranks, args + out + " --backend mpi");
    ASSERT_EQ(r.code, 0) << ranks << " ranks: " << r.err;
    EXPECT_EQ(io::read_file(out), io::read_file(path("want.npy"))) << ranks << " ranks";
  }
}

// SUMMA from the command line: each rank reads its blocks of A, B and C, rank 0 gathers C and
// writes it; the file equals the seq backend's within the product's rounding.
TEST_F(Cli, MpiMatmulWritesTheWholeProduct) {
  const auto matrix = [&](const std::string& name, std::size_t rows, std::size_t cols,
                          std::uint64_t seed) {
    io::array x;
    x.type = dtype::f64;
    x.shape = {rows, cols};
    x.bytes.resize(rows * cols * 8);
    detail::generate(dtype::f64, x.data(), rows * cols, detail::distribution::normal, seed);
    io::write_npy(path(name), x);
  };
  matrix("a.npy", 37, 23, 1), matrix("b.npy", 23, 19, 2), matrix("c.npy", 37, 19, 3);
  const std::string args = "matmul --a " + path("a.npy") + " --b " + path("b.npy") + " --c " +
                           path("c.npy") + " --alpha 2 --beta -1 --out ";
  ASSERT_EQ(run(args + path("want.npy") + " --backend seq").code, 0);
  const io::array want = io::read_npy(path("want.npy"));
  for (int ranks : {1, 2, 3, 4}) {
    const result r = run_job(ranks, args + path("got.npy") + " --backend mpi");
    ASSERT_EQ(r.code, 0) << ranks << " ranks\n" << r.err;
    const io::array got = io::read_npy(path("got.npy"));
    ASSERT_EQ(got.shape, want.shape);
    const double* g = reinterpret_cast<const double*>(got.data());
    const double* w = reinterpret_cast<const double*>(want.data());
    for (std::size_t i = 0; i < 37 * 19; ++i) ASSERT_NEAR(g[i], w[i], 1e-12) << i;
  }
  // Generated matrices: each rank makes only its blocks, and the product is one process's.
  ASSERT_EQ(
      run("matmul --shape 29x31x37 --dtype f64 --backend seq --out " + path("want2.npy")).code, 0);
  const io::array want2 = io::read_npy(path("want2.npy"));
  for (int ranks : {2, 3}) {
    const result r = run_job(ranks, "matmul --shape 29x31x37 --dtype f64 --backend mpi --out " +
                                        path("got2.npy"));
    ASSERT_EQ(r.code, 0) << r.err;
    const io::array got = io::read_npy(path("got2.npy"));
    ASSERT_EQ(got.shape, want2.shape);
    const double* g = reinterpret_cast<const double*>(got.data());
    const double* w = reinterpret_cast<const double*>(want2.data());
    for (std::size_t i = 0; i < 29 * 31; ++i) ASSERT_NEAR(g[i], w[i], 1e-12) << i;
  }
  // A's columns and B's rows differ: one error, every rank.
  matrix("b2.npy", 22, 19, 2);
  const result bad =
      run_job(3, "matmul --a " + path("a.npy") + " --b " + path("b2.npy") + " --backend mpi");
  EXPECT_EQ(bad.code, 2) << bad.err;
  EXPECT_NE(bad.err.find("shapes do not match"), std::string::npos) << bad.err;
}

// A job whose ranks are not all pplab ends at the start with an error that names the world's
// size and who answered, not a hang: beside a program that is no MPI program at all (MPI's own
// start waits for it), and beside an MPI program that is not pplab (rank 0 lists who came).
TEST_F(Cli, MpiJobsWithAnotherProgramEndAtTheStart) {
#ifdef PPLAB_MPI_BYSTANDER
  const std::string job =
      "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
      "OMP_NUM_THREADS=1 PPLAB_MPI_START_S=3 timeout 100 " PPLAB_MPIEXEC " --oversubscribe -n ";
  const std::string pplab = std::string(PPLAB_CLI) + " reduce --op sum --n 10 --backend mpi";
  for (const auto& [command, words] : std::vector<std::pair<std::string, std::string>>{
           {job + "1 " + pplab + " : -n 1 sleep 60", "MPI did not start within 3 s"},
           {job + "2 " + pplab + " : -n 1 " PPLAB_MPI_BYSTANDER,
            "the job has 3 ranks, but within 3 s (PPLAB_MPI_START_S) only ranks 0, 1 answered as "
            "pplab; ranks 2 did not"},
           {job + "1 " PPLAB_MPI_BYSTANDER " : -n 1 " + pplab,
            "rank 1 of 2: rank 0 did not answer as pplab"}}) {
    const result r = shell(command);
    EXPECT_NE(r.code, 0) << command;
    EXPECT_NE(r.code, 124) << "the job hung until the timeout: " << command;
    EXPECT_NE(r.err.find(words), std::string::npos) << command << "\n" << r.err;
    EXPECT_NE(r.err.find("every rank of an mpirun job must run pplab"), std::string::npos) << r.err;
  }
#else
  GTEST_SKIP() << "this build has no mpi backend";
#endif
}

// Faults end the job with one clear error and a non-zero status, never a hang.
TEST_F(Cli, MpiFaultsEndTheJobWithOneError) {
  const auto expect_job_failure = [&](int ranks, const std::string& args, int code,
                                      const std::string& words) {
    const result r = run_job(ranks, args);
    EXPECT_EQ(r.code, code) << args << "\n" << r.err;
    const std::size_t at = r.err.find("pplab: error: ");
    ASSERT_NE(at, std::string::npos) << args << "\n" << r.err;
    EXPECT_EQ(r.err.find("pplab: error: ", at + 1), std::string::npos)
        << "printed twice: " << r.err;
    EXPECT_NE(r.err.find(words), std::string::npos) << args << "\n" << r.err;
  };
  expect_job_failure(
      2, "reduce --op sum --backend mpi --input " + path("missing") + "$OMPI_COMM_WORLD_RANK.npy",
      1, "rank 0: cannot open");
  expect_job_failure(3, "reduce --op sum --backend mpi --n $((100 + (OMPI_COMM_WORLD_RANK == 2)))",
                     2, "rank 2");
  expect_job_failure(2, "reduce --op sum --backend mpi --dtype f$((32 << OMPI_COMM_WORLD_RANK))", 2,
                     "disagree");
  expect_job_failure(2, "histogram --backend mpi --bins $((10 + OMPI_COMM_WORLD_RANK))", 2,
                     "disagree");
  // A file shorter on one rank (each host its own copy): that rank's error, on every rank.
  const auto npy = [&](const std::string& name, std::size_t n) {
    io::array x;
    x.type = dtype::f32;
    x.shape = {n};
    x.bytes.resize(n * 4);
    io::write_npy(path(name), x);
  };
  npy("x0.npy", 100), npy("x1.npy", 100);
  std::string bytes = read_all(path("x1.npy"));
  write("x1.npy", bytes.substr(0, bytes.size() - 40));
  expect_job_failure(
      2, "reduce --op sum --backend mpi --input " + path("x") + "$OMPI_COMM_WORLD_RANK.npy", 1,
      "rank 1: ");
  expect_job_failure(2, "reduce --op mean --backend mpi --n 0", 2, "mean of an empty input");
  expect_job_failure(2, "histogram --backend mpi --range 1:0", 2, "lo must be below hi");
  expect_job_failure(2, "reduce --op sum --backend mpi --local nccl", 2, "seq, cpu or cuda");
  // Not started by mpiexec: the backend says how to start it.
  const result alone = run("reduce --op sum --backend mpi");
  EXPECT_EQ(alone.code, 1);
  EXPECT_NE(alone.err.find("mpirun"), std::string::npos) << alone.err;
}
#endif

}  // namespace
}  // namespace pplab::test

namespace pplab::test {
namespace {

// `pplab tune` writes the choice file the API then follows: the lab afterwards finds the API's
// pick the fastest, or within 5% of it, on every problem it tuned; mpi and nccl are refused.
TEST_F(Cli, TuneWritesChoicesTheLabThenPicks) {
  const std::string file = path("choices.json");
  result r = shell("PPLAB_CHOICES=" + file + " " + PPLAB_CLI +
                   " tune reduce --backend cpu --quick --budget 0.02 --no-progress");
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("classes of problem"), std::string::npos) << r.out;
  std::ifstream in(file);
  const auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j["format"], "pplab choices 1");
  ASSERT_GE(j["choices"].size(), 3u);  // the quick lab's three reduce problems
  for (const auto& c : j["choices"]) {
    EXPECT_EQ(c["backend"], "cpu");
    EXPECT_EQ(c["rung"].get<std::string>().rfind("reduce/cpu/", 0), 0u) << c.dump();
  }
  r = shell("PPLAB_CHOICES=" + file + " " + PPLAB_CLI + " info --no-measure");
  EXPECT_NE(r.out.find("tuned choices for this machine"), std::string::npos) << r.out;
  r = shell("PPLAB_CHOICES=" + file + " " + PPLAB_CLI +
            " lab reduce --backend cpu --quick --budget 0.05 --no-progress --json " +
            path("lab.json"));
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("The API's pick is the fastest, or within 5% of it, on"), std::string::npos)
      << r.out;
  std::ifstream rec_in(path("lab.json"));
  const auto rec = nlohmann::json::parse(rec_in);
  std::size_t picks = 0;
  for (const auto& row : rec["rows"])
    if (row.contains("pick_vs_fastest")) {
      ++picks;
      EXPECT_TRUE(row["api_pick"].get<bool>()) << row.dump();
    }
  EXPECT_EQ(picks, 11u);  // one per problem
  expect_failure("tune --backend mpi --out " + file, 2, "only seq, cpu and cuda");
  r = run("tune reduce --backend seq --quick --budget 0.01 --dry-run --no-progress --out " +
          path("never.json"));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_FALSE(fs::exists(path("never.json")));
}

}  // namespace
}  // namespace pplab::test

namespace pplab::test {
namespace {

// A rank killed mid-run (the hostile sweep's mpi class): Open MPI ends the whole job, with a
// non-zero status and no hang, and no record, whole or partial, is left behind.
TEST_F(Cli, AKilledRankEndsTheJobAndLeavesNoRecord) {
#ifdef PPLAB_MPIEXEC
  const result r = shell(
      "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1 timeout 120 " +
      std::string(PPLAB_MPIEXEC) +
      " --oversubscribe -n 2 sh -c 'if [ $OMPI_COMM_WORLD_RANK = 1 ]; then (sleep 2; kill -9 $$) "
      "& fi; exec " +
      PPLAB_CLI + " lab --backend mpi --quick --no-progress --json " + path("rec.json") + "'");
  EXPECT_NE(r.code, 0) << r.out;
  EXPECT_NE(r.code, 124) << "the job hung until the timeout";
  EXPECT_FALSE(fs::exists(path("rec.json")));
  for (const auto& e : fs::directory_iterator(dir))
    EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();
#else
  GTEST_SKIP() << "built without MPI";
#endif
}

// A backend module that cannot be loaded (here: a file that is not a library, where libpplab
// looks for it) leaves the host backends working, and the backend says why it is absent.
TEST_F(Cli, AModuleThatCannotLoadLeavesTheHostBackendsWorking) {
  const fs::path build = fs::path(PPLAB_CLI).parent_path();
  std::vector<std::string> modules;
  for (const auto& e : fs::directory_iterator(build)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("libpplab", 0) != 0 || name.find(".so") == std::string::npos) continue;
    bool module = false;
    for (const char* b : {"cuda", "nccl", "mpi"})
      module |= name.rfind(std::string("libpplab_") + b + ".so", 0) == 0;
    if (!module) {
      fs::copy_file(e.path(), dir / name);  // through the links: each name a file
    } else if (name.ends_with(".so.0")) {
      std::ofstream(dir / name) << "not a library\n";
      modules.push_back(name);
    }
  }
  if (modules.empty()) GTEST_SKIP() << "this build has no backend module of its own";
  // LD_LIBRARY_PATH comes before the command's run path: this libpplab, beside the broken files.
  const std::string env = "LD_LIBRARY_PATH=" + dir.string() + " ";
  const result info = shell(env + PPLAB_CLI + " info");
  EXPECT_EQ(info.code, 0) << info.err;
  for (const std::string& m : modules)
    EXPECT_NE(info.out.find(m + " could not be loaded"), std::string::npos) << info.out;
  const result sum = shell(env + PPLAB_CLI + " reduce --op sum --n 1000 --backend cpu");
  EXPECT_EQ(sum.code, 0) << sum.err;
  EXPECT_NE(sum.out.find("sum of 1000"), std::string::npos);
  const std::string name = modules.front().substr(9, modules.front().find(".so") - 9);
  const result absent = shell(env + PPLAB_CLI + " reduce --op sum --n 1000 --backend " + name);
  EXPECT_NE(absent.code, 0);
  EXPECT_NE(absent.err.find("could not be loaded"), std::string::npos) << absent.err;
}

}  // namespace
}  // namespace pplab::test
