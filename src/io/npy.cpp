// The .npy format (NumPy's numpy/lib/format.py): magic, version, a little-endian header length,
// then a Python dict literal {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), } padded
// with spaces and ending in a newline, then the elements.
//
// Read as NumPy reads it: the header is parsed as the Python literal it is (NumPy uses
// ast.literal_eval), with exactly NumPy's checks: versions 1.0, 2.0 and 3.0 only; a header of at
// most 10000 bytes (NumPy's default max_header_size); exactly the keys descr, fortran_order and
// shape; shape a tuple of non-negative ints; fortran_order a bool; descr a dtype string.
// Every array NumPy reads is then either interpreted as NumPy interprets it or refused naming
// its type:
//   - bool ('|b1', '?') is read as uint8 0 and 1 (NumPy takes every nonzero byte as True and
//     converts bool to uint8 for histograms);
//   - float16 ('<f2', 'e') is widened to float32, exactly (every float16 is a float32), so sums
//     and means accumulate in float32 or wider instead of overflowing float16 past 65504;
//   - Fortran-order arrays are transposed into C order as they are read;
//   - complex, datetime, timedelta, strings, void, object, structured, sub-array and
//     long-double arrays are refused with what to save instead.
// The payload is read once: straight into the array when it needs no conversion, otherwise in
// bounded chunks converted into place, so the peak memory is the array plus one chunk.
#include <sys/stat.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <map>

#include "pplab/error.hpp"
#include "pplab/io.hpp"

namespace pplab::io {
namespace {

[[noreturn]] void bad(const std::string& name, const std::string& what) {
  fail(errc::bad_data, name + ": not a usable .npy file: " + what);
}

// ---- the header: a Python literal ------------------------------------------------------------

// The subset of Python literals a .npy header can hold (ast.literal_eval would take more, but
// nothing else can pass NumPy's checks that follow): dict, tuple, list, str, int, bool, None.
struct py_value {
  enum kind_t { dict, tuple, list, str, integer, boolean, none } kind = none;
  std::string text;             // str: the characters; integer: the digits, sign first
  bool truth = false;           // boolean
  std::vector<py_value> items;  // tuple, list; dict: key, value, key, value, ...
};

class py_parser {
public:
  py_parser(const std::string& s, const std::string& name) : s_(s), name_(name) {}

