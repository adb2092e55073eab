// The readers: .npy round trips, both byte orders, versions 1 to 3, clear errors for Fortran
// order, object arrays, truncation at every length and random bytes; text and raw files.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "pplab/error.hpp"
#include "pplab/io.hpp"
#include "test_support.hpp"

namespace pplab::test {
namespace {

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("pplab_test_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

// A .npy file by hand: any version, header text and payload.
std::string npy(int version, const std::string& dict, const std::string& payload) {
  std::string header = dict;
  const std::size_t pre = version == 1 ? 10 : 12;
  while ((pre + header.size() + 1) % 64) header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY";
  out += char(version);
  out += char(0);
  const std::size_t len = header.size();
  out += char(len & 0xff);
  out += char((len >> 8) & 0xff);
  if (version > 1) out += std::string{char((len >> 16) & 0xff), char(len >> 24)};
  return out + header + payload;
}

TEST(Npy, RoundTripsEveryDtypeAndShape) {
  const std::uint64_t seed_value = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed_value) + " (PPLAB_SEED=" + std::to_string(seed_value) +
               " runs it again)");
  std::mt19937_64 rng(seed_value);
  for (dtype t : all_dtypes)
    for (const std::vector<std::size_t>& shape :
         {std::vector<std::size_t>{}, {0}, {1}, {7}, {3, 5}, {2, 3, 4}, {4, 0}}) {
      io::array a;
      a.type = t;
      a.shape = shape;
      std::size_t count = 1;
      for (std::size_t d : shape) count *= d;
      a.bytes.resize(count * size_of(t));
      for (auto& b : a.bytes) b = std::byte(rng());
      const std::string path = temp_path("roundtrip.npy");
      io::write_npy(path, a);
      const io::array back = io::read_npy(path);
      EXPECT_EQ(back.type, t);
      EXPECT_EQ(back.shape, shape);
      EXPECT_EQ(back.bytes, a.bytes);
      std::filesystem::remove(path);
    }
}

TEST(Npy, ReadsBigEndianAndVersions2And3) {
  const std::string be = std::string("\x00\x00\x00\x01\x00\x00\x01\x00", 8);  // 1 and 256, >i4
  for (int version : {1, 2, 3}) {
    const std::string file =
        npy(version, "{'descr': '>i4', 'fortran_order': False, 'shape': (2,), }", be);
    const io::array a =
        io::parse_npy(reinterpret_cast<const std::byte*>(file.data()), file.size(), "x");
    ASSERT_EQ(a.type, dtype::i32);
    std::int32_t v[2];
    std::memcpy(v, a.bytes.data(), 8);
    EXPECT_EQ(v[0], 1);
    EXPECT_EQ(v[1], 256);
  }
  const std::string f8 = npy(1, "{'descr': '>f8', 'fortran_order': False, 'shape': (1,), }",
                             std::string("\x3f\xf0\x00\x00\x00\x00\x00\x00", 8));
  const io::array d = io::parse_npy(reinterpret_cast<const std::byte*>(f8.data()), f8.size(), "x");
  double v;
  std::memcpy(&v, d.bytes.data(), 8);
  EXPECT_EQ(v, 1.0);
}

void expect_bad_data(const std::string& file, const std::string& words) {
  try {
    io::parse_npy(reinterpret_cast<const std::byte*>(file.data()), file.size(), "x.npy");
    ADD_FAILURE() << "no error; expected one mentioning '" << words << "'";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), errc::bad_data);
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

TEST(Npy, ClearErrorsForWhatItCannotRead) {
  expect_bad_data(
      npy(1, "{'descr': '|O', 'fortran_order': False, 'shape': (2,), }", std::string(16, '\0')),
      "object");
  expect_bad_data(
      npy(1, "{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", std::string(16, '\0')),
      "complex");
  expect_bad_data(
      npy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", std::string(8, '\0')),
      "truncated");
  expect_bad_data(
      npy(4, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", std::string(4, '\0')),
      "version");
  expect_bad_data("not a numpy file at all", "magic");
}

const io::array parse(const std::string& file) {
  return io::parse_npy(reinterpret_cast<const std::byte*>(file.data()), file.size(), "x.npy");
}

template <class T> std::vector<T> values(const io::array& a) {
  std::vector<T> v(a.size());
  std::memcpy(v.data(), a.bytes.data(), a.bytes.size());
  return v;
}

// Headers as NumPy reads them (ast.literal_eval, then its checks): any key order, either quote,
// any white space, Python 2 longs, dtype strings without a byte order or by name, 0-d arrays.
TEST(Npy, ReadsEveryHeaderFormNumPyReads) {
  const std::string two_f4 = std::string("\x00\x00\x80\x3f\x00\x00\x00\x40", 8);  // 1, 2
  for (const char* dict : {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }",
                           "{\"shape\": (2,), \"descr\": \"<f4\", \"fortran_order\": False}",
                           "{ 'descr' :'f4',\t'fortran_order':False ,'shape':( 2 , ) }",
                           "{'descr': 'float32', 'fortran_order': False, 'shape': (2L,)}",
                           "{'descr': '=f', 'fortran_order': (False), 'shape': (2,)}",
                           "{'descr': u'<f4', 'fortran_order': False, 'shape': (1, 2)}"}) {
    const io::array a = parse(npy(1, dict, two_f4));
    EXPECT_EQ(a.type, dtype::f32) << dict;
    EXPECT_EQ(values<float>(a), (std::vector<float>{1, 2})) << dict;
  }
  const io::array scalar = parse(npy(3, "{'descr': '<i8', 'fortran_order': False, 'shape': (), }",
                                     std::string("\x07\0\0\0\0\0\0\0", 8)));
  EXPECT_TRUE(scalar.shape.empty());
  EXPECT_EQ(values<std::int64_t>(scalar), std::vector<std::int64_t>{7});
}

// What NumPy refuses, pplab refuses, with the reason.
TEST(Npy, RefusesEveryHeaderNumPyRefuses) {
  const std::string payload(64, '\0');
  const auto refused = [&](const std::string& dict, const std::string& words, int version = 1) {
    expect_bad_data(npy(version, dict, payload), words);
  };
  refused("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'extra': 1}", "'extra'");
  refused("{'descr': '<f4', 'shape': (2,)}", "no 'fortran_order'");
  refused("{'descr': '<f4', 'fortran_order': False, 'shape': (2)}", "not a tuple");
  refused("{'descr': '<f4', 'fortran_order': False, 'shape': [2]}", "not a tuple");
  refused("{'descr': '<f4', 'fortran_order': False, 'shape': (2.0,)}", "cannot parse");
  refused("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,)}", "negative");
  refused("{'descr': '<f4', 'fortran_order': 0, 'shape': (2,)}", "True or False");
  refused("{'descr': '<f4', 'fortran_order': 'True', 'shape': (2,)}", "True or False");
  refused("{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} x", "after the dict");
  refused("{'descr': '<f4', 'fortran_order': False, 'shape': (2,)", "cannot parse");
  refused("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,)}", "structured");
  refused("{'descr': '<M8[D]', 'fortran_order': False, 'shape': (2,)}", "datetime64");
  refused("{'descr': '<U2', 'fortran_order': False, 'shape': (2,)}", "strings");
  refused("{'descr': '<f16', 'fortran_order': False, 'shape': (2,)}", "long double");
  refused("{'descr': '<f4', 'fortran_order': False, 'shape': (2,)}" + std::string(10000, ' '),
          "over 10000", 2);
  std::string minor = npy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)}", payload);
  minor[7] = 1;  // version 1.1
  expect_bad_data(minor, "version 1.1");
  expect_bad_data(npy(1, std::string(40, '(') + std::string(40, ')'), payload), "nested");
}

