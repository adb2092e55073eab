// pplab correlate / pplab convolve --input IMAGE --mask MASK: a filter as scipy.ndimage's
// correlate and convolve compute it. The input is a 2-D .npy (f32 or f64, filtered in its type;
// u8 by the u8 rungs, u16 as f32), an image (each channel filtered on its own by the u8 rungs: to
// u8 for an image or --u8, else to f32; as f32 on mpi) or a generated image (--shape RxC). The mask
// is a 2-D .npy or a named one: box:K, gaussian:sigma=S (SciPy's gaussian_filter's taps, truncated
// at 4 sigma), sobel-x, sobel-y. On the mpi backend each rank reads only its rows of a .npy (an
// image file is decoded whole on each rank) and rank 0 gathers the output. A .npy the rungs do not
// take (another rank or dtype, a mask with an even side or one past 31, --origin) runs SciPy's
// own arithmetic on seq, cpu or cuda (correlate_in_scipys_order), its answers SciPy's bit for bit.
#include <fmt/format.h>

#include <array>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <functional>
#include <optional>
#include <string_view>

#include "common.hpp"
#include "pplab/stopwatch.hpp"

namespace pplab::cli {
namespace {

struct mask_values {
  std::vector<double> v;
  std::size_t kh = 0, kw = 0;
};

struct filter_cli {
  backend_options backend;
  std::string input, shape, mask, mode = "reflect", out_path, variant, origin;
  double cval = 0;
  std::uint64_t seed = 1;
  bool json = false, u8 = false;
  // `pplab filter NAME`: the masks made from the named filter's options, one per pass, for
  // the boundary asked (else --mask's, one pass).
  std::function<std::vector<mask_values>(const filter_options&)> named;
};

double number_after(const std::string& spec, const std::string& key, const std::string& s) {
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v) || v <= 0)
    fail(errc::invalid_argument,
         "--mask " + spec + ": " + key + " wants a positive number; got '" + s + "'");
  return v;
}

// SciPy's gaussian_filter taps (pplab::gaussian_kernel, truncate 4), the 2-D mask their outer
// product. The radius is checked as a double first (a huge sigma would overflow it).
mask_values gaussian(const std::string& spec, double sigma) {
  const double radius = std::floor(4.0 * sigma + 0.5);
  const double max_radius = double(max_mask_side / 2);
  if (radius > max_radius)
    fail(errc::invalid_argument,
         fmt::format("--mask {}: a Gaussian of sigma {} has {} taps a side (4 sigma each way); "
                     "masks are at most {}, so sigma must be below {}",
                     spec, sigma, 2 * radius + 1, max_mask_side, (max_radius + 0.5) / 4.0));
  const std::vector<double> one = gaussian_kernel(sigma);
  mask_values m{{}, one.size(), one.size()};
  for (double a : one)
    for (double b : one) m.v.push_back(a * b);
  return m;
}

// A .npy mask's weights as doubles, in C order; float32 or float64 only.
std::vector<double> weights_of(const io::array& a, const std::string& spec) {
  if (!is_float(a.type))
    fail(errc::invalid_argument,
         fmt::format("{}: the mask has dtype {}; give float32 or float64 (a {} "
                     "mask would round its weights)",
                     spec, name_of(a.type), name_of(a.type)));
  std::vector<double> w(a.size());
  for (std::size_t i = 0; i < w.size(); ++i)
    w[i] = a.type == dtype::f32 ? double(static_cast<const float*>(a.data())[i])
                                : static_cast<const double*>(a.data())[i];
  return w;
}