  py_value whole() {
    py_value v = value(0);
    skip_space();
    if (at_ != s_.size()) error("unexpected text after the dict");
    return v;
  }

private:
  [[noreturn]] void error(const std::string& what) const {
    std::string shown = s_.substr(0, 200);
    while (!shown.empty() && (shown.back() == ' ' || shown.back() == '\n')) shown.pop_back();
    bad(name_, "cannot parse the header (" + what + " at character " + std::to_string(at_) +
                   "; NumPy would not read it either): " + shown);
  }
  void skip_space() {
    while (at_ < s_.size() && std::strchr(" \t\n\r\f\v", s_[at_]) && s_[at_] != '\0') ++at_;
  }
  bool eat(char c) {
    skip_space();
    if (at_ < s_.size() && s_[at_] == c) return ++at_, true;
    return false;
  }
  // Items up to `close`, separated by commas, a trailing comma allowed. Returns whether a
  // comma was seen (so "(3)" is the int 3 and "(3,)" a tuple, as in Python).
  bool sequence(std::vector<py_value>& out, char close, bool pairs, int depth) {
    bool comma = false;
    while (!eat(close)) {
      out.push_back(value(depth + 1));
      if (pairs) {
        if (!eat(':')) error("expected ':'");
        out.push_back(value(depth + 1));
      }
      if (eat(',')) comma = true;
      else if (!eat(close)) error(std::string("expected ',' or '") + close + "'");
      else break;
    }
    return comma;
  }
  py_value value(int depth) {
    if (depth > 32) error("nested too deeply");
    skip_space();
    if (at_ >= s_.size()) error("unexpected end");
    py_value v;
    const char c = s_[at_];
    if (c == '{') {
      ++at_, v.kind = py_value::dict;
      sequence(v.items, '}', true, depth);
    } else if (c == '[') {
      ++at_, v.kind = py_value::list;
      sequence(v.items, ']', false, depth);
    } else if (c == '(') {
      ++at_, v.kind = py_value::tuple;
      const bool comma = sequence(v.items, ')', false, depth);
      if (v.items.size() == 1 && !comma) return v.items.front();  // parentheses, not a tuple
    } else if (c == '\'' || c == '"' ||
               ((c == 'u' || c == 'b') && at_ + 1 < s_.size() &&
                (s_[at_ + 1] == '\'' || s_[at_ + 1] == '"'))) {
      if (c == 'b') error("a bytes literal where NumPy expects a str");
      if (c == 'u') ++at_;
      v.kind = py_value::str;
      const char quote = s_[at_++];
      for (;; ++at_) {
        if (at_ >= s_.size() || s_[at_] == '\n') error("unterminated string");
        if (s_[at_] == quote) break;
        if (s_[at_] == '\\') {
          if (++at_ >= s_.size()) error("unterminated string");
        }
        v.text += s_[at_];
      }
      ++at_;
    } else if (c == '-' || c == '+' || (c >= '0' && c <= '9')) {
      v.kind = py_value::integer;
      if (c == '-' || c == '+') {
        if (c == '-') v.text += '-';
        ++at_;
        skip_space();
      }
      if (at_ >= s_.size() || s_[at_] < '0' || s_[at_] > '9') error("expected a number");
      if (s_[at_] == '0' && at_ + 1 < s_.size() && s_[at_ + 1] >= '0' && s_[at_ + 1] <= '9')
        error("a number with a leading zero");  // Python 3 refuses 012
      while (at_ < s_.size() &&
             ((s_[at_] >= '0' && s_[at_] <= '9') || (s_[at_] == '_' && at_ + 1 < s_.size() &&
                                                     s_[at_ + 1] >= '0' && s_[at_ + 1] <= '9'))) {
        if (s_[at_] != '_') v.text += s_[at_];
        ++at_;
      }
      if (at_ < s_.size() && (s_[at_] == 'L' || s_[at_] == 'l')) ++at_;  // Python 2 longs
      if (at_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[at_])) || s_[at_] == '.'))
        error("not an integer");
    } else {
      std::size_t end = at_;
      while (end < s_.size() &&
             (std::isalnum(static_cast<unsigned char>(s_[end])) || s_[end] == '_'))
        ++end;
      const std::string word = s_.substr(at_, end - at_);
      if (word == "True" || word == "False") v.kind = py_value::boolean, v.truth = word == "True";
      else if (word == "None") v.kind = py_value::none;
      else error(word.empty() ? "unexpected character" : "unexpected name '" + word + "'");
      at_ = end;
    }
    return v;
  }

  const std::string& s_;
  const std::string& name_;
  std::size_t at_ = 0;
};

// ---- the dtype -------------------------------------------------------------------------------

struct stored_type {
  dtype type;         // what the array holds once read
  std::size_t width;  // bytes per element in the file
  bool is_bool = false, is_half = false;
};

// A descr string as numpy.dtype() reads it: an optional byte order, then a kind and a width
// ('<f4'), a one-letter code ('d') or a name ('float32').
stored_type parse_descr(const std::string& d, const std::string& name, bool& swap) {
  std::string code = d;
  char order = '=';
  if (!code.empty() && std::strchr("<>|=", code.front())) order = code.front(), code.erase(0, 1);
  swap = order == '>' ? std::endian::native == std::endian::little
                      : order == '<' && std::endian::native == std::endian::big;
  static const std::map<std::string, stored_type> known = {
      {"i1", {dtype::i8, 1}},
      {"b", {dtype::i8, 1}},
      {"int8", {dtype::i8, 1}},
      {"i2", {dtype::i16, 2}},
      {"h", {dtype::i16, 2}},
      {"int16", {dtype::i16, 2}},
      {"i4", {dtype::i32, 4}},
      {"i", {dtype::i32, 4}},
      {"int32", {dtype::i32, 4}},
      {"i8", {dtype::i64, 8}},
      {"q", {dtype::i64, 8}},
      {"l", {dtype::i64, 8}},
      {"int64", {dtype::i64, 8}},
      {"u1", {dtype::u8, 1}},
      {"B", {dtype::u8, 1}},
      {"uint8", {dtype::u8, 1}},
      {"u2", {dtype::u16, 2}},
      {"H", {dtype::u16, 2}},
      {"uint16", {dtype::u16, 2}},
      {"u4", {dtype::u32, 4}},
      {"I", {dtype::u32, 4}},
      {"uint32", {dtype::u32, 4}},
      {"u8", {dtype::u64, 8}},
      {"Q", {dtype::u64, 8}},
      {"L", {dtype::u64, 8}},
      {"uint64", {dtype::u64, 8}},
      {"f4", {dtype::f32, 4}},
      {"f", {dtype::f32, 4}},
      {"float32", {dtype::f32, 4}},
      {"f8", {dtype::f64, 8}},
      {"d", {dtype::f64, 8}},
      {"float64", {dtype::f64, 8}},
      {"f2", {dtype::f32, 2, false, true}},
      {"e", {dtype::f32, 2, false, true}},
      {"float16", {dtype::f32, 2, false, true}},
      {"b1", {dtype::u8, 1, true}},
      {"?", {dtype::u8, 1, true}},
      {"bool", {dtype::u8, 1, true}}};
  if (const auto it = known.find(code); it != known.end()) return it->second;
  const char kind = code.empty() ? ' ' : code.front();
  std::string why;
  if (kind == 'c') why = "complex numbers; save the real and imaginary parts (a.real, a.imag)";
  else if (kind == 'M' || kind == 'm')
    why = "datetime64 or timedelta64; save a.astype('int64') (ticks of its unit)";
  else if (kind == 'U' || kind == 'S' || kind == 'a') why = "strings; save numbers";
  else if (kind == 'V') why = "raw bytes (void); save a numeric array";
  else if (kind == 'O') why = "Python objects; save a numeric array";
  else if (code == "f16" || code == "f12" || code == "g" || code == "float128")
    why = "long double; save a.astype('float64')";
  else why = "a dtype pplab does not know";
  bad(name, "dtype '" + d + "' holds " + why +
                " (pplab reads bool, int8..int64, uint8..uint64, float16, float32, float64)");
}