// NumPy's bool takes every nonzero byte as True: read as uint8 0 and 1.
TEST(Npy, BoolIsReadAsZeroAndOne) {
  const io::array a = parse(npy(1, "{'descr': '|b1', 'fortran_order': False, 'shape': (4,), }",
                                std::string("\x02\x01\x00\xff", 4)));
  EXPECT_EQ(a.type, dtype::u8);
  EXPECT_EQ(a.stored_as, "bool");
  EXPECT_EQ(values<std::uint8_t>(a), (std::vector<std::uint8_t>{1, 1, 0, 1}));
}

// float16 is widened to float32 exactly: all 65536 values in both byte orders, against the
// definition (subnormals m * 2^-24, normals (1 + m/1024) * 2^(e-15)).
TEST(Npy, Float16IsWidenedExactly) {
  for (const char* order : {"<", ">"}) {
    std::string payload;
    for (unsigned h = 0; h < 65536; ++h) {
      const char lo = char(h & 0xff), hi = char(h >> 8);
      payload += order[0] == '<' ? std::string{lo, hi} : std::string{hi, lo};
    }
    const io::array a = parse(npy(
        1, std::string("{'descr': '") + order + "f2', 'fortran_order': False, 'shape': (65536,), }",
        payload));
    ASSERT_EQ(a.type, dtype::f32);
    EXPECT_EQ(a.stored_as, "float16");
    const std::vector<float> v = values<float>(a);
    for (unsigned h = 0; h < 65536; ++h) {
      const int e = int(h >> 10) & 0x1f, m = int(h & 0x3ff);
      const double sign = h & 0x8000 ? -1.0 : 1.0;
      const double want = e == 0    ? sign * std::ldexp(m, -24)
                          : e == 31 ? (m ? NAN : sign * INFINITY)
                                    : sign * std::ldexp(1.0 + m / 1024.0, e - 15);
      if (std::isnan(want)) EXPECT_TRUE(std::isnan(v[h])) << std::hex << h;
      else EXPECT_EQ(double(v[h]), want) << std::hex << h;
      EXPECT_EQ(std::signbit(v[h]), bool(h & 0x8000)) << std::hex << h;
    }
  }
}