mask_values load_mask(const std::string& spec) {
  if (spec.rfind("box:", 0) == 0) {
    const double k = number_after(spec, "box:K", spec.substr(4));
    const std::size_t side = std::size_t(k);
    if (double(side) != k || side % 2 == 0 || side > max_mask_side)
      fail(errc::invalid_argument,
           fmt::format("--mask {}: the box's side must be odd, 1 to {}", spec, max_mask_side));
    return {std::vector<double>(side * side, 1.0 / double(side * side)), side, side};
  }
  if (spec.rfind("gaussian:sigma=", 0) == 0)
    return gaussian(spec, number_after(spec, "sigma", spec.substr(15)));
  if (spec == "sobel-x") return {{-1, 0, 1, -2, 0, 2, -1, 0, 1}, 3, 3};
  if (spec == "sobel-y") return {{-1, -2, -1, 0, 0, 0, 1, 2, 1}, 3, 3};
  if (spec.find(':') != std::string::npos || spec.rfind("sobel", 0) == 0 ||
      !std::filesystem::exists(spec))
    fail(errc::invalid_argument, "--mask " + spec +
                                     ": unknown mask (no such file, nor a named mask); give a "
                                     ".npy file or one of box:K, "
                                     "gaussian:sigma=S, sobel-x, sobel-y");
  const io::array a = io::read_npy(spec);
  if (a.shape.size() != 2)
    fail(errc::invalid_argument,
         fmt::format("{}: the mask must be 2-D; it has {} dimensions", spec, a.shape.size()));
  return {weights_of(a, spec), a.shape[0], a.shape[1]};
}

// The planes to filter: f32 or f64 arrays of rows x cols (this rank's rows on a job), and
// whether they came from an image (written back as one).
struct planes {
  std::vector<io::array> channels;
  std::vector<std::string> names;
  std::size_t rows = 0, cols = 0;  // the whole image's
  bool image = false;
};

io::array as_f32(const io::array& a) {
  if (a.type == dtype::f32 || a.type == dtype::f64) return a;
  io::array f;
  f.type = dtype::f32;
  f.shape = a.shape;
  f.bytes.resize(a.size() * 4);
  auto* out = static_cast<float*>(f.data());
  for (std::size_t i = 0; i < a.size(); ++i)
    out[i] = a.type == dtype::u8 ? float(static_cast<const std::uint8_t*>(a.data())[i])
             : a.type == dtype::u16
                 ? float(static_cast<const std::uint16_t*>(a.data())[i])
                 : (fail(errc::bad_data, "the image's dtype " + std::string(name_of(a.type)) +
                                             " cannot be filtered; give f32, f64, u8 or u16"),
                    0.0f);
  return f;
}

// This rank's rows [first, first + count) of a whole plane.
io::array rows_of(const io::array& a, part p) {
  io::array out;
  out.type = a.type;
  out.shape = {p.count, a.shape[1]};
  const std::size_t row = a.shape[1] * size_of(a.type);
  out.bytes.assign(a.bytes.begin() + std::ptrdiff_t(p.first * row),
                   a.bytes.begin() + std::ptrdiff_t((p.first + p.count) * row));
  return out;
}