// ---- the layout ------------------------------------------------------------------------------

// What a .npy header says: the array (dtype and shape, no elements yet), how the elements are
// stored, where they start and how many bytes they take.
struct npy_layout {
  array a;
  stored_type stored{dtype::u8, 1};
  bool swap = false, fortran = false;
  std::size_t data_offset = 0, data_bytes = 0, count = 0;
};

constexpr std::size_t npy_prefix = 12;           // magic, version, the longest length field
constexpr std::size_t max_header_bytes = 10000;  // NumPy's default max_header_size

// `size` bytes of the file are at `p`, at least the whole header; `file_size` is the file's.
// A header that promises more elements than the file holds is refused here, before anything
// is allocated.
npy_layout parse_header(const std::byte* p, std::size_t size, std::size_t file_size,
                        const std::string& name) {
  static constexpr unsigned char magic[] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
  if (size < 10 || std::memcmp(p, magic, 6) != 0)
    bad(name, "the magic string \\x93NUMPY is missing");
  const unsigned major = unsigned(p[6]), minor = unsigned(p[7]);
  if ((major < 1 || major > 3) || minor != 0)
    bad(name, "format version " + std::to_string(major) + "." + std::to_string(minor) +
                  " (NumPy and pplab read versions 1.0, 2.0 and 3.0)");
  std::size_t header_len = std::size_t(p[8]) | std::size_t(p[9]) << 8, offset = 10;
  if (major > 1) {
    if (size < 12) bad(name, "truncated header");
    header_len |= std::size_t(p[10]) << 16 | std::size_t(p[11]) << 24;
    offset = 12;
  }
  if (header_len > max_header_bytes)
    bad(name, "the header is " + std::to_string(header_len) +
                  " bytes long; NumPy refuses headers over 10000 bytes and so does pplab");
  if (header_len > size - offset) bad(name, "truncated header");
  const std::string header(reinterpret_cast<const char*>(p + offset), header_len);
  const py_value d = py_parser(header, name).whole();
  if (d.kind != py_value::dict) bad(name, "the header is not a dict");

  const py_value *descr = nullptr, *fortran = nullptr, *shape = nullptr;
  for (std::size_t i = 0; i < d.items.size(); i += 2) {
    const py_value& key = d.items[i];
    const py_value* value = &d.items[i + 1];
    if (key.kind == py_value::str && key.text == "descr") descr = value;
    else if (key.kind == py_value::str && key.text == "fortran_order") fortran = value;
    else if (key.kind == py_value::str && key.text == "shape") shape = value;
    else
      bad(name, "the header has a key other than 'descr', 'fortran_order' and 'shape' (" +
                    (key.kind == py_value::str ? "'" + key.text + "'" : std::string("not a str")) +
                    "); NumPy refuses it too");
  }
  if (!descr || !fortran || !shape)
    bad(name, std::string("the header has no '") +
                  (!descr     ? "descr"
                   : !fortran ? "fortran_order"
                              : "shape") +
                  "'");
  npy_layout l;
  if (descr->kind == py_value::list)
    bad(name, "a structured array (fields); save one plain numeric field, a['name']");
  if (descr->kind == py_value::tuple) bad(name, "a sub-array dtype; save a plain numeric array");
  if (descr->kind != py_value::str) bad(name, "'descr' is not a dtype string");
  l.stored = parse_descr(descr->text, name, l.swap);
  l.a.type = l.stored.type;
  if (fortran->kind != py_value::boolean) bad(name, "'fortran_order' is not True or False");
  l.fortran = fortran->truth && shape->items.size() > 1;  // 0-d and 1-d arrays: the same bytes
  if (shape->kind != py_value::tuple) bad(name, "'shape' is not a tuple");
  l.count = 1;
  for (const py_value& dim : shape->items) {
    if (dim.kind != py_value::integer) bad(name, "'shape' holds something other than ints");
    if (dim.text.front() == '-') bad(name, "'shape' has a negative dimension");
    std::size_t v = 0;
    for (char ch : dim.text) {
      if (v > (std::numeric_limits<std::size_t>::max() - 9) / 10) bad(name, "shape too large");
      v = v * 10 + std::size_t(ch - '0');
    }
    l.a.shape.push_back(v);
    if (v && l.count > std::numeric_limits<std::size_t>::max() / v) bad(name, "shape too large");
    l.count *= v;
  }
  const std::size_t out_width = size_of(l.a.type);
  if (l.count > std::numeric_limits<std::size_t>::max() / out_width) bad(name, "shape too large");
  l.data_offset = offset + header_len;
  l.data_bytes = l.count * l.stored.width;
  if (file_size - l.data_offset < l.data_bytes)
    bad(name, "truncated: the header promises " + std::to_string(l.count) + " elements (" +
                  std::to_string(l.data_bytes) + " bytes) but " +
                  std::to_string(file_size - l.data_offset) + " bytes follow");
  if (l.stored.is_half) l.a.stored_as = "float16";  // read as "f32 converted from float16"
  if (l.stored.is_bool) l.a.stored_as = "bool";
  if (l.fortran) l.a.stored_as += std::string(l.a.stored_as.empty() ? "" : ", ") + "Fortran order";
  return l;
}