// Fortran order is transposed into C order as it is read, at every chunk boundary: element
// (i, j, k) of a Fortran file holds i + 10 j + 100 k, so its C-order place is checkable.
TEST(Npy, FortranOrderIsReadIntoCOrder) {
  const auto check = [](std::vector<std::size_t> shape, const std::string& descr) {
    const std::size_t count = shape[0] * shape[1] * (shape.size() > 2 ? shape[2] : 1);
    std::string payload;
    for (std::size_t f = 0; f < count; ++f) {  // Fortran order: the first index fastest
      const std::size_t i = f % shape[0], j = f / shape[0] % shape[1], k = f / shape[0] / shape[1];
      const std::int32_t v = std::int32_t(i + 10 * j + 100 * k);
      char b[4];
      std::memcpy(b, &v, 4);
      if (descr[0] == '>') std::reverse(b, b + 4);
      payload.append(b, 4);
    }
    std::string dims;
    for (std::size_t d : shape) dims += std::to_string(d) + ", ";
    const std::string path = temp_path("fortran.npy");
    write_bytes(
        path, npy(2, "{'descr': '" + descr + "', 'fortran_order': True, 'shape': (" + dims + "), }",
                  payload));
    const io::array a = io::read_npy(path);
    std::filesystem::remove(path);
    EXPECT_EQ(a.shape, shape);
    EXPECT_EQ(a.stored_as, "Fortran order");
    const std::vector<std::int32_t> v = values<std::int32_t>(a);
    std::size_t bad = 0;
    for (std::size_t c = 0; c < count; ++c) {  // C order: the last index fastest
      const std::size_t d2 = shape.size() > 2 ? shape[2] : 1;
      const std::size_t k = c % d2, j = c / d2 % shape[1], i = c / d2 / shape[1];
      bad += v[c] != std::int32_t(i + 10 * j + 100 * k);
    }
    EXPECT_EQ(bad, 0u) << dims;
  };
  check({2, 3}, "<i4");
  check({2, 3, 4}, ">i4");
  check({1031, 2053}, "<i4");  // 2.1 million elements: more than one conversion chunk
}

TEST(Npy, EveryTruncationAndRandomBytesEndInAnErrorNotACrash) {
  const std::string good = npy(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 2), }",
                               std::string(48, '\x01'));
  for (std::size_t len = 0; len < good.size(); ++len)
    EXPECT_THROW(io::parse_npy(reinterpret_cast<const std::byte*>(good.data()), len, "x"), error)
        << "length " << len;
  const std::uint64_t seed_value = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed_value) + " (PPLAB_SEED=" + std::to_string(seed_value) +
               " runs it again)");
  std::mt19937_64 rng(seed_value);
  for (int trial = 0; trial < 3000; ++trial) {
    std::string s = good;
    if (trial % 3 == 0) {  // random garbage of random length
      s.resize(rng() % 200);
      for (char& c : s) c = char(rng());
    } else {  // a valid file with a few bytes flipped
      for (int f = 0; f < 1 + int(rng() % 4); ++f) s[rng() % s.size()] = char(rng());
    }
    try {
      const io::array a =
          io::parse_npy(reinterpret_cast<const std::byte*>(s.data()), s.size(), "x");
      std::size_t count = 1;
      for (std::size_t d : a.shape) count *= d;
      EXPECT_EQ(a.bytes.size(), count * size_of(a.type));  // whatever parses is consistent
    } catch (const error&) {
    }
  }
}

TEST(TextInput, ReadsNumbersAndNamesTheBadToken) {
  const std::string path = temp_path("numbers.txt");
  write_bytes(path, "1 2.5, -3\n4e2\t+5\n");
  const io::input in = io::read_input(path, "", nullptr);
  ASSERT_EQ(in.channels.size(), 1u);
  const io::array& a = in.channels[0];
  ASSERT_EQ(a.type, dtype::f64);
  ASSERT_EQ(a.size(), 5u);
  const double* v = reinterpret_cast<const double*>(a.bytes.data());
  EXPECT_EQ(v[0], 1.0);
  EXPECT_EQ(v[2], -3.0);
  EXPECT_EQ(v[3], 400.0);
  EXPECT_EQ(v[4], 5.0);
  write_bytes(path, "1 2\n3 abc 4\n");
  try {
    io::read_input(path, "", nullptr);
    ADD_FAILURE() << "no error";
  } catch (const error& e) {
    EXPECT_NE(std::string(e.what()).find(":2: 'abc'"), std::string::npos) << e.what();
  }
  const dtype u8 = dtype::u8;
  write_bytes(path, "1 300\n");
  EXPECT_THROW(io::read_input(path, "text", &u8), error);
  std::filesystem::remove(path);
}