planes load_planes(const filter_cli& o, backend where) {
  if (o.input.empty() == o.shape.empty())
    fail(errc::invalid_argument, "give --input (a 2-D .npy or an image) or --shape RxC");
  planes p;
  io::input in;
  if (!o.shape.empty()) {
    std::size_t r = 0, c = 0;
    const char* s = o.shape.data();
    const char* end = s + o.shape.size();
    const auto [x, e1] = std::from_chars(s, end, r);
    const auto [y, e2] = e1 == std::errc() && x < end && *x == 'x'
                             ? std::from_chars(x + 1, end, c)
                             : std::from_chars_result{x, std::errc::invalid_argument};
    if (e2 != std::errc() || y != end)  // an empty shape (0x5) is an empty image, as from a file
      fail(errc::invalid_argument,
           "--shape wants RxC, two sizes such as 4096x4096; got '" + o.shape + "'");
    io::array a;
    a.type = dtype::f32;
    a.shape = {r, c};
    a.bytes.resize(checked_bytes({r, c, 4}, "a generated image"));
    generate(dtype::f32, a.data(), r * c, distribution::uniform, o.seed);
    in.channels.push_back(std::move(a));
    in.names.push_back("");
  } else if (job_ranks(where) > 1 && lowercase_extension(o.input) == ".npy") {
    // Each rank of a job reads its own rows of the file, not the whole of it.
    io::array a = io::read_npy_block(o.input, [&](std::size_t rows, std::size_t cols) {
      p.rows = rows, p.cols = cols;
      const part mine = part_of(rows, job_rank(where), job_ranks(where));
      return io::block{mine.first, mine.count, 0, cols};
    });
    p.channels.push_back(as_f32(a));
    p.names.push_back("");
    return p;
  } else {
    in = io::read_input(o.input, "", nullptr);
    p.image = in.format == "image";
  }
  for (std::size_t c = 0; c < in.channels.size(); ++c) {
    const io::array& a = in.channels[c];
    if (a.shape.size() != 2)
      fail(errc::bad_data, fmt::format("{}: the image must be 2-D (rows x cols); it has {} "
                                       "dimensions",
                                       o.input, a.shape.size()));
    p.rows = a.shape[0], p.cols = a.shape[1];
    // u8 planes (image channels) go to the u8 rungs as they are, but on mpi, whose rung takes f32.
    const io::array f = a.type == dtype::u8 && where != backend::mpi ? a : as_f32(a);
    p.channels.push_back(
        job_ranks(where) > 1 ? rows_of(f, part_of(p.rows, job_rank(where), job_ranks(where))) : f);
    p.names.push_back(in.names[c]);
  }
  return p;
}

// A filtered f32 or f64 plane as u8: rounded to the nearest, saturated to 0..255 (NaN as 0). A u8
// plane (filtered by the u8 rungs, which round and saturate so) is already one.
io::array to_u8(const io::array& a) {
  if (a.type == dtype::u8) return a;
  if (a.type != dtype::f32 && a.type != dtype::f64)
    fail(errc::unsupported, fmt::format("a {} plane cannot be written as u8", name_of(a.type)));
  io::array b;
  b.type = dtype::u8;
  b.shape = a.shape;
  b.bytes.resize(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double v = a.type == dtype::f64 ? static_cast<const double*>(a.data())[i]
                                          : double(static_cast<const float*>(a.data())[i]);
    const double x = std::isnan(v) ? 0.0 : std::fmin(std::fmax(std::nearbyint(v), 0.0), 255.0);
    b.bytes[i] = std::byte(std::uint8_t(x));
  }
  return b;
}

bool image_path(const std::string& path) {
  const std::string ext = lowercase_extension(path);
  return ext == ".png" || ext == ".ppm" || ext == ".pgm" || ext == ".pnm";
}

// Whether a .npy input takes SciPy's own arithmetic (correlate_in_scipys_order) rather than the
// filter rungs, which take 2-D f32, f64, u8 and u16 arrays and 2-D masks of odd sides to 31 at
// origin 0: an array of another rank or dtype, a .npy mask of another shape, or --origin.
bool in_scipys_order(const filter_cli& o) {
  if (o.named || o.input.empty() || lowercase_extension(o.input) != ".npy") return false;
  if (!o.origin.empty()) return true;
  const auto header = [](const std::string& path) {  // the shape and dtype, no elements read
    return io::read_npy_part(path,
                             [](std::size_t) { return std::pair<std::size_t, std::size_t>{}; });
  };
  const io::array a = header(o.input);
  if (a.shape.size() != 2 || !(is_float(a.type) || a.type == dtype::u8 || a.type == dtype::u16))
    return true;
  if (lowercase_extension(o.mask) != ".npy" || !std::filesystem::exists(o.mask)) return false;
  const io::array m = header(o.mask);
  if (m.shape.size() != 2) return false;  // the rungs' error says the mask must be 2-D
  const auto odd_to_31 = [](std::size_t side) { return side % 2 == 1 && side <= max_mask_side; };
  return !odd_to_31(m.shape[0]) || !odd_to_31(m.shape[1]);
}