// ---- the payload -----------------------------------------------------------------------------

// float16 to float32, exact: every float16 (normal, subnormal, infinite, NaN) is a float32.
std::uint32_t half_to_float_bits(std::uint16_t h) {
  const std::uint32_t sign = std::uint32_t(h & 0x8000u) << 16;
  std::uint32_t exp = (h >> 10) & 0x1f, man = h & 0x3ffu;
  if (exp == 0x1f) return sign | 0x7f800000u | man << 13;  // inf, NaN (payload kept)
  if (exp == 0) {
    if (man == 0) return sign;  // +-0
    int shift = 0;              // subnormal: normalize
    while (!(man & 0x400u)) man <<= 1, ++shift;
    return sign | std::uint32_t(127 - 15 + 1 - shift) << 23 | (man & 0x3ffu) << 13;
  }
  return sign | (exp + 127 - 15) << 23 | man << 13;
}

// Moves elements as stored (in_width bytes, file byte order) into the array (native order, its
// dtype), element `first` onwards, placing each at its C-order position.
class payload_writer {
public:
  explicit payload_writer(npy_layout& l) : l_(l), index_(l.a.shape.size(), 0) {
    // Strides of the C-order array, walked in Fortran order (the first index fastest).
    const std::size_t dims = l.a.shape.size();
    stride_.assign(dims, 1);
    for (std::size_t k = dims; k-- > 1;) stride_[k - 1] = stride_[k] * l.a.shape[k];
  }
  void put(std::byte* raw, std::size_t elements) {
    const std::size_t in = l_.stored.width, out = size_of(l_.a.type);
    for (std::size_t i = 0; i < elements; ++i) {
      std::byte* e = raw + i * in;
      if (l_.swap) std::reverse(e, e + in);
      std::byte value[8];
      if (l_.stored.is_half) {
        std::uint16_t h;
        std::memcpy(&h, e, 2);
        const std::uint32_t f = half_to_float_bits(h);
        std::memcpy(value, &f, 4);
      } else if (l_.stored.is_bool) {
        value[0] = std::byte(e[0] != std::byte{0});
      } else {
        std::memcpy(value, e, in);
      }
      std::memcpy(l_.a.bytes.data() + next_position() * out, value, out);
    }
  }

private:
  std::size_t next_position() {
    if (!l_.fortran) return done_++;
    const std::size_t at = offset_;
    for (std::size_t k = 0; k < index_.size(); ++k) {  // the odometer, first index fastest
      offset_ += stride_[k];
      if (++index_[k] < l_.a.shape[k]) break;
      offset_ -= stride_[k] * index_[k];
      index_[k] = 0;
    }
    return at;
  }
  npy_layout& l_;
  std::vector<std::size_t> index_, stride_;
  std::size_t offset_ = 0, done_ = 0;
};

