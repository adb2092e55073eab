// The .npy format (NumPy's format.py): magic, version, a little-endian header length, then a
// Python dict literal {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), } padded with
// spaces and ending in a newline, then the elements.
#include <sys/stat.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>

#include "io/array.hpp"
#include "io/output.hpp"
#include "pplab/error.hpp"

namespace pplab::io {
namespace {

[[noreturn]] void bad(const std::string& name, const std::string& what) {
  fail(errc::bad_data, name + ": not a usable .npy file: " + what);
}

// The value text that follows 'key': in the header dict (up to the next top-level comma or '}').
std::string field(const std::string& header, const std::string& key, const std::string& name) {
  std::size_t at = header.find("'" + key + "'");
  if (at == std::string::npos) at = header.find("\"" + key + "\"");
  if (at == std::string::npos) bad(name, "the header has no '" + key + "'");
  at = header.find(':', at);
  if (at == std::string::npos) bad(name, "malformed header near '" + key + "'");
  ++at;
  while (at < header.size() && header[at] == ' ') ++at;
  std::size_t end = at;
  int depth = 0;
  for (; end < header.size(); ++end) {
    const char ch = header[end];
    if (ch == '(' || ch == '[') ++depth;
    else if (ch == ')' || ch == ']') --depth;
    else if ((ch == ',' || ch == '}') && depth == 0) break;
  }
  if (end >= header.size()) bad(name, "malformed header near '" + key + "'");
  return header.substr(at, end - at);
}

dtype parse_descr(std::string d, const std::string& name, bool& swap) {
  if (d.size() < 2 || (d.front() != '\'' && d.front() != '"'))
    bad(name, "structured or unknown dtype " + d + "; save a plain numeric array");
  d = d.substr(1, d.size() - 2);
  if (d.find('O') != std::string::npos)
    bad(name, "object arrays (dtype 'O') are not supported; save a numeric array");
  if (d.size() < 3) bad(name, "unknown dtype '" + d + "'");
  const char order = d[0], kind = d[1];
  const std::string width = d.substr(2);
  swap = order == '>' && std::endian::native == std::endian::little;
  if (order != '<' && order != '>' && order != '|' && order != '=')
    bad(name, "unknown byte order in dtype '" + d + "'");
  struct entry {
    char kind;
    const char* width;
    dtype t;
  };
  static constexpr entry table[] = {
      {'i', "1", dtype::i8},  {'i', "2", dtype::i16}, {'i', "4", dtype::i32},
      {'i', "8", dtype::i64}, {'u', "1", dtype::u8},  {'u', "2", dtype::u16},
      {'u', "4", dtype::u32}, {'u', "8", dtype::u64}, {'f', "4", dtype::f32},
      {'f', "8", dtype::f64}, {'b', "1", dtype::u8}};
  for (const entry& e : table)
    if (e.kind == kind && width == e.width) return e.t;
  bad(name, "dtype '" + d + "' is not supported; use int8..int64, uint8..uint64, float32, float64");
}

std::vector<std::size_t> parse_shape(const std::string& s, const std::string& name) {
  if (s.size() < 2 || s.front() != '(' || s.back() != ')') bad(name, "malformed shape " + s);
  std::vector<std::size_t> shape;
  std::size_t i = 1;
  while (i < s.size() - 1) {
    while (i < s.size() - 1 && (s[i] == ' ' || s[i] == ',')) ++i;
    if (i >= s.size() - 1) break;
    if (s[i] < '0' || s[i] > '9') bad(name, "malformed shape " + s);
    std::size_t v = 0;
    for (; i < s.size() - 1 && s[i] >= '0' && s[i] <= '9'; ++i) {
      if (v > (std::numeric_limits<std::size_t>::max() - 9) / 10) bad(name, "shape too large");
      v = v * 10 + std::size_t(s[i] - '0');
    }
    if (s[i] == 'L') ++i;  // Python 2 longs
    shape.push_back(v);
  }
  return shape;
}

}  // namespace

namespace {

// Regular files only: a directory, a device, a FIFO or a socket gets a clear error instead of a
// wrong size, a wrong message or a read that never ends. Returns the open file and its size.
std::ifstream open_regular(const std::string& path, std::size_t& size) {
  if (path.empty()) fail(errc::invalid_argument, "the input path is empty; name a file");
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    fail(errc::io, "cannot open '" + path + "': " + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) fail(errc::io, "'" + path + "' is a directory; name a file in it");
  if (!S_ISREG(st.st_mode))
    fail(errc::io, "'" + path + "' is not a regular file (a device, FIFO or socket); pplab reads "
                                "regular files: save the stream to a file first");
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(errc::io, "cannot open '" + path + "': " + std::strerror(errno));
  size = std::size_t(st.st_size);
  return in;
}

void read_exactly(std::ifstream& in, void* dst, std::size_t bytes, const std::string& path) {
  if (bytes && !in.read(static_cast<char*>(dst), std::streamsize(bytes)))
    fail(errc::io, "cannot read '" + path + "': it ended " + std::to_string(bytes - std::size_t(in.gcount())) +
                       " bytes early");
}

}  // namespace

std::vector<std::byte> read_file(const std::string& path) {
  std::size_t size = 0;
  std::ifstream in = open_regular(path, size);
  std::vector<std::byte> bytes(size);
  read_exactly(in, bytes.data(), size, path);
  return bytes;
}

namespace {

// What a .npy header says: the array's dtype and shape (no elements yet), its byte order, where
// the elements start and how many bytes they take. `p` holds at least the whole header (the
// first `size` bytes of a file of `file_size` bytes); a header that promises more elements than
// the file holds is refused here, before anything is allocated.
struct npy_layout {
  array a;
  bool swap = false;
  std::size_t data_offset = 0, data_bytes = 0;
};

constexpr std::size_t npy_prefix = 12;  // magic, version, and the longest header length field

npy_layout parse_header(const std::byte* p, std::size_t size, std::size_t file_size,
                        const std::string& name) {
  static constexpr unsigned char magic[] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
  if (size < 10 || std::memcmp(p, magic, 6) != 0)
    bad(name, "the magic string \\x93NUMPY is missing");
  const unsigned major = unsigned(p[6]);
  std::size_t header_len, offset;
  if (major == 1) {
    header_len = std::size_t(p[8]) | std::size_t(p[9]) << 8;
    offset = 10;
  } else if (major == 2 || major == 3) {
    if (size < 12) bad(name, "truncated header");
    header_len = std::size_t(p[8]) | std::size_t(p[9]) << 8 | std::size_t(p[10]) << 16 |
                 std::size_t(p[11]) << 24;
    offset = 12;
  } else {
    bad(name, "format version " + std::to_string(major) + " (pplab reads versions 1 to 3)");
  }
  if (header_len > size - offset) bad(name, "truncated header");
  const std::string header(reinterpret_cast<const char*>(p + offset), header_len);
  if (header.find('{') == std::string::npos) bad(name, "the header is not a dict");
  npy_layout l;
  l.a.type = parse_descr(field(header, "descr", name), name, l.swap);
  const std::string fortran = field(header, "fortran_order", name);
  l.a.shape = parse_shape(field(header, "shape", name), name);
  std::size_t count = 1;
  for (std::size_t d : l.a.shape) {
    if (d && count > std::numeric_limits<std::size_t>::max() / d) bad(name, "shape too large");
    count *= d;
  }
  if (fortran.find("True") != std::string::npos && l.a.shape.size() > 1)
    bad(name, "Fortran-order arrays are not supported; save numpy.ascontiguousarray(a)");
  const std::size_t elem = size_of(l.a.type);
  if (count > std::numeric_limits<std::size_t>::max() / elem) bad(name, "shape too large");
  l.data_offset = offset + header_len;
  l.data_bytes = count * elem;
  if (file_size - l.data_offset < l.data_bytes)
    bad(name, "truncated: the header promises " + std::to_string(count) + " elements (" +
                  std::to_string(l.data_bytes) + " bytes) but " +
                  std::to_string(file_size - l.data_offset) + " bytes follow");
  return l;
}

void to_native_order(array& a, bool swap) {
  const std::size_t elem = size_of(a.type);
  if (!swap || elem == 1) return;
  for (std::size_t i = 0; i < a.bytes.size(); i += elem)
    std::reverse(a.bytes.begin() + std::ptrdiff_t(i), a.bytes.begin() + std::ptrdiff_t(i + elem));
}

}  // namespace

array parse_npy(const std::byte* p, std::size_t size, const std::string& name) {
  npy_layout l = parse_header(p, size, size, name);
  l.a.bytes.assign(p + l.data_offset, p + l.data_offset + l.data_bytes);
  to_native_order(l.a, l.swap);
  return l.a;
}

// The header first, then the elements straight into the array: the file's bytes are held once.
array read_npy(const std::string& path) {
  std::size_t size = 0;
  std::ifstream in = open_regular(path, size);
  std::vector<std::byte> head(std::min(size, npy_prefix));
  read_exactly(in, head.data(), head.size(), path);
  std::size_t header_end = head.size();
  if (head.size() >= 10 && unsigned(head[6]) == 1)
    header_end = 10 + (std::size_t(head[8]) | std::size_t(head[9]) << 8);
  else if (head.size() >= 12 && (unsigned(head[6]) == 2 || unsigned(head[6]) == 3))
    header_end = 12 + (std::size_t(head[8]) | std::size_t(head[9]) << 8 |
                       std::size_t(head[10]) << 16 | std::size_t(head[11]) << 24);
  header_end = std::min(header_end, size);
  head.resize(std::max(header_end, head.size()));
  read_exactly(in, head.data() + npy_prefix, head.size() > npy_prefix ? head.size() - npy_prefix : 0,
               path);
  npy_layout l = parse_header(head.data(), head.size(), size, path);
  in.seekg(std::streamoff(l.data_offset));
  l.a.bytes.resize(l.data_bytes);
  read_exactly(in, l.a.bytes.data(), l.data_bytes, path);
  to_native_order(l.a, l.swap);
  return l.a;
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
  const unsigned char pre[] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
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