// --origin: one whole number for every axis, or one per axis (K1,K2,...), as SciPy's origin=.
std::vector<long> origins_of(const std::string& spec, std::size_t rank) {
  std::vector<long> v;
  for (std::size_t at = 0; at <= spec.size();) {
    const std::size_t comma = std::min(spec.find(',', at), spec.size());
    long k = 0;
    const auto [end, ec] = std::from_chars(spec.data() + at, spec.data() + comma, k);
    if (ec != std::errc() || end != spec.data() + comma)
      fail(errc::invalid_argument,
           "--origin wants a whole number, or one per axis (1,-1); got '" + spec + "'");
    v.push_back(k);
    at = comma + 1;
  }
  if (v.size() == 1) v.assign(rank, v.front());
  if (v.size() != rank)
    fail(errc::invalid_argument,
         fmt::format("--origin {}: {} values for an array of {} axes", spec, v.size(), rank));
  return v;
}

// scipy.ndimage.correlate (convolve) of a .npy array of any rank and dtype with a .npy mask of as
// many axes, each answer SciPy's to the last bit, into an array of the input's dtype (SciPy's
// default output); seq, cpu or cuda.
void run_in_scipys_order(const filter_cli& o, bool flip, const std::string& what, backend where) {
  if (where != backend::seq && where != backend::cpu && where != backend::cuda)
    fail(errc::unsupported,
         fmt::format("{} of this array (its rank, dtype, mask or --origin) runs SciPy's "
                     "arithmetic on seq, cpu and cuda; --backend {} takes 2-D images with odd "
                     "masks",
                     what, name_of(where)));
  if (!o.out_path.empty()) check_output_name(o.out_path, {".npy"});
  if (o.u8) fail(errc::invalid_argument, "--u8 is for images; this array's answers are its dtype");
  const io::array a = io::read_npy(o.input);
  // The weights and their shape: a .npy mask's (any rank), or a named 2-D one's (box:K, ...).
  std::vector<double> w;
  std::vector<std::size_t> mask_shape;
  if (lowercase_extension(o.mask) == ".npy") {
    const io::array m = io::read_npy(o.mask);
    w = weights_of(m, o.mask);
    mask_shape = m.shape;
  } else {
    const mask_values named = load_mask(o.mask);
    w = named.v, mask_shape = {named.kh, named.kw};
  }
  if (mask_shape.size() != a.shape.size())
    fail(errc::invalid_argument,
         fmt::format("{}: the mask has {} axes and the input {} ({}-D); they must match, as "
                     "SciPy's weights",
                     o.mask, mask_shape.size(), a.shape.size(), a.shape.size()));
  std::vector<long> origins = o.origin.empty() ? std::vector<long>(a.shape.size(), 0)
                                               : origins_of(o.origin, a.shape.size());
  if (flip) {  // SciPy's convolve: the weights reversed on every axis, the origins mirrored
    std::reverse(w.begin(), w.end());
    for (std::size_t d = 0; d < origins.size(); ++d)
      origins[d] = -origins[d] - (mask_shape[d] % 2 == 0 ? 1 : 0);
  }
  io::array r;
  r.type = a.type;
  r.shape = a.shape;
  r.bytes.resize(a.bytes.size());
  stopwatch clock;
  correlate_in_scipys_order(where, a.type, a.data(), r.type, r.data(), a.shape, w, mask_shape,
                            origins, parse_boundary(o.mode), o.cval);
  const double seconds = clock.seconds();
  const auto shape_text = [](const std::vector<std::size_t>& v) {
    std::string t;
    for (std::size_t d : v) t += (t.empty() ? "" : "x") + std::to_string(d);
    return t.empty() ? std::string("()") : t;
  };
  if (o.json) {
    nlohmann::json j = {{"op", what},          {"shape", a.shape},     {"dtype", name_of(a.type)},
                        {"mask", mask_shape},  {"mode", o.mode},       {"origin", origins},
                        {"ms", seconds * 1e3}, {"rung", "scipy order"}};
    if (!o.out_path.empty()) j["out"] = o.out_path;
    fmt::print("{}\n", j.dump());
  } else {
    fmt::print("{}: {} {}, mask {} {}, in {:.3f} ms [SciPy's arithmetic]\n", what,
               shape_text(a.shape), name_of(a.type), shape_text(mask_shape), o.mode, seconds * 1e3);
  }
  if (!o.out_path.empty()) {
    io::output_file out(o.out_path);
    io::write_npy(out, r);
    if (!o.json) fmt::print("wrote {}\n", o.out_path);
  } else if (!o.json) {
    fmt::print("(give --out F.npy to save the result)\n");
  }
}