// Fills the array from `read(dst, bytes)`, which supplies the payload in order: straight into
// the array when the stored elements are the array's, otherwise through a bounded chunk.
void read_payload(npy_layout& l, const std::function<void(std::byte*, std::size_t)>& read) {
  l.a.bytes.resize(l.count * size_of(l.a.type));
  if (!l.stored.is_half && !l.stored.is_bool && !l.fortran) {
    read(l.a.bytes.data(), l.data_bytes);
    const std::size_t w = l.stored.width;
    if (l.swap && w > 1)
      for (std::size_t i = 0; i < l.a.bytes.size(); i += w)
        std::reverse(l.a.bytes.begin() + std::ptrdiff_t(i),
                     l.a.bytes.begin() + std::ptrdiff_t(i + w));
    return;
  }
  constexpr std::size_t chunk_elements = std::size_t(1) << 21;  // 16 MiB of 8-byte elements
  std::vector<std::byte> chunk(std::min(l.count, chunk_elements) * l.stored.width);
  payload_writer writer(l);
  for (std::size_t done = 0; done < l.count;) {
    const std::size_t n = std::min(chunk_elements, l.count - done);
    read(chunk.data(), n * l.stored.width);
    writer.put(chunk.data(), n);
    done += n;
  }
}

// Regular files only: a directory, a device, a FIFO or a socket gets a clear error instead of a
// wrong size, a wrong message or a read that never ends. Returns the open file and its size.
std::ifstream open_regular(const std::string& path, std::size_t& size) {
  if (path.empty()) fail(errc::invalid_argument, "the input path is empty; name a file");
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    fail(errc::io, "cannot open '" + path + "': " + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) fail(errc::io, "'" + path + "' is a directory; name a file in it");
  if (!S_ISREG(st.st_mode))
    fail(errc::io, "'" + path +
                       "' is not a regular file (a device, FIFO or socket); pplab reads "
                       "regular files: save the stream to a file first");
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(errc::io, "cannot open '" + path + "': " + std::strerror(errno));
  size = std::size_t(st.st_size);
  return in;
}

void read_exactly(std::ifstream& in, void* dst, std::size_t bytes, const std::string& path) {
  if (bytes && !in.read(static_cast<char*>(dst), std::streamsize(bytes)))
    fail(errc::io, "cannot read '" + path + "': it ended " +
                       std::to_string(bytes - std::size_t(in.gcount())) + " bytes early");
}

}  // namespace

std::vector<std::byte> read_file(const std::string& path) {
  std::size_t size = 0;
  std::ifstream in = open_regular(path, size);
  std::vector<std::byte> bytes(size);
  read_exactly(in, bytes.data(), size, path);
  return bytes;
}

array parse_npy(const std::byte* p, std::size_t size, const std::string& name) {
  npy_layout l = parse_header(p, size, size, name);
  const std::byte* next = p + l.data_offset;
  read_payload(l, [&](std::byte* dst, std::size_t bytes) {
    if (bytes) std::memcpy(dst, next, bytes);  // an empty array's data() may be null
    next += bytes;
  });
  return std::move(l.a);
}