// Integers are read as integers of the requested type over its whole range, floats rounded once
// to theirs; decimals are not integers, and out-of-range numbers are errors naming the line.
TEST(TextInput, NumbersAreReadExactlyAsTheRequestedType) {
  const std::string path = temp_path("exact.txt");
  const auto read = [&](const std::string& text, dtype t) {
    write_bytes(path, text);
    return io::read_input(path, "text", &t).channels.at(0);
  };
  const auto fails = [&](const std::string& text, dtype t, const std::string& words) {
    write_bytes(path, text);
    try {
      io::read_input(path, "text", &t);
      ADD_FAILURE() << text << " as " << name_of(t) << " gave no error";
    } catch (const error& e) {
      EXPECT_EQ(e.code(), errc::bad_data);
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  io::array a = read("9223372036854775807 -9223372036854775808 +7\n", dtype::i64);
  const auto* i = reinterpret_cast<const std::int64_t*>(a.bytes.data());
  EXPECT_EQ(i[0], std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(i[1], std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(i[2], 7);
  a = read("18446744073709551615\n", dtype::u64);
  EXPECT_EQ(*reinterpret_cast<const std::uint64_t*>(a.bytes.data()),
            std::numeric_limits<std::uint64_t>::max());
  a = read("16777217 0.1 inf -inf nan\n", dtype::f32);  // rounded once, to float
  const auto* f = reinterpret_cast<const float*>(a.bytes.data());
  EXPECT_EQ(f[0], 16777216.0f);
  EXPECT_EQ(f[1], 0.1f);
  EXPECT_TRUE(std::isinf(f[2]) && f[2] > 0);
  EXPECT_TRUE(std::isinf(f[3]) && f[3] < 0);
  EXPECT_TRUE(std::isnan(f[4]));
  fails("1\n9223372036854775808\n", dtype::i64, ":2: '9223372036854775808' is out of the range");
  fails("-1\n", dtype::u32, "'-1' is out of the range of dtype u32");
  fails("1 2.5\n", dtype::i32, "'2.5' is not an integer");
  fails("1e3\n", dtype::i16, "is not an integer");
  fails("256\n", dtype::u8, "out of the range of dtype u8");
  fails("1e400\n", dtype::f64, "out of the range of dtype f64");
  fails("1e39\n", dtype::f32, "out of the range of dtype f32");
  fails("12abc\n", dtype::f64, "'12abc' is not a number");
  std::filesystem::remove(path);
}

// Only regular files are read: every other kind of path gets a clear error, and nothing blocks.
TEST(Files, DirectoriesDevicesFifosAndEmptyPathsAreRefused) {
  const auto refused = [](const std::string& path, const std::string& words) {
    try {
      io::read_input(path, "", nullptr);
      ADD_FAILURE() << path << " was read";
    } catch (const error& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << path << ": " << e.what();
    }
  };
  refused(std::filesystem::temp_directory_path().string(), "is a directory");
  refused("/dev/zero", "not a regular file");
  const std::string fifo = temp_path("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  refused(fifo, "not a regular file");  // a read would wait for a writer forever
  std::filesystem::remove(fifo);
  refused("", "empty");
}

// An output never writes through a link planted where its temporary file would go: the temporary
// is created exclusively under an unguessable name, then renamed over the path.
TEST(OutputFile, APlantedLinkIsNeverFollowed) {
  const std::string dir = temp_path("out_dir");
  std::filesystem::create_directories(dir);
  const std::string victim = dir + "/victim", out = dir + "/out.npy";
  write_bytes(victim, "precious");
  // The names the old, predictable temporary had, and the pid's prefix of the new one.
  for (const std::string& suffix : {".tmp." + std::to_string(::getpid()), std::string(".tmp.")})
    std::filesystem::create_symlink(victim, out + suffix);
  {
    io::output_file f(out);
    f.write("new bytes");
    f.commit();
  }
  std::ifstream in(victim);
  std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(text, "precious");
  std::ifstream written(out);
  EXPECT_EQ(std::string((std::istreambuf_iterator<char>(written)), {}), "new bytes");
  EXPECT_FALSE(std::filesystem::is_symlink(out));
  // Nothing else was left beside it: the two links, the victim and the output.
  int entries = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    (void)e;
    ++entries;
  }
  EXPECT_EQ(entries, 4);
  std::filesystem::remove_all(dir);
}

// A FIFO that no program reads is refused at once, never waited on. Character
// devices are written in place.
TEST(OutputFile, AFifoWithoutAReaderIsRefusedNotWaitedOn) {
  const std::string fifo = temp_path("out_fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  try {
    io::output_file f(fifo);
    ADD_FAILURE() << "a FIFO without a reader was opened";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), errc::io);
    EXPECT_NE(std::string(e.what()).find("no program is reading"), std::string::npos) << e.what();
  }
  std::filesystem::remove(fifo);
  {
    io::output_file f("/dev/null");
    f.write("x");
    f.commit();
  }
  io::output_file full("/dev/full");
  full.write(std::string(1 << 16, 'x'));
  EXPECT_THROW(full.commit(), error);
}

// An image without a pixel is refused as a picture (the PNG encoder cannot make one and the
// readers refuse one), before anything is written: no file, no temporary.
TEST(ImageOutput, AnEmptyImageIsRefusedAndNothingIsLeft) {
  const std::string dir = temp_path("empty_images");
  std::filesystem::create_directories(dir);
  for (const char* ext : {".png", ".pgm"})
    for (const std::vector<std::size_t>& shape : {std::vector<std::size_t>{0, 5}, {5, 0}, {0, 0}}) {
      io::array plane;
      plane.type = dtype::u8;
      plane.shape = shape;
      const std::string out = dir + "/empty" + ext;
      try {
        io::output_file f(out);
        io::write_image(f, {plane});
        ADD_FAILURE() << out << " of " << shape[0] << " x " << shape[1] << " was written";
      } catch (const error& e) {
        EXPECT_EQ(e.code(), errc::bad_data);
        EXPECT_NE(std::string(e.what()).find("write it as .npy"), std::string::npos) << e.what();
      }
      EXPECT_TRUE(std::filesystem::is_empty(dir)) << "something was left in " << dir;
    }
  std::filesystem::remove_all(dir);
}

// An image whose header claims more pixels than the file holds is refused before anything is
// allocated or decoded; a whole one is read.
// The header of a 4 x 2 pixel, 24-bit BMP, whose pixels (24 bytes: two rows of 12) follow it.
std::string bmp_4x2_header() {
  const auto le32 = [](std::uint32_t v) {
    return std::string{char(v), char(v >> 8), char(v >> 16), char(v >> 24)};
  };
  return "BM" + le32(54 + 24) + le32(0) + le32(54) + le32(40) + le32(4) + le32(2) +
         std::string("\x01\x00\x18\x00", 4) + le32(0) + le32(24) + le32(0) + le32(0) + le32(0) +
         le32(0);
}

TEST(ImageInput, HeadersThatLieAreRefused) {
  const std::string path = temp_path("lie.ppm");
  write_bytes(path, "P6\n2 1\n255\n" + std::string("\x01\x02\x03\x04\x05\x06", 6));
  io::input in;
  try {
    in = io::read_input(path, "", nullptr);
  } catch (const error& e) {
    if (e.code() == errc::unsupported) GTEST_SKIP() << e.what();
    throw;
  }
  ASSERT_EQ(in.channels.size(), 3u);
  EXPECT_EQ(std::to_integer<int>(in.channels[2].bytes[1]), 6);
  const auto refused = [&](const std::string& bytes, const std::string& words) {
    write_bytes(path, bytes);
    try {
      io::read_input(path, "", nullptr);
      ADD_FAILURE() << words;
    } catch (const error& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  refused("P6\n20000 20000\n255\n" + std::string(100, 'x'), "truncated");
  refused("P5\n# a comment\n2 2\n255\n" + std::string(3, 'x'), "only 3 bytes follow");
  refused("P6\nwide tall\n255\n", "malformed");
  refused("P6\n4000000000 4000000000\n255\n", "more than");
  refused("\x89PNG\r\n\x1a\n broken", "cannot be decoded");
  // A BMP (4 x 2, 24-bit, rows of 12 bytes) whose pixels stop short: the decoder would fill
  // them with zeros; pplab notices that it read past the end.
  const std::string bmp_header = bmp_4x2_header();
  write_bytes(path, bmp_header + std::string(24, '\x07'));
  const io::input whole = io::read_input(path, "image", nullptr);
  ASSERT_EQ(whole.channels.size(), 3u);
  EXPECT_EQ(std::to_integer<int>(whole.channels[0].bytes[7]), 7);
  refused(bmp_header + std::string(14, '\x07'), "ends before");
  std::filesystem::remove(path);
}

// A small JPEG (8 x 6 RGB, libjpeg's baseline) and PNG (3 x 2 RGB, 8 bits): the seeds of the
// image fuzzing below.
const std::string small_jpeg(
    "\xff\xd8\xff\xe0\x00\x10\x4a\x46\x49\x46\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00\xff\xdb\x00"
    "\x43\x00\x06\x04\x05\x06\x05\x04\x06\x06\x05\x06\x07\x07\x06\x08\x0a\x10\x0a\x0a\x09\x09\x0a"
    "\x14\x0e\x0f\x0c\x10\x17\x14\x18\x18\x17\x14\x16\x16\x1a\x1d\x25\x1f\x1a\x1b\x23\x1c\x16\x16"
    "\x20\x2c\x20\x23\x26\x27\x29\x2a\x29\x19\x1f\x2d\x30\x2d\x28\x30\x25\x28\x29\x28\xff\xdb\x00"
    "\x43\x01\x07\x07\x07\x0a\x08\x0a\x13\x0a\x0a\x13\x28\x1a\x16\x1a\x28\x28\x28\x28\x28\x28\x28"
    "\x28\x28\x28\x28\x28\x28\x28\x28\x28\x28\x28\x28\x28\x28\x28\x28\x28\x28\x28\x28\x28\x28\x28"
    "\x28\x28\x28\x28\x28\x28\x28\x28\x28\x28\x28\x28\x28\x28\x28\x28\x28\x28\x28\x28\xff\xc0\x00"
    "\x11\x08\x00\x06\x00\x08\x03\x01\x22\x00\x02\x11\x01\x03\x11\x01\xff\xc4\x00\x1f\x00\x00\x01"
    "\x05\x01\x01\x01\x01\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x01\x02\x03\x04\x05\x06\x07\x08"
    "\x09\x0a\x0b\xff\xc4\x00\xb5\x10\x00\x02\x01\x03\x03\x02\x04\x03\x05\x05\x04\x04\x00\x00\x01"
    "\x7d\x01\x02\x03\x00\x04\x11\x05\x12\x21\x31\x41\x06\x13\x51\x61\x07\x22\x71\x14\x32\x81\x91"
    "\xa1\x08\x23\x42\xb1\xc1\x15\x52\xd1\xf0\x24\x33\x62\x72\x82\x09\x0a\x16\x17\x18\x19\x1a\x25"
    "\x26\x27\x28\x29\x2a\x34\x35\x36\x37\x38\x39\x3a\x43\x44\x45\x46\x47\x48\x49\x4a\x53\x54\x55"
    "\x56\x57\x58\x59\x5a\x63\x64\x65\x66\x67\x68\x69\x6a\x73\x74\x75\x76\x77\x78\x79\x7a\x83\x84"
    "\x85\x86\x87\x88\x89\x8a\x92\x93\x94\x95\x96\x97\x98\x99\x9a\xa2\xa3\xa4\xa5\xa6\xa7\xa8\xa9"
    "\xaa\xb2\xb3\xb4\xb5\xb6\xb7\xb8\xb9\xba\xc2\xc3\xc4\xc5\xc6\xc7\xc8\xc9\xca\xd2\xd3\xd4\xd5"
    "\xd6\xd7\xd8\xd9\xda\xe1\xe2\xe3\xe4\xe5\xe6\xe7\xe8\xe9\xea\xf1\xf2\xf3\xf4\xf5\xf6\xf7\xf8"
    "\xf9\xfa\xff\xc4\x00\x1f\x01\x00\x03\x01\x01\x01\x01\x01\x01\x01\x01\x01\x00\x00\x00\x00\x00"
    "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\xff\xc4\x00\xb5\x11\x00\x02\x01\x02\x04\x04"
    "\x03\x04\x07\x05\x04\x04\x00\x01\x02\x77\x00\x01\x02\x03\x11\x04\x05\x21\x31\x06\x12\x41\x51"
    "\x07\x61\x71\x13\x22\x32\x81\x08\x14\x42\x91\xa1\xb1\xc1\x09\x23\x33\x52\xf0\x15\x62\x72\xd1"
    "\x0a\x16\x24\x34\xe1\x25\xf1\x17\x18\x19\x1a\x26\x27\x28\x29\x2a\x35\x36\x37\x38\x39\x3a\x43"
    "\x44\x45\x46\x47\x48\x49\x4a\x53\x54\x55\x56\x57\x58\x59\x5a\x63\x64\x65\x66\x67\x68\x69\x6a"
    "\x73\x74\x75\x76\x77\x78\x79\x7a\x82\x83\x84\x85\x86\x87\x88\x89\x8a\x92\x93\x94\x95\x96\x97"
    "\x98\x99\x9a\xa2\xa3\xa4\xa5\xa6\xa7\xa8\xa9\xaa\xb2\xb3\xb4\xb5\xb6\xb7\xb8\xb9\xba\xc2\xc3"
    "\xc4\xc5\xc6\xc7\xc8\xc9\xca\xd2\xd3\xd4\xd5\xd6\xd7\xd8\xd9\xda\xe2\xe3\xe4\xe5\xe6\xe7\xe8"
    "\xe9\xea\xf2\xf3\xf4\xf5\xf6\xf7\xf8\xf9\xfa\xff\xda\x00\x0c\x03\x01\x00\x02\x11\x03\x11\x00"
    "\x3f\x00\x76\xaa\x17\xc2\xfe\x0c\x82\xcf\x4f\x54\x37\x17\xc0\xc4\xec\xeb\x95\xf2\xfe\x50\xc3"
    "\xeb\xf3\xaf\x6e\x9b\xba\x1c\x1a\x28\xa2\xba\xf2\xfa\x50\xc4\xca\xb5\x4a\xaa\xef\x9e\x4b\xe4"
    "\xb4\x4b\xe5\xff\x00\x07\x76\x47\xf6\x96\x2b\x2e\xa1\x4a\x18\x49\xb8\x29\x46\xee\xdd\x5f\x34"
    "\x95\xfe\xe4\x8f\xff\xd9",
    696);
const std::string small_png(
    "\x89\x50\x4e\x47\x0d\x0a\x1a\x0a\x00\x00\x00\x0d\x49\x48\x44\x52\x00\x00\x00\x03\x00\x00\x00"
    "\x02\x08\x02\x00\x00\x00\x12\x16\xf1\x4d\x00\x00\x00\x1c\x49\x44\x41\x54\x78\x9c\x63\x60\x10"
    "\xd1\x70\x8b\xca\xeb\x59\xb0\x85\x41\xce\xc8\x2d\xa5\xa2\x67\xd5\xbe\x4b\x00\x39\xda\x07\x63"
    "\xc1\xf7\xbb\x07\x00\x00\x00\x00\x49\x45\x4e\x44\xae\x42\x60\x82",
    85);

// Files that broke the earlier decoder (stb_image: a JPEG Huffman table of more than 256 codes,
// a scan naming a table no DHT defines) end in an error; a valid PNG whose image data starts with
// an empty chunk is read. A JPEG or PNG cut short is refused, never filled in (libjpeg would
// repair a short JPEG with gray; pplab makes its warnings errors).
// Whether this build decodes the format of `bytes` (PNG needs libpng, JPEG libjpeg: a build
// without one says so, errc::unsupported, and its tests of that format skip).
bool decodes(const std::string& bytes) {
  const std::string path = temp_path("probe.img");
  write_bytes(path, bytes);
  try {
    io::read_input(path, "image", nullptr);
  } catch (const error& e) {
    std::filesystem::remove(path);
    return e.code() != errc::unsupported;
  }
  std::filesystem::remove(path);
  return true;
}

TEST(ImageInput, HostileFilesAreRefusedAndValidOnesRead) {
  if (!decodes(small_png) || !decodes(small_jpeg))
    GTEST_SKIP() << "this build reads no PNG or no JPEG (libpng, libjpeg)";
  const std::string path = temp_path("x.img");
  const auto refused = [&](const std::string& bytes, const std::string& what) {
    write_bytes(path, bytes);
    try {
      io::read_input(path, "image", nullptr);
      ADD_FAILURE() << what << " was decoded";
    } catch (const error& e) {
      EXPECT_EQ(e.code(), errc::bad_data) << what << ": " << e.what();
      EXPECT_NE(std::string(e.what()).find("cannot be decoded"), std::string::npos) << e.what();
    }
  };
  std::string jpeg = small_jpeg;
  const std::size_t dht = jpeg.find("\xff\xc4");
  ASSERT_NE(dht, std::string::npos);
  // DHT, its length, class 0 id 0, then 16 counts of 127 (the 0 byte counted: a C string ends
  // there).
  std::string table = std::string("\xff\xc4\x08\x13\x00", 5) + std::string(16, '\x7f');
  table += std::string(16 * 0x7f, '\x01');  // 2032 symbols, as many as the counts promise
  table[2] = char((table.size() - 2) >> 8), table[3] = char((table.size() - 2) & 0xff);
  jpeg.insert(dht, table);
  refused(jpeg, "a Huffman table of 2032 codes");
  // A scan whose first component names DC table 3, which no DHT defines.
  std::string undefined = small_jpeg;
  const std::size_t sos = undefined.find("\xff\xda");
  ASSERT_NE(sos, std::string::npos);
  undefined[sos + 6] = char(0x30 | (undefined[sos + 6] & 0x0f));
  refused(undefined, "a scan naming an undefined Huffman table");
  refused(small_jpeg.substr(0, small_jpeg.size() - 40), "a JPEG cut short");
  refused(small_png.substr(0, small_png.size() - 30), "a PNG cut short");
  std::string bad_crc = small_png;
  bad_crc[45] = char(bad_crc[45] ^ 0x10);  // a byte of the image data: its chunk's CRC fails
  refused(bad_crc, "a PNG whose image data fails its CRC");
  // 3 x 2 RGB, its image data in two chunks, the first empty: valid, and read.
  write_bytes(
      path, std::string(
                "\x89\x50\x4e\x47\x0d\x0a\x1a\x0a\x00\x00\x00\x0d\x49\x48\x44\x52\x00\x00\x00\x03"
                "\x00\x00\x00\x02\x08\x02\x00\x00\x00\x12\x16\xf1\x4d\x00\x00\x00\x00\x49\x44\x41"
                "\x54\x35\xaf\x06\x1e\x00\x00\x00\x0b\x49\x44\x41\x54\x78\x9c\x63\x60\xc0\x04\x00"
                "\x00\x14\x00\x01\x7d\xfe\x1e\xee\x00\x00\x00\x00\x49\x45\x4e\x44\xae\x42\x60\x82",
                80));
  const io::input empty_first = io::read_input(path, "image", nullptr);
  ASSERT_EQ(empty_first.channels.size(), 3u);
  EXPECT_EQ(empty_first.channels[0].shape, (std::vector<std::size_t>{2, 3}));
  write_bytes(path, small_jpeg);
  EXPECT_EQ(io::read_input(path, "image", nullptr).channels.size(), 3u);
  write_bytes(path, small_png);
  EXPECT_EQ(io::read_input(path, "image", nullptr).channels.size(), 3u);
  std::filesystem::remove(path);
}

// A 16-bit gray PNG (3 x 1: 1, 256, 65535) is read as u16 samples in the host's order, and a
// palette PNG (2 x 1, entries (10, 20, 30) and (40, 50, 60)) as its colours.
TEST(ImageInput, SixteenBitAndPalettePngs) {
  if (!decodes(small_png)) GTEST_SKIP() << "this build reads no PNG (libpng)";
  const std::string path = temp_path("x.png");
  write_bytes(
      path, std::string("\x89\x50\x4e\x47\x0d\x0a\x1a\x0a\x00\x00\x00\x0d\x49\x48\x44\x52\x00\x00"
                        "\x00\x03\x00\x00\x00\x01\x10\x00\x00\x00\x00\x6e\x1b\x97\x2b\x00\x00\x00"
                        "\x0f\x49\x44\x41\x54\x78\x9c\x63\x60\x60\x64\x64\xf8\xff\x1f\x00\x03\x0d"
                        "\x02\x01\x39\x57\xc2\x0a\x00\x00\x00\x00\x49\x45\x4e\x44\xae\x42\x60\x82",
                        72));
  const io::input wide = io::read_input(path, "", nullptr);
  ASSERT_EQ(wide.channels.size(), 1u);
  ASSERT_EQ(wide.channels[0].type, dtype::u16);
  std::uint16_t v[3];
  std::memcpy(v, wide.channels[0].bytes.data(), 6);
  EXPECT_EQ(v[0], 1);
  EXPECT_EQ(v[1], 256);
  EXPECT_EQ(v[2], 65535);
  EXPECT_FALSE(wide.natural_bytes);
  write_bytes(path,
              std::string("\x89\x50\x4e\x47\x0d\x0a\x1a\x0a\x00\x00\x00\x0d\x49\x48\x44\x52\x00\x00"
                          "\x00\x02\x00\x00\x00\x01\x08\x03\x00\x00\x00\xc3\xfc\x8f\xb8\x00\x00\x00"
                          "\x06\x50\x4c\x54\x45\x0a\x14\x1e\x28\x32\x3c\xd5\x1b\xb4\xe9\x00\x00\x00"
                          "\x0b\x49\x44\x41\x54\x78\x9c\x63\x60\x60\x04\x00\x00\x04\x00\x02\xbf\x7a"
                          "\x3f\x4a\x00\x00\x00\x00\x49\x45\x4e\x44\xae\x42\x60\x82",
                          86));
  const io::input colours = io::read_input(path, "", nullptr);
  ASSERT_EQ(colours.channels.size(), 3u);
  for (std::size_t c = 0; c < 3; ++c) {
    EXPECT_EQ(std::to_integer<int>(colours.channels[c].bytes[0]), 10 + 10 * int(c));
    EXPECT_EQ(std::to_integer<int>(colours.channels[c].bytes[1]), 40 + 10 * int(c));
  }
  std::filesystem::remove(path);
}

// Mutation fuzzing of the image path (run under AddressSanitizer and UBSan in CI): each mutated
// JPEG, PNG, PNM or BMP ends in a pplab::error or in whole channels, never in a crash or
// undefined behaviour.
TEST(ImageInput, MutatedImagesEndInAnErrorOrWholeChannels) {
  const std::uint64_t seed_value = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed_value) + " (PPLAB_SEED=" + std::to_string(seed_value) +
               " runs it again)");
  std::mt19937_64 rng(seed_value);
  const std::string small_pnm = "P6\n3 2\n255\n" + std::string(18, '\x42');
  const std::string small_bmp = bmp_4x2_header() + std::string(24, '\x07');
  for (const std::string* seed : {&small_jpeg, &small_png, &small_pnm, &small_bmp})
    for (int trial = 0; trial < 2000; ++trial) {
      std::string s = *seed;
      const int kind = trial % 4;
      if (kind == 0) s.resize(rng() % (s.size() + 1));
      for (int k = 0; k < 1 + int(rng() % 6); ++k)
        if (!s.empty() && kind != 0) s[rng() % s.size()] = char(rng());
      if (kind == 3 && !s.empty())  // a byte of the tables' counts made large
        s[std::min(s.size() - 1, std::size_t(150 + rng() % 60))] = char(0x80 | rng());
      const std::string path = temp_path("fuzz.img");
      write_bytes(path, s);
      try {
        const io::input in = io::read_input(path, "image", nullptr);
        for (const io::array& a : in.channels)
          EXPECT_EQ(a.bytes.size(), a.shape[0] * a.shape[1] * size_of(a.type));
      } catch (const error&) {
      }
      std::filesystem::remove(path);
    }
}

// Every reader, through files, on mutated inputs: truncations, flipped bytes, header numbers
// replaced by huge ones. Each case ends in a pplab::error or in an array consistent with itself,
// never a crash, a hang or an allocation the file does not justify.
TEST(Readers, MutatedFilesEndInAnErrorOrAConsistentArray) {
  const std::uint64_t seed_value = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed_value) + " (PPLAB_SEED=" + std::to_string(seed_value) +
               " runs it again)");
  std::mt19937_64 rng(seed_value);
  struct seed_file {
    std::string name, bytes, format;
    dtype type;
  };
  const std::vector<seed_file> seeds = {
      {"f.npy",
       npy(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 2), }",
           std::string(48, '\x01')),
       "", dtype::f64},
      {"b.npy",
       npy(3, "{'descr': '>i4', 'fortran_order': False, 'shape': (4,), }", std::string(16, '\x02')),
       "", dtype::i32},
      {"t.txt", "1 2.5, -3\n4e2\t+5 inf\n", "", dtype::f64},
      {"i.txt", "1 -2 300000 7\n", "text", dtype::i32},
      {"r.bin", std::string(64, '\x07'), "raw", dtype::u16},
      {"p.ppm", "P6\n3 2\n255\n" + std::string(18, '\x05'), "", dtype::u8},
      {"g.pgm", "P5\n4 4\n65535\n" + std::string(32, '\x09'), "", dtype::u8},
      {"h.npy",
       npy(2, "{'descr': '>f2', 'fortran_order': True, 'shape': (2, 3), }",
           std::string(12, '\x3c')),
       "", dtype::f32},
      {"c.bmp", bmp_4x2_header() + std::string(24, '\x07'), "", dtype::u8}};
  const auto digits_to_huge = [&](std::string s) {
    const std::size_t at = s.find_first_of("0123456789");
    if (at != std::string::npos) s.insert(at, "99999999999999999999");
    return s;
  };
  for (const seed_file& f : seeds)
    for (int trial = 0; trial < 300; ++trial) {
      std::string s = f.bytes;
      switch (trial % 3) {
      case 0:
        s.resize(rng() % (s.size() + 1));
        break;
      case 1:
        for (int k = 0; k < 1 + int(rng() % 4); ++k)
          if (!s.empty()) s[rng() % s.size()] = char(rng());
        break;
      default:
        s = digits_to_huge(s.substr(0, std::min<std::size_t>(s.size(), 40))) +
            s.substr(std::min<std::size_t>(s.size(), 40));
      }
      const std::string path = temp_path(f.name);
      write_bytes(path, s);
      try {
        const io::input in = io::read_input(path, f.format, &f.type);
        for (const io::array& a : in.channels) {
          std::size_t count = 1;
          for (std::size_t d : a.shape) count *= d;
          EXPECT_EQ(a.bytes.size(), count * size_of(a.type)) << f.name << " trial " << trial;
          EXPECT_LE(a.bytes.size(), 4 * s.size() + 64) << "more elements than the file holds";
        }
      } catch (const error&) {
      }
      std::filesystem::remove(path);
    }
}

TEST(RawInput, NeedsAWholeNumberOfElements) {
  const std::string path = temp_path("data.bin");
  write_bytes(path, std::string(10, '\0'));
  const dtype f32 = dtype::f32, i16 = dtype::i16;
  EXPECT_THROW(io::read_input(path, "raw", &f32), error);
  EXPECT_EQ(io::read_input(path, "raw", &i16).channels[0].size(), 5u);
  EXPECT_EQ(io::read_input(path, "", nullptr).channels[0].size(), 10u);  // bytes
  std::filesystem::remove(path);
}

TEST(Files, MissingFileIsAnIoError) {
  try {
    io::read_input("/no/such/file.npy", "", nullptr);
    ADD_FAILURE();
  } catch (const error& e) {
    EXPECT_EQ(e.code(), errc::io);
  }
}

}  // namespace
}  // namespace pplab::test