void run(const filter_cli& o, bool flip, const std::string& what) {
  // "split_tf32" names a precision, not a rung: the API picks its rung, on the GPU.
  const backend where = o.variant == "split_tf32" ? (require(backend::cuda), backend::cuda)
                                                  : o.backend.resolve("convolution", o.variant);
  if (in_scipys_order(o)) {
    if (!o.variant.empty())
      fail(errc::invalid_argument, "--rung: this array runs SciPy's arithmetic, not a rung (the "
                                   "rungs take 2-D images with odd masks to 31 and no --origin)");
    return run_in_scipys_order(o, flip, what, where);
  }
  std::optional<io::output_file> out;
  planes p;
  std::vector<mask_values> passes;
  mask_values m;
  filter_options opts;
  std::exception_ptr failed;
  std::string shapes;
  try {
    opts.mode = parse_boundary(o.mode);
    opts.cval = o.cval;
    if (!o.out_path.empty())
      check_output_name(o.out_path, {".npy", ".png", ".ppm", ".pgm", ".pnm"});
    if (!o.out_path.empty() && prints(where)) out.emplace(o.out_path);
    passes = o.named ? o.named(opts) : std::vector<mask_values>{load_mask(o.mask)};
    m = passes.front();
    for (std::size_t i = 1; i < passes.size(); ++i)  // the passes' reach together
      m.kh += passes[i].kh - 1, m.kw += passes[i].kw - 1;
    p = load_planes(o, where);
    shapes = fmt::format("{}x{} x{} mask {}x{}", p.rows, p.cols, p.channels.size(), m.kh, m.kw);
  } catch (...) {
    failed = std::current_exception();
  }
  agree(where, shapes, 0, failed);
  together([&] {
    if (!o.out_path.empty() && image_path(o.out_path) && p.channels.front().type == dtype::f64)
      fail(errc::invalid_argument, o.out_path + ": an f64 image is written as .npy, not as a "
                                                "picture");
    std::vector<io::array> results;
    std::string used;
    stopwatch clock;
    // A u8 plane's output: u8 (rounded, saturated) where the result is written as u8 anyway (an
    // image, or --u8), else f32.
    const bool u8_out = o.u8 || (!o.out_path.empty() && image_path(o.out_path));
    for (const io::array& a : p.channels) {
      io::array cur = a;  // each pass filters the one before (a u8 plane's first gives f32)
      for (std::size_t i = 0; i < passes.size(); ++i) {
        const mask_values& pass = passes[i];
        io::array r;
        r.type = cur.type == dtype::u8 ? (u8_out && i + 1 == passes.size() ? dtype::u8 : dtype::f32)
                                       : cur.type;
        r.shape = cur.shape;
        r.bytes.resize(cur.size() * size_of(r.type));
        filter_options each = opts;
        each.u8_output = r.type == dtype::u8;
        (flip ? convolve : correlate)(where, cur.type, cur.data(), p.rows, p.cols, 0, pass.v.data(),
                                      pass.kh, pass.kw, r.data(), 0, each, {o.variant, &used});
        cur = std::move(r);
      }
      results.push_back(std::move(cur));
    }
    const double s = clock.seconds();
    if (job_ranks(where) > 1)  // the whole of each plane on rank 0
      for (io::array& r : results) {
        r.bytes = gather_to_root(where, r.data(), r.bytes.size());
        r.shape = {p.rows, p.cols};
      }
    if (!prints(where)) return;
    const double px = double(p.rows) * double(p.cols) * double(p.channels.size());
    if (o.json) {
      nlohmann::json j = {{"op", what},
                          {"rows", p.rows},
                          {"cols", p.cols},
                          {"channels", p.channels.size()},
                          {"dtype", name_of(p.channels.front().type)},
                          {"mask", {m.kh, m.kw}},
                          {"mode", name_of(opts.mode)},
                          {"ms", s * 1e3},
                          {"rung", used}};
      if (out) j["out"] = o.out_path;
      fmt::print("{}\n", j.dump());
    } else {
      fmt::print("{}: {}x{}{} {}, mask {}x{} {}, in {:.3f} ms ({:.3f} Gpx/s) [{}]\n", what, p.rows,
                 p.cols,
                 p.channels.size() > 1 ? fmt::format(" x {} channels", p.channels.size()) : "",
                 name_of(p.channels.front().type), m.kh, m.kw, name_of(opts.mode), s * 1e3,
                 px / s * 1e-9, used.empty() ? "an empty image: no rung ran" : used);
    }
    if (out) {
      if (image_path(o.out_path)) {
        std::vector<io::array> u8;
        for (const io::array& r : results) u8.push_back(to_u8(r));
        io::write_image(*out, u8);
      } else {
        io::array all = results.size() == 1 ? results[0] : io::array{};
        if (results.size() > 1) {  // channels first: (channels, rows, cols)
          all.type = results[0].type;
          all.shape = {results.size(), p.rows, p.cols};
          for (const io::array& r : results)
            all.bytes.insert(all.bytes.end(), r.bytes.begin(), r.bytes.end());
        }
        if (o.u8) {
          io::array b = to_u8(all);
          b.shape = all.shape;
          all = std::move(b);
        }
        io::write_npy(*out, all);
      }
      if (!o.json) fmt::print("wrote {}\n", o.out_path);
    } else if (!o.json) {
      fmt::print("(give --out F.npy or F.png to save the result)\n");
    }
  });
}