namespace {

// The header of an open .npy file, read without its elements; `in` is left at the elements.
npy_layout read_layout(std::ifstream& in, std::size_t size, const std::string& path) {
  std::vector<std::byte> head(std::min(size, npy_prefix));
  read_exactly(in, head.data(), head.size(), path);
  std::size_t header_end = head.size();
  if (head.size() >= 10 && unsigned(head[6]) == 1)
    header_end = 10 + (std::size_t(head[8]) | std::size_t(head[9]) << 8);
  else if (head.size() >= 12 && (unsigned(head[6]) == 2 || unsigned(head[6]) == 3))
    header_end = 12 + (std::size_t(head[8]) | std::size_t(head[9]) << 8 |
                       std::size_t(head[10]) << 16 | std::size_t(head[11]) << 24);
  header_end = std::min({header_end, size, npy_prefix + max_header_bytes + 1});
  head.resize(std::max(header_end, head.size()));
  read_exactly(in, head.data() + npy_prefix,
               head.size() > npy_prefix ? head.size() - npy_prefix : 0, path);
  npy_layout l = parse_header(head.data(), head.size(), size, path);
  in.seekg(std::streamoff(l.data_offset));
  return l;
}

}  // namespace

// The header first, then the elements straight into the array: the file's bytes are held once.
array read_npy(const std::string& path) {
  std::size_t size = 0;
  std::ifstream in = open_regular(path, size);
  npy_layout l = read_layout(in, size, path);
  read_payload(l, [&](std::byte* dst, std::size_t bytes) { read_exactly(in, dst, bytes, path); });
  return std::move(l.a);
}

array read_npy_block(const std::string& path, const block_chooser& choose) {
  std::size_t size = 0;
  std::ifstream in = open_regular(path, size);
  npy_layout l = read_layout(in, size, path);
  if (l.a.shape.size() != 2)
    fail(errc::bad_data, path + ": a 2-D matrix is needed; it has " +
                             std::to_string(l.a.shape.size()) + " dimensions");
  if (l.fortran)
    fail(errc::bad_data, path + ": a Fortran-order matrix cannot be read in blocks; save it in C "
                                "order (numpy.ascontiguousarray) to read it on several ranks");
  const std::size_t cols = l.a.shape[1];
  const block b = choose(l.a.shape[0], cols);
  const std::size_t w = l.stored.width, start = l.data_offset;
  l.count = b.rows * b.cols, l.data_bytes = l.count * w;
  // The block's elements in row order: each request is served from the rows it spans.
  std::size_t at = 0;  // elements of the block delivered so far
  read_payload(l, [&](std::byte* dst, std::size_t bytes) {
    for (std::size_t want = bytes / w; want > 0;) {
      const std::size_t r = at / b.cols, j = at % b.cols, run = std::min(want, b.cols - j);
      in.seekg(std::streamoff(start + ((b.row0 + r) * cols + b.col0 + j) * w));
      read_exactly(in, dst, run * w, path);
      dst += run * w, at += run, want -= run;
    }
  });
  return std::move(l.a);
}

array read_npy_part(const std::string& path, const part_chooser& choose) {
  std::size_t size = 0;
  std::ifstream in = open_regular(path, size);
  npy_layout l = read_layout(in, size, path);
  if (l.fortran)
    fail(errc::bad_data, path + ": a Fortran-order array cannot be read in parts; save it in C "
                                "order (numpy.ascontiguousarray) to read it on several ranks");
  const auto [first, count] = choose(l.count);
  in.seekg(std::streamoff(l.data_offset + first * l.stored.width));
  l.count = count, l.data_bytes = count * l.stored.width;
  read_payload(l, [&](std::byte* dst, std::size_t bytes) { read_exactly(in, dst, bytes, path); });
  return std::move(l.a);
}

void write_npy(output_file& out, const array& a) {
  static constexpr const char* descr[] = {"<i1", "<i2", "<i4", "<i8", "|u1",
                                          "<u2", "<u4", "<u8", "<f4", "<f8"};
  std::string shape;
  for (std::size_t i = 0; i < a.shape.size(); ++i)
    shape += (i ? ", " : "") + std::to_string(a.shape[i]);
  shape = "(" + shape + (a.shape.size() == 1 ? ",)" : ")");
  std::string header = "{'descr': '" + std::string(descr[std::size_t(a.type)]) +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  const std::size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  const unsigned char pre[] = {0x93,
                               'N',
                               'U',
                               'M',
                               'P',
                               'Y',
                               1,
                               0,
                               static_cast<unsigned char>(header.size() & 0xff),
                               static_cast<unsigned char>(header.size() >> 8)};
  out.write(pre, sizeof pre);
  out.write(header);
  out.write(a.bytes.data(), a.bytes.size());
  out.commit();
}

void write_npy(const std::string& path, const array& a) {
  output_file out(path);
  write_npy(out, a);
}

}  // namespace pplab::io