// The options every filter command takes: the image, the boundary, the output, the backend.
void add_image_options(CLI::App* cmd, const std::shared_ptr<filter_cli>& o) {
  cmd->add_option(
      "--input", o->input,
      "a 2-D .npy (f32, f64, u8; u16 filtered as f32) or an image (PNG, JPEG, "
      "PNM, ...: each channel on its own); a .npy of another rank or dtype, an even "
      "or long mask, or --origin: SciPy's arithmetic into the input's dtype (seq, cpu)");
  cmd->add_option("--shape", o->shape, "RxC: a generated f32 image instead (uniform in [0, 1))");
  cmd->add_option("--seed", o->seed, "seed of a generated image (default 1)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--mode", o->mode,
                  "outside the image: reflect (default), constant, nearest, mirror, wrap");
  cmd->add_option("--cval", o->cval, "the value outside the image in constant mode (default 0)");
  cmd->add_option(
      "--out", o->out_path,
      "write the result: .npy (the input's dtype; f32 for images), or .png/.ppm/.pgm/.pnm "
      "(rounded and saturated to 0-255)");
  cmd->add_flag("--u8", o->u8, "with --out F.npy: u8, rounded and saturated, instead of float");
  cmd->add_flag("--json", o->json,
                "print one JSON object {op, rows, cols, channels, dtype, mask, mode, ms, rung}");
  o->backend.add_to(*cmd);
  cmd->add_option("--rung,--variant", o->variant,
                  "run one rung by id, or by its last part (c06_register_strip); see `pplab list "
                  "convolution`; split_tf32: f32 on the TF32 tensor cores, image and mask split "
                  "in two (the GPU's best such rung for the mask)");
}

void add_filter(CLI::App& app, bool flip) {
  auto o = std::make_shared<filter_cli>();
  auto* cmd = app.add_subcommand(
      flip ? "convolve" : "correlate",
      flip ? "convolve an image with a mask, as scipy.ndimage.convolve (the mask flipped)"
           : "correlate an image with a mask, as scipy.ndimage.correlate");
  cmd->add_option("--mask", o->mask,
                  "a float .npy of the input's rank (any sides), or box:K, gaussian:sigma=S, "
                  "sobel-x, sobel-y")
      ->required();
  cmd->add_option("--origin", o->origin,
                  "K or K1,K2,...: the mask's centre moved K along every axis (or each its own), "
                  "as SciPy's origin=");
  add_image_options(cmd, o);
  cmd->callback([o, flip] { run(*o, flip, flip ? "convolve" : "correlate"); });
}

// ---- pplab filter NAME: scipy.ndimage's named filters, each the outer product of one 1-D
// kernel per axis (rows, then columns), made as SciPy makes them.

// "A" or "A,B": one value for both axes, or the rows' and the columns'.
std::array<std::string, 2> per_axis(const std::string& spec, const std::string& option) {
  const std::size_t comma = spec.find(',');
  if (comma == std::string::npos) return {spec, spec};
  if (spec.find(',', comma + 1) != std::string::npos)
    fail(errc::invalid_argument,
         option + " " + spec +
             ": one value, or two (the rows', then the columns') apart by a comma");
  return {spec.substr(0, comma), spec.substr(comma + 1)};
}

double number_of(const std::string& s, const std::string& option) {
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v))
    fail(errc::invalid_argument, option + ": '" + s + "' is not a number");
  return v;
}

// A kernel with its sides' check: at most max_mask_side taps.
std::vector<double> within_side(std::vector<double> k, const std::string& what) {
  if (k.size() > max_mask_side)
    fail(errc::invalid_argument,
         fmt::format("{}: {} taps along an axis; pplab's masks have at most "
                     "{} a side",
                     what, k.size(), max_mask_side));
  return k;
}

struct named_filter_cli {
  std::string name, sigma = "", size = "3", truncate = "4";
  int axis = -1;
};

// The filter's passes: one mask, the outer product of the axes' kernels; or, for a derivative
// filter in constant mode with a cval other than 0, SciPy's two passes (the derivative, then the
// smoothing of its result, whose outside is cval again: one mask would smooth a derivative of
// cval there, 0).
std::vector<mask_values> named_masks(const named_filter_cli& f, const filter_options& boundary) {
  // laplace: SciPy's second differences [1, -2, 1] down and across, added: one mask, since each
  // of SciPy's passes reads the image itself (cval outside it in constant mode too)
  if (f.name == "laplace") return {mask_values{{0, 1, 0, 1, -4, 1, 0, 1, 0}, 3, 3}};
  std::array<std::vector<double>, 2> k;
  if (f.name == "gaussian") {
    if (f.sigma.empty())
      fail(errc::invalid_argument, "pplab filter gaussian: give --sigma S (or S_ROWS,S_COLS)");
    const double truncate = number_of(f.truncate, "--truncate");
    if (!(truncate > 0)) fail(errc::invalid_argument, "--truncate must be above 0");
    const auto sigmas = per_axis(f.sigma, "--sigma");
    for (int d = 0; d < 2; ++d) {
      const double sigma = number_of(sigmas[d], "--sigma");
      if (sigma < 0) fail(errc::invalid_argument, "--sigma must be 0 or more");
      // The radius checked as a double first: a huge sigma would overflow it.
      if (std::floor(truncate * sigma + 0.5) > double(max_mask_side / 2))
        fail(errc::invalid_argument,
             fmt::format("--sigma {}: {} taps a side ({} sigma each way); pplab's masks have at "
                         "most {}",
                         sigmas[d], 2 * std::floor(truncate * sigma + 0.5) + 1, truncate,
                         max_mask_side));
      k[d] = gaussian_kernel(sigma, truncate);
    }
  } else if (f.name == "uniform") {
    const auto sizes = per_axis(f.size, "--size");
    for (int d = 0; d < 2; ++d) {
      const double n = number_of(sizes[d], "--size");
      if (n < 1 || n != std::floor(n) || n > double(max_mask_side))
        fail(errc::invalid_argument,
             fmt::format("--size {}: a whole number, 1 to {}", sizes[d], max_mask_side));
      const std::vector<double> box(std::size_t(n), 1.0 / n);
      k[d] = within_side(placed_kernel(box), "--size " + sizes[d]);  // even sizes as SciPy's
    }
  } else if (f.name == "sobel" || f.name == "prewitt") {
    if (f.axis < -2 || f.axis > 1)
      fail(errc::invalid_argument,
           fmt::format("--axis {}: 0 (rows), 1 (columns), -1 or -2", f.axis));
    const int along = (f.axis + 2) % 2;
    k[along] = {-1.0, 0.0, 1.0};
    k[1 - along] =
        f.name == "sobel" ? std::vector<double>{1.0, 2.0, 1.0} : std::vector<double>{1.0, 1.0, 1.0};
  } else {
    fail(errc::invalid_argument,
         "pplab filter " + f.name +
             ": no such filter; give gaussian, uniform, sobel, prewitt or laplace");
  }
  const bool derivative = f.name == "sobel" || f.name == "prewitt";
  if (derivative && boundary.mode == boundary::constant && boundary.cval != 0) {
    const int along = (f.axis + 2) % 2;
    const auto along_axis = [](const std::vector<double>& v, int axis) {
      return axis == 0 ? mask_values{v, v.size(), 1} : mask_values{v, 1, v.size()};
    };
    return {along_axis(k[along], along), along_axis(k[1 - along], 1 - along)};
  }
  mask_values m{{}, k[0].size(), k[1].size()};
  for (double a : k[0])
    for (double b : k[1]) m.v.push_back(a * b);
  return {m};
}

void add_named_filter(CLI::App& app) {
  auto o = std::make_shared<filter_cli>();
  auto f = std::make_shared<named_filter_cli>();
  auto* cmd = app.add_subcommand(
      "filter", "scipy.ndimage's named filters on an image: gaussian (gaussian_filter), uniform "
                "(uniform_filter), sobel, prewitt, laplace");
  cmd->add_option("name", f->name, "gaussian, uniform, sobel, prewitt or laplace")->required();
  cmd->add_option("--sigma", f->sigma,
                  "gaussian: the standard deviation in pixels, S or S_ROWS,S_COLS (0: that axis "
                  "left alone)");
  cmd->add_option("--truncate", f->truncate,
                  "gaussian: the kernel's reach in sigmas each way (default 4, SciPy's)");
  cmd->add_option("--size", f->size,
                  "uniform: the box's side, K or K_ROWS,K_COLS (default 3; even sides placed as "
                  "SciPy places them)");
  cmd->add_option("--axis", f->axis,
                  "sobel, prewitt: the axis of the derivative, 0 (down the rows) or 1 / -1 "
                  "(along each row; the default, as SciPy's axis=-1)");
  add_image_options(cmd, o);
  o->named = [f](const filter_options& boundary) { return named_masks(*f, boundary); };
  cmd->callback([o, f] { run(*o, false, "filter " + f->name); });
}

}  // namespace

void add_convolve(CLI::App& app) {
  add_filter(app, false);
  add_filter(app, true);
  add_named_filter(app);
}

}  // namespace pplab::cli
