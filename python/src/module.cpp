// pplab._pplab: the compiled half of the Python package. It takes arrays where they lie
// (arrays.hpp), checks what pplab's API does not (where the data is, its layout), runs the call
// with the GIL released and answers in Python's types; python/pplab/__init__.py gives the calls
// NumPy's and SciPy's names and turns the answers into the caller's array types.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>

#include "arrays.hpp"
#include "pplab/lab.hpp"
#include "pplab/pplab.hpp"

namespace pplab::python {
namespace {

// A Ctrl-C while pplab works: Python's own handler only sets a flag, which it runs once the
// interpreter runs again. pplab's long host work asks this check between its pieces
// (pplab/interrupt.hpp), on the calling thread: it takes the GIL, runs Python's pending signal
// handlers, and keeps the exception one raised (KeyboardInterrupt) for the call to end with.
thread_local PyObject* pending[3] = {nullptr, nullptr, nullptr};  // type, value, traceback

bool python_interrupted() {
  py::gil_scoped_acquire gil;
  if (PyErr_CheckSignals() == 0) return false;
  PyErr_Fetch(&pending[0], &pending[1], &pending[2]);
  return true;
}

// Releases the GIL for pplab's work, with the interrupt check in place for its duration.
struct released {
  py::gil_scoped_release gil;
  interrupt_scope checks{&python_interrupted};
};

// pplab's stream on the GPU, which a GPU array's producer is asked to make its data ready on
// (0 where there is no usable GPU).
std::uintptr_t stream_for_producers() { return reinterpret_cast<std::uintptr_t>(pplab_stream()); }

// DLPack's device first: PyTorch builds __cuda_array_interface__ in Python at every access.
bool lives_on_gpu(py::handle obj) {
  if (is_numpy_array(obj)) return false;
  if (is_torch_tensor(obj)) return obj.attr("is_cuda").cast<bool>();
  if (py::hasattr(obj, "__dlpack_device__")) {
    const int type = py::tuple(obj.attr("__dlpack_device__")())[0].cast<int>();
    return type == 2 || type == 13;  // kDLCUDA, kDLCUDAManaged
  }
  return py::hasattr(obj, "__cuda_array_interface__");
}

// The view of obj, and the backend that runs on it: `name` if given, else cpu for host arrays
// and cuda for GPU arrays.
struct placed {
  array_view a;
  backend where;
};

backend backend_for(const array_view& a, const std::optional<std::string>& name,
                    const std::string& what) {
  const backend b = name ? parse_backend(*name) : (a.on_gpu ? backend::cuda : backend::cpu);
  if (b == backend::nccl)
    throw py::value_error("backend 'nccl': the Python package runs on one GPU per process (seq, "
                          "cpu, cuda; mpi under mpirun); run nccl jobs through the pplab command");
  if (a.on_gpu && b != backend::cuda)
    throw py::value_error(what +
                          " is in GPU memory; only backend 'cuda' reads it there (copy "
                          "it to the host first for '" +
                          std::string(name_of(b)) + "')");
  if (a.on_gpu) {
    require(backend::cuda);
    const int device = current_device();
    if (a.device != device)
      throw py::value_error(what + " is on GPU " + std::to_string(a.device) +
                            "; pplab's cuda backend runs on the current GPU, " +
                            std::to_string(device) + " (select it first)");
    if (a.producer_stream > 2) {  // __cuda_array_interface__'s pending work, on its stream
      released unlocked;
      if (!wait_for_stream(reinterpret_cast<void*>(a.producer_stream)))
        fail(errc::device, what + ": waiting for the array's stream failed");
    }
  }
  return b;
}

placed take(py::handle obj, const std::optional<std::string>& backend_name, const std::string& what,
            bool writable = false) {
  const std::uintptr_t stream = lives_on_gpu(obj) ? stream_for_producers() : 0;
  array_view a = writable ? writable_view_of(obj, stream, what) : view_of(obj, stream, what);
  const backend b = backend_for(a, backend_name, what);
  return {std::move(a), b};
}

py::object scalar_to_python(const scalar& s) {
  switch (s.k) {
  case scalar::kind::i64:
    return py::int_(s.i);
  case scalar::kind::u64:
    return py::int_(s.u);
  default:
    return py::float_(s.f);
  }
}

// A host array that is not C-contiguous (a transposed, reversed or sliced view) reduced where it
// lies (reduce_view), whole (axis < 0) or along an axis: `answers` of them. The host backends;
// elsewhere the error says how to make it contiguous.
std::vector<scalar> reduce_view_of(const placed& p, op o, int axis, std::size_t answers) {
  if (p.where != backend::seq && p.where != backend::cpu)
    throw py::value_error("the array is a strided view, which pplab reduces where it lies on the "
                          "host backends (seq, cpu); for '" +
                          std::string(name_of(p.where)) + "' pass numpy.ascontiguousarray(x)");
  std::vector<std::size_t> shape(p.a.shape.begin(), p.a.shape.end());
  std::vector<std::ptrdiff_t> strides(p.a.strides.begin(), p.a.strides.end());
  std::vector<scalar> out(std::max<std::size_t>(answers, 1));
  released unlocked;
  reduce_view(p.where, p.a.type, p.a.data, shape, strides, axis, o, out.data());
  out.resize(answers);
  return out;
}

py::tuple reduce_call(py::handle x, const std::string& op_name,
                      const std::optional<std::string>& backend_name,
                      const std::optional<std::string>& variant) {
  const op o = parse_op(op_name);
  placed p = take(x, backend_name, "the array");
  const std::string rung = variant.value_or("");
  if (!p.a.on_gpu && !p.a.c_contiguous()) {
    if (!rung.empty())
      throw py::value_error("variant: a strided view is reduced by reduce_view, not by a rung; "
                            "pass numpy.ascontiguousarray(x) to run one");
    return py::make_tuple(scalar_to_python(reduce_view_of(p, o, -1, 1)[0]), "reduce_view");
  }
  require_contiguous(p.a, "the array");
  std::string ran;
  scalar s;
  {
    released unlocked;
    if (p.a.on_gpu) {
      if (!rung.empty())
        fail(errc::invalid_argument, "variant: a GPU array runs the cuda backend's default rung");
      s = reduce_device(p.a.type, p.a.data, p.a.size(), o);
      ran = "(the cuda backend's default rung)";
    } else {
      s = reduce(p.where, p.a.type, p.a.data, p.a.size(), o, {rung, &ran});
    }
  }
  return py::make_tuple(scalar_to_python(s), ran);
}

// numpy.bincount's two checks in one pass: the largest of a contiguous array of integers read as
// their unsigned type (the same bits: a negative value reads as 2^(bits - 1) or more), so one
// maximum gives both the length and whether any value is negative. A strided view is refused
// as the histogram that follows would refuse it.
py::object largest_as_unsigned_call(py::handle x, const std::optional<std::string>& backend_name) {
  placed p = take(x, backend_name, "the array");
  require_contiguous(p.a, "the array");
  dtype t = p.a.type;
  switch (t) {
  case dtype::i8:
    t = dtype::u8;
    break;
  case dtype::i16:
    t = dtype::u16;
    break;
  case dtype::i32:
    t = dtype::u32;
    break;
  case dtype::i64:
    t = dtype::u64;
    break;
  case dtype::f32:
  case dtype::f64:
    throw py::type_error("largest_as_unsigned takes integers");
  default:
    break;
  }
  scalar s;
  {
    released unlocked;
    s = p.a.on_gpu ? reduce_device(t, p.a.data, p.a.size(), op::max)
                   : reduce(p.where, t, p.a.data, p.a.size(), op::max);
  }
  return scalar_to_python(s);
}

// The exact sum or mean of a C-contiguous array of float32 or float64 (pplab::sum_exact; of a
// GPU array, sum_exact_device).
double exact_call(py::handle x, const std::string& op_name,
                  const std::optional<std::string>& backend_name) {
  placed p = take(x, backend_name, "the array");
  require_contiguous(p.a, "the array");
  if (op_name != "sum" && op_name != "mean")
    throw py::value_error("exact=True is for sum and mean, not " + op_name);
  const bool sum = op_name == "sum";
  released unlocked;
  if (p.a.on_gpu)
    return sum ? sum_exact_device(p.a.type, p.a.data, p.a.size())
               : mean_exact_device(p.a.type, p.a.data, p.a.size());
  return sum ? sum_exact(p.where, p.a.type, p.a.data, p.a.size())
             : mean_exact(p.where, p.a.type, p.a.data, p.a.size());
}

// The reduction of each row of x's last axis (numpy.sum(x, axis=-1)), the rows' answers int64,
// uint64 or float64 as the scalars' kind; the caller gives them x's shape less its last axis. A
// host array: a 1-D NumPy array of them (reduce_rows). A GPU array: written into `out`, a GPU
// array of that type and one answer per row, on x's stream (reduce_rows_device); None returned.
// The type of reduce_rows' answers for an array of type t: float64 for every mean, int64 for an
// argmin's or argmax's index, else the kind of the reduction's scalar (int64, uint64 or float64),
// which the reduction of nothing has too.
dtype row_answer_type(dtype t, op o) {
  if (o == op::mean || is_moments(o)) return dtype::f64;
  if (is_arg(o)) return dtype::i64;  // an index
  // The kind of the reduction of nothing, asked of the API once per type and op (every call
  // along an axis asks).
  static std::map<std::pair<dtype, op>, dtype> known;
  static std::mutex guard;
  const std::lock_guard<std::mutex> lock(guard);
  const auto [at, fresh] = known.try_emplace({t, o}, dtype::f64);
  if (fresh) {
    switch (reduce(backend::seq, t, nullptr, 0, o).k) {
    case scalar::kind::i64:
      at->second = dtype::i64;
      break;
    case scalar::kind::u64:
      at->second = dtype::u64;
      break;
    default:
      at->second = dtype::f64;
    }
  }
  return at->second;
}

// NumPy's name of a type ("int8" ... "float64").
std::string numpy_name(dtype t) {
  const std::string_view n = name_of(t);  // "i8" ... "f64"
  return (n[0] == 'i' ? "int" : n[0] == 'u' ? "uint" : "float") + std::string(n.substr(1));
}

// The type NumPy answers op along an axis of data of type t in (answer_types::numpy,
// pplab/device.hpp): t where numpy_keeps_type (pplab/ops.hpp) says so, else row_answer_type's.
dtype numpy_row_type(dtype t, op o) {
  return numpy_keeps_type(is_float(t), o) ? t : row_answer_type(t, o);
}

// The answer types a GPU array's answers `out` of type `given` asks for: wide where they are of
// row_answer_type, numpy where of NumPy's (an error naming both otherwise).
answer_types answers_asked(const char* call, dtype t, op o, dtype given, std::size_t count) {
  const dtype wide = row_answer_type(t, o), numpy = numpy_row_type(t, o);
  if (given == wide) return answer_types::wide;
  if (given == numpy) return answer_types::numpy;
  throw py::type_error(std::string(call) + ": the answers are a GPU array of " +
                       std::to_string(count) + " " + numpy_name(wide) + " or " + numpy_name(numpy));
}

// The dtype NumPy names dtype_name (a TypeError for one pplab does not take).
dtype numpy_named(const std::string& dtype_name) {
  for (dtype t : all_dtypes)
    if (numpy_name(t) == dtype_name) return t;
  throw py::type_error("the array has elements of type " + dtype_name +
                       "; pplab takes int8 to int64, uint8 to uint64, float32 and float64");
}

// row_answer_type by NumPy's names: the Python layer makes a GPU array's answers of it.
std::string row_answer_type_call(const std::string& dtype_name, const std::string& op_name) {
  return numpy_name(row_answer_type(numpy_named(dtype_name), parse_op(op_name)));
}

// numpy_keeps_type by NumPy's names: whether the Python layer keeps the data's type.
bool numpy_keeps_type_call(const std::string& dtype_name, const std::string& op_name) {
  return numpy_keeps_type(is_float(numpy_named(dtype_name)), parse_op(op_name));
}

// The exact sum or mean of each row of a C-contiguous host array's last axis
// (pplab::reduce_rows_exact): a 1-D float64 NumPy array of the rows' answers.
py::object exact_rows_call(py::handle x, const std::string& op_name,
                           const std::optional<std::string>& backend_name) {
  const op o = parse_op(op_name);
  placed p = take(x, backend_name, "the array");
  if (p.a.on_gpu)
    throw py::value_error("exact=True with axis= sums host arrays so far; on a GPU array, "
                          "exact=True takes the whole array");
  require_contiguous(p.a, "the array");
  if (p.a.ndim() == 0) throw py::value_error("axis -1 is out of bounds for a 0-d array");
  const auto cols = std::size_t(p.a.shape.back());
  std::size_t rows = 1;
  for (std::size_t d = 0; d + 1 < p.a.ndim(); ++d) rows *= std::size_t(p.a.shape[d]);
  py::array_t<double> answers(static_cast<py::ssize_t>(rows));
  double* out = answers.mutable_data();
  {
    released unlocked;
    reduce_rows_exact(p.where, p.a.type, p.a.data, rows, cols, cols, o, out);
  }
  return answers;
}

py::object reduce_rows_call(py::handle x, const std::string& op_name,
                            const std::optional<std::string>& backend_name, py::handle out) {
  const op o = parse_op(op_name);
  placed p = take(x, backend_name, "the array");
  const bool view = !p.a.on_gpu && !p.a.c_contiguous();
  if (!view) require_contiguous(p.a, "the array");
  if (p.a.ndim() == 0) throw py::value_error("axis -1 is out of bounds for a 0-d array");
  const auto cols = std::size_t(p.a.shape.back());
  std::size_t rows = 1;
  for (std::size_t d = 0; d + 1 < p.a.ndim(); ++d) rows *= std::size_t(p.a.shape[d]);
  // The answers' type, also where there are none.
  const dtype want = row_answer_type(p.a.type, o);
  if (p.a.on_gpu) {
    if (out.is_none()) throw py::type_error("reduce_rows: a GPU array's answers need `out`");
    placed c = take(out, backend_name, "the answers", true);
    require_contiguous(c.a, "the answers");
    if (!c.a.on_gpu || c.a.size() != rows)
      throw py::type_error("reduce_rows: the answers are a GPU array of " + std::to_string(rows) +
                           " " + numpy_name(want));
    const answer_types answers = answers_asked("reduce_rows", p.a.type, o, c.a.type, rows);
    released unlocked;
    reduce_rows_device(p.a.type, p.a.data, rows, cols, cols, o, c.a.data, answers);
    return py::none();
  }
  std::vector<scalar> answers(rows);
  if (view) {
    answers = reduce_view_of(p, o, int(p.a.ndim()) - 1, rows);
  } else {
    released unlocked;
    reduce_rows(p.where, p.a.type, p.a.data, rows, cols, cols, o, answers.data());
  }
  const auto fill = [&](auto tag) {
    using A = decltype(tag);
    py::array_t<A> host(static_cast<py::ssize_t>(rows));
    for (std::size_t y = 0; y < rows; ++y) host.mutable_data()[y] = answers[y].as<A>();
    return py::object(py::array(host));
  };
  if (want == dtype::i64) return fill(std::int64_t{});
  if (want == dtype::u64) return fill(std::uint64_t{});
  return fill(double{});
}

// An array's axis `axis` (0 .. ndim - 1) reduced. A host array (reduce_axis): a NumPy array of
// the answers, of x's shape less that axis, of row_answer_type. A GPU array
// (reduce_axis_device): written into `out`, a GPU array of that type and one answer per element
// of x's shape less that axis, on x's stream; None returned.
py::object reduce_axis_call(py::handle x, const std::string& op_name, std::size_t axis,
                            const std::optional<std::string>& backend_name, py::handle out) {
  const op o = parse_op(op_name);
  placed p = take(x, backend_name, "the array");
  const bool view = !p.a.on_gpu && !p.a.c_contiguous();
  if (!view) require_contiguous(p.a, "the array");
  if (axis >= p.a.ndim()) throw py::value_error("reduce_axis: axis out of bounds");
  std::size_t outer = 1, cols = 1;
  std::vector<py::ssize_t> shape;
  for (std::size_t d = 0; d < p.a.ndim(); ++d) {
    if (d < axis) outer *= std::size_t(p.a.shape[d]);
    if (d > axis) cols *= std::size_t(p.a.shape[d]);
    if (d != axis) shape.push_back(static_cast<py::ssize_t>(p.a.shape[d]));
  }
  const auto rows = std::size_t(p.a.shape[axis]);
  if (p.a.on_gpu) {
    if (out.is_none()) throw py::type_error("reduce_axis: a GPU array's answers need `out`");
    placed c = take(out, backend_name, "the answers", true);
    require_contiguous(c.a, "the answers");
    const dtype want = row_answer_type(p.a.type, o);
    if (!c.a.on_gpu || c.a.size() != outer * cols)
      throw py::type_error("reduce_axis: the answers are a GPU array of " +
                           std::to_string(outer * cols) + " " + numpy_name(want));
    const answer_types answers = answers_asked("reduce_axis", p.a.type, o, c.a.type, outer * cols);
    released unlocked;
    reduce_axis_device(p.a.type, p.a.data, outer, rows, cols, o, c.a.data, answers);
    return py::none();
  }
  std::vector<scalar> answers(outer * cols);
  if (view) {
    answers = reduce_view_of(p, o, int(axis), outer * cols);
  } else {
    released unlocked;
    reduce_axis(p.where, p.a.type, p.a.data, outer, rows, cols, o, answers.data());
  }
  const dtype want = row_answer_type(p.a.type, o);
  const auto fill = [&](auto tag) {
    using A = decltype(tag);
    py::array_t<A> host(shape);
    for (std::size_t i = 0; i < answers.size(); ++i) host.mutable_data()[i] = answers[i].as<A>();
    return py::object(py::array(host));
  };
  if (want == dtype::i64) return fill(std::int64_t{});
  if (want == dtype::u64) return fill(std::uint64_t{});
  return fill(double{});
}

edge_rule edge_rule_named(const std::string& name) {
  for (auto [n, rule] : {std::pair{"f64", edge_rule::f64},
                         {"numpy", edge_rule::numpy},
                         {"numpy1", edge_rule::numpy1},
                         {"f32_rounded", edge_rule::f32_rounded},
                         {"f32_arithmetic", edge_rule::f32_arithmetic}})
    if (name == n) return rule;
  throw py::value_error("histogram: unknown edge rule '" + name +
                        "' (f64, numpy, numpy1, f32_rounded or f32_arithmetic)");
}

// The edges as NumPy gives them: float32 numbers for float32 edges, else float64.
template <class F> py::array edges_in(const histogram_result& r) {
  py::array_t<F> edges(py::ssize_t(r.bins() + 1));
  r.edges_into(edges.mutable_data());
  return edges;
}
py::array edges_of(const histogram_result& r) {
  return r.edges == edge_rule::f64 || !r.bin_edges.empty() ? edges_in<double>(r)
                                                           : edges_in<float>(r);
}

// `out`: for a GPU array, an int64 GPU array of bins + 3 (the bins, then underflow, overflow and
// NaN) that the counts are written into, where they stay (with weights a float64 one, the sums);
// the tuple's counts are then None.
// `bin_edges`: the bins as an array of edges (float64, on the host). `weights`: an array of x's
// shape, in x's memory, float32 or float64: the tuple's counts are then the float64 sums, and
// its outliers the sums of theirs.
using edge_array = py::array_t<double, py::array::c_style | py::array::forcecast>;
py::tuple histogram_call(py::handle x, std::size_t bins, std::optional<double> lo,
                         std::optional<double> hi, bool closed_last, const std::string& edges,
                         const std::optional<std::string>& backend_name,
                         const std::optional<std::string>& variant, py::handle out,
                         const std::optional<edge_array>& bin_edges, py::handle weights) {
  placed p = take(x, backend_name, "the array");
  require_contiguous(p.a, "the array");
  histogram_options o;
  o.bins = bins, o.lo = lo, o.hi = hi, o.closed_last = closed_last;
  o.edges = edge_rule_named(edges);
  if (bin_edges) o.bin_edges = std::span<const double>(bin_edges->data(), bin_edges->size());
  std::optional<placed> w;
  if (!weights.is_none()) {
    w = take(weights, backend_name, "the weights");
    require_contiguous(w->a, "the weights");
    if (w->a.on_gpu != p.a.on_gpu)
      throw py::value_error("histogram: the weights and the data must both be host arrays or "
                            "both GPU arrays");
    if (w->a.size() != p.a.size())
      throw py::value_error("histogram: weights should have the same shape as a (" +
                            std::to_string(w->a.size()) + " weights for " +
                            std::to_string(p.a.size()) + " values)");
    o.weights = w->a.data, o.weight_type = w->a.type;
  }
  const std::string rung = variant.value_or("");
  histogram_result r;
  if (p.a.on_gpu && !out.is_none()) {
    placed c = take(out, backend_name, "the counts", true);
    require_contiguous(c.a, "the counts");
    const dtype want = o.weights ? dtype::f64 : dtype::i64;
    if (!c.a.on_gpu || (c.a.type != want && (o.weights || c.a.type != dtype::u64)))
      throw py::type_error(o.weights ? "histogram: the sums are a float64 GPU array"
                                     : "histogram: the counts are an int64 GPU array");
    {
      released unlocked;
      r = histogram_device_into(p.a.type, p.a.data, p.a.size(),
                                static_cast<std::uint64_t*>(c.a.data), c.a.size(), o, {rung});
    }
    return py::make_tuple(py::none(), edges_of(r), py::none(), py::none(), py::none(), r.rung);
  }
  if (o.weights || bin_edges) {
    {
      released unlocked;
      r = p.a.on_gpu ? histogram_device(p.a.type, p.a.data, p.a.size(), o, {rung})
                     : histogram(p.where, p.a.type, p.a.data, p.a.size(), o, {rung});
    }
    py::array bins_out;
    if (r.weighted) {
      py::array_t<double> sums(py::ssize_t(r.sums.size()));
      std::copy(r.sums.begin(), r.sums.end(), sums.mutable_data());
      bins_out = sums;
      return py::make_tuple(bins_out, edges_of(r), r.underflow_sum, r.overflow_sum, r.nan_sum,
                            r.rung);
    }
    py::array_t<std::int64_t> counts(py::ssize_t(r.counts.size()));
    std::copy(r.counts.begin(), r.counts.end(), counts.mutable_data());
    return py::make_tuple(counts, edges_of(r), r.underflow, r.overflow, r.nan, r.rung);
  }
  {
    released unlocked;
    r = p.a.on_gpu ? histogram_device(p.a.type, p.a.data, p.a.size(), o, {rung})
                   : histogram(p.where, p.a.type, p.a.data, p.a.size(), o, {rung});
  }
  py::array_t<std::int64_t> counts(py::ssize_t(r.counts.size()));
  std::copy(r.counts.begin(), r.counts.end(), counts.mutable_data());
  return py::make_tuple(counts, edges_of(r), r.underflow, r.overflow, r.nan, r.rung);
}

// A 2-D or n-D histogram's GPU output, checked: int64 counts, or float64 sums with weights.
placed counts_out(py::handle out, const std::optional<std::string>& backend_name,
                  const std::string& call, bool weighted) {
  placed c = take(out, backend_name, "the counts", true);
  require_contiguous(c.a, "the counts");
  if (!c.a.on_gpu || c.a.type != (weighted ? dtype::f64 : dtype::i64))
    throw py::type_error(call + (weighted ? ": the sums are a float64 GPU array"
                                          : ": the counts are an int64 GPU array"));
  return c;
}

// A 2-D or n-D histogram's host answer: (its counts or sums in `shape`, the points outside or
// their weights' sum, the rung).
template <class Result>
py::tuple counts_or_sums(const Result& r, const std::vector<py::ssize_t>& shape) {
  if (r.weighted) {
    py::array_t<double> sums(shape);
    std::copy(r.sums.begin(), r.sums.end(), sums.mutable_data());
    return py::make_tuple(sums, r.outside_sum, r.rung);
  }
  py::array_t<std::int64_t> counts(shape);
  std::copy(r.counts.begin(), r.counts.end(), counts.mutable_data());
  return py::make_tuple(counts, r.outside, r.rung);
}

// numpy.histogram2d's counting: x and y (one dtype, one place), each axis's edges (float64, on
// the host), weights as histogram's; the counts (int64) or sums (float64), x_bins x y_bins, the
// points outside, the rung.
// `out`: for GPU points, an int64 GPU array (with weights a float64 one) of x_bins x y_bins + 1
// entries (the bins, then the points outside) written where it is; the tuple's counts are then
// None.
py::tuple histogram2d_call(py::handle x, py::handle y, const edge_array& x_edges,
                           const edge_array& y_edges, py::handle weights,
                           const std::optional<std::string>& backend_name,
                           const std::optional<std::string>& variant, py::handle out) {
  placed px = take(x, backend_name, "x"), py_ = take(y, backend_name, "y");
  require_contiguous(px.a, "x");
  require_contiguous(py_.a, "y");
  if (px.a.on_gpu != py_.a.on_gpu || px.a.type != py_.a.type || px.a.size() != py_.a.size())
    throw py::value_error("histogram2d: x and y must be arrays of one length, one dtype and one "
                          "place (both host or both GPU)");
  histogram2d_options o;
  o.x_edges = std::span<const double>(x_edges.data(), x_edges.size());
  o.y_edges = std::span<const double>(y_edges.data(), y_edges.size());
  std::optional<placed> w;
  if (!weights.is_none()) {
    w = take(weights, backend_name, "the weights");
    require_contiguous(w->a, "the weights");
    if (w->a.on_gpu != px.a.on_gpu || w->a.size() != px.a.size())
      throw py::value_error("histogram2d: the weights must be as long as x, and where x is");
    o.weights = w->a.data, o.weight_type = w->a.type;
  }
  const std::string rung = variant.value_or("");
  histogram2d_result r;
  if (px.a.on_gpu && !out.is_none()) {
    const placed c = counts_out(out, backend_name, "histogram2d", o.weights != nullptr);
    {
      released unlocked;
      r = histogram2d_device_into(px.a.type, px.a.data, py_.a.data, px.a.size(),
                                  static_cast<std::uint64_t*>(c.a.data), c.a.size(), o, {rung});
    }
    return py::make_tuple(py::none(), py::none(), r.rung);
  }
  {
    released unlocked;
    r = px.a.on_gpu
            ? histogram2d_device(px.a.type, px.a.data, py_.a.data, px.a.size(), o, {rung})
            : histogram2d(px.where, px.a.type, px.a.data, py_.a.data, px.a.size(), o, {rung});
  }
  return counts_or_sums(r, {py::ssize_t(r.x_bins), py::ssize_t(r.y_bins)});
}

// numpy.histogramdd's counting: one 1-D array per axis (one dtype, one place, one length and one
// element stride: an (n, D) array's columns, or D contiguous arrays), each axis's edges (float64,
// on the host), optional weights. As histogram2d_call: host points give (counts or sums, the
// outside, the rung), GPU points write `out` (the bins' product + 1 entries) and give the rung.
py::tuple histogramdd_call(const py::list& axes, const std::vector<edge_array>& edges,
                           py::handle weights, const std::optional<std::string>& backend_name,
                           const std::optional<std::string>& variant, py::handle out) {
  std::vector<placed> taken;
  std::vector<const void*> data;
  std::int64_t stride = 1;
  for (std::size_t d = 0; d < axes.size(); ++d) {
    const std::string what = "histogramdd's axis " + std::to_string(d);
    taken.push_back(take(axes[d], backend_name, what));
    const array_view& a = taken.back().a;
    if (a.ndim() != 1)
      throw py::value_error(what + " must be 1-D; it has " + std::to_string(a.ndim()) +
                            " dimensions");
    const std::int64_t s = a.shape[0] > 1 ? a.strides[0] : (d ? stride : 1);
    if (s < 1 || (d && s != stride))
      throw py::value_error("histogramdd: the axes' coordinates must lie at one positive stride "
                            "(an (n, D) array's columns, or contiguous arrays); axis " +
                            std::to_string(d) + "'s is " + std::to_string(s));
    if (d && (a.on_gpu != taken[0].a.on_gpu || a.type != taken[0].a.type ||
              a.size() != taken[0].a.size()))
      throw py::value_error("histogramdd: the axes must be arrays of one length, one dtype and "
                            "one place (all host or all GPU)");
    stride = s;
    data.push_back(a.data);
  }
  if (taken.empty()) throw py::value_error("histogramdd: no axes");
  const array_view& first = taken[0].a;
  histogramdd_options o;
  for (const edge_array& e : edges) o.edges.emplace_back(e.data(), e.size());
  std::optional<placed> w;
  if (!weights.is_none()) {
    w = take(weights, backend_name, "the weights");
    require_contiguous(w->a, "the weights");
    if (w->a.on_gpu != first.on_gpu || w->a.size() != first.size())
      throw py::value_error("histogramdd: the weights must be one per point, where the points are");
    o.weights = w->a.data, o.weight_type = w->a.type;
  }
  const std::string rung = variant.value_or("");
  const std::size_t n = first.size();
  histogramdd_result r;
  if (first.on_gpu) {
    if (out.is_none()) throw py::value_error("histogramdd: GPU points need out (their counts)");
    const placed c = counts_out(out, backend_name, "histogramdd", o.weights != nullptr);
    {
      released unlocked;
      r = histogramdd_device_into(first.type, data, std::size_t(stride), n,
                                  static_cast<std::uint64_t*>(c.a.data), c.a.size(), o, {rung});
    }
    return py::make_tuple(py::none(), py::none(), r.rung);
  }
  {
    released unlocked;
    r = histogramdd(taken[0].where, first.type, data, std::size_t(stride), n, o, {rung});
  }
  return counts_or_sums(r, std::vector<py::ssize_t>(r.bins.begin(), r.bins.end()));
}

// A 1-D operand of matmul as numpy.matmul reads it: a row (1 x k) on the left, a column (k x 1)
// on the right; the output a column where b is one, else a row.
void as_row(array_view& v) {
  if (v.ndim() != 1) return;
  const std::int64_t n = v.shape[0], stride = v.strides[0];
  v.shape = {1, n}, v.strides = {n, stride};
}
void as_column(array_view& v) {
  if (v.ndim() != 1) return;
  const std::int64_t n = v.shape[0], stride = v.strides[0];
  v.shape = {n, 1}, v.strides = {stride, 1};
}

// A product's a, b and output: one kind of memory, one dtype, shapes that match. `vectors`: a
// 1-D operand as numpy.matmul reads it (a row on the left, a column on the right; the output a
// column where b is one, else a row).
struct matmul_operands {
  placed a, b, c;
  std::size_t m, n, k, lda, ldb, ldc;
};
// `stacks`: an operand of more than two axes is a whole stack, read as its first matrix (its
// last two axes at index 0 of the others, where its data starts): the Python layer passes a
// stack whole rather than a view of its first matrix, which costs a PyTorch call.
matmul_operands matmul_operands_of(py::handle a_obj, py::handle b_obj, py::handle c_obj,
                                   const std::optional<std::string>& backend_name, bool vectors,
                                   bool stacks = false) {
  placed a = take(a_obj, backend_name, "a"), b = take(b_obj, backend_name, "b");
  placed c = take(c_obj, backend_name, "the output", true);
  if (stacks)
    for (placed* x : {&a, &b, &c})
      if (x->a.ndim() > 2) {
        x->a.shape.erase(x->a.shape.begin(), x->a.shape.end() - 2);
        x->a.strides.erase(x->a.strides.begin(), x->a.strides.end() - 2);
      }
  if (b.a.on_gpu != a.a.on_gpu || c.a.on_gpu != a.a.on_gpu)
    throw py::value_error("matmul: a, b and the output must all be host arrays or all GPU arrays");
  for (const placed* x : {&b, &c})
    if (x->a.type != a.a.type)
      throw py::type_error("matmul: a is " + std::string(name_of(a.a.type)) + " but " +
                           (x == &b ? "b" : "the output") + " is " +
                           std::string(name_of(x->a.type)) + "; give both float32 or float64");
  if (vectors) {
    if (b.a.ndim() == 1) as_column(c.a);
    else as_row(c.a);
    as_row(a.a), as_column(b.a);
  }
  const std::size_t lda = a.a.row_stride("a"), ldb = b.a.row_stride("b"),
                    ldc = c.a.row_stride("the output");
  const std::size_t m = std::size_t(a.a.shape[0]), k = std::size_t(a.a.shape[1]),
                    n = std::size_t(b.a.shape[1]);
  if (std::size_t(c.a.shape[0]) != m || std::size_t(c.a.shape[1]) != n)
    throw py::value_error("matmul: the output is " + std::to_string(c.a.shape[0]) + "x" +
                          std::to_string(c.a.shape[1]) + "; the product is " + std::to_string(m) +
                          "x" + std::to_string(n));
  if (std::size_t(b.a.shape[0]) != k)
    throw py::value_error("matmul: a is " + std::to_string(m) + "x" + std::to_string(k) +
                          " and b is " + std::to_string(b.a.shape[0]) + "x" + std::to_string(n) +
                          ": a's columns must match b's rows");
  return {std::move(a), std::move(b), std::move(c), m, n, k, lda, ldb, ldc};
}

std::string matmul_call(py::handle a_obj, py::handle b_obj, py::handle c_obj, double alpha,
                        double beta, const std::optional<std::string>& backend_name,
                        const std::optional<std::string>& variant) {
  matmul_operands o = matmul_operands_of(a_obj, b_obj, c_obj, backend_name, true);
  std::string ran;
  const std::string rung = variant.value_or("");
  {
    released unlocked;
    if (o.a.a.on_gpu)
      matmul_device(o.a.a.type, o.m, o.n, o.k, alpha, o.a.a.data, o.lda, o.b.a.data, o.ldb, beta,
                    o.c.a.data, o.ldc, {rung, &ran});
    else
      matmul(o.a.where, o.a.a.type, o.m, o.n, o.k, alpha, o.a.a.data, o.lda, o.b.a.data, o.ldb,
             beta, o.c.a.data, o.ldc, {rung, &ran});
  }
  return ran;
}

// A stack of `count` products: a, b and c are the stacks' first matrices (2-D views, or the
// stacks whole), the others `stride_*` elements further on each (0: the same matrix), as the
// Python layer computed them from the stacks' strides.
std::string matmul_batched_call(py::handle a_obj, std::size_t stride_a, py::handle b_obj,
                                std::size_t stride_b, py::handle c_obj, std::size_t stride_c,
                                std::size_t count, double alpha, double beta,
                                const std::optional<std::string>& backend_name,
                                const std::optional<std::string>& variant) {
  matmul_operands o = matmul_operands_of(a_obj, b_obj, c_obj, backend_name, false, true);
  std::string ran;
  const std::string rung = variant.value_or("");
  {
    released unlocked;
    if (o.a.a.on_gpu)
      matmul_batched_device(o.a.a.type, count, o.m, o.n, o.k, alpha, o.a.a.data, o.lda, stride_a,
                            o.b.a.data, o.ldb, stride_b, beta, o.c.a.data, o.ldc, stride_c,
                            {rung, &ran});
    else
      matmul_batched(o.a.where, o.a.a.type, count, o.m, o.n, o.k, alpha, o.a.a.data, o.lda,
                     stride_a, o.b.a.data, o.ldb, stride_b, beta, o.c.a.data, o.ldc, stride_c,
                     {rung, &ran});
  }
  return ran;
}

std::string filter_call(py::handle image, const py::array_t<double, py::array::c_style>& mask,
                        py::handle out_obj, const std::string& mode, double cval, bool flip,
                        std::size_t channels, const std::optional<std::string>& backend_name,
                        const std::optional<std::string>& variant) {
  placed in = take(image, backend_name, "the image"),
         out = take(out_obj, backend_name, "the output", true);
  if (in.a.on_gpu != out.a.on_gpu)
    throw py::value_error("the image and the output must both be host arrays or GPU arrays");
  if (mask.ndim() != 2)
    throw py::value_error("the weights must be 2-D; they have " + std::to_string(mask.ndim()) +
                          " dimensions");
  filter_options o;
  o.mode = parse_boundary(mode), o.cval = cval, o.channels = channels;
  o.u8_output = in.a.type == dtype::u8 && out.a.type == dtype::u8;
  // A u8 image of channels: rows x cols x channels, its rows of cols x channels bytes.
  array_view rows_of = in.a, out_rows = out.a;
  if (in.a.type != dtype::u8 && in.a.ndim() == 3 && channels == 1) {
    // A float stack of images, planes x rows x cols (filter_options::planes)
    if (out.a.ndim() != 3 || out.a.shape != in.a.shape)
      throw py::value_error("a stack of images and its output must have one shape");
    for (const array_view* v : {&in.a, &out.a})
      if (v->shape[0] > 1 && v->strides[0] < 0)
        throw py::value_error("a stack's planes must be in increasing order in memory");
    o.planes = std::size_t(in.a.shape[0]);
    o.plane_in = in.a.shape[0] > 1 ? std::size_t(in.a.strides[0]) : 0;
    o.plane_out = out.a.shape[0] > 1 ? std::size_t(out.a.strides[0]) : 0;
    for (array_view* v : {&rows_of, &out_rows}) {
      v->shape.erase(v->shape.begin());
      v->strides.erase(v->strides.begin());
    }
  } else if (channels > 1 || in.a.ndim() == 3) {
    for (array_view* v : {&rows_of, &out_rows}) {
      if (v->ndim() != 3 || v->strides[2] != 1 || v->strides[1] != v->shape[2])
        throw py::value_error("an image of channels must be rows x cols x channels, each "
                              "pixel's channels together");
      v->shape = {v->shape[0], v->shape[1] * v->shape[2]};
      v->strides = {v->strides[0], 1};
    }
  }
  const std::size_t ld_in = rows_of.row_stride("the image"),
                    ld_out = out_rows.row_stride("the output");
  const std::size_t rows = std::size_t(rows_of.shape[0]),
                    cols = std::size_t(rows_of.shape[1]) / std::max<std::size_t>(channels, 1);
  std::string ran;
  const std::string rung = variant.value_or("");
  {
    released unlocked;
    const std::size_t kh = std::size_t(mask.shape(0)), kw = std::size_t(mask.shape(1));
    if (in.a.on_gpu)
      (flip ? convolve_device : correlate_device)(in.a.type, in.a.data, rows, cols, ld_in,
                                                  mask.data(), kh, kw, out.a.data, ld_out, o,
                                                  {rung, &ran});
    else
      (flip ? convolve : correlate)(in.where, in.a.type, in.a.data, rows, cols, ld_in, mask.data(),
                                    kh, kw, out.a.data, ld_out, o, {rung, &ran});
  }
  return ran;
}

// The input and the output of a pass in SciPy's arithmetic: both host arrays or both GPU
// arrays, C-ordered, of one shape.
std::pair<placed, placed> input_and_output(py::handle x_obj, py::handle out_obj,
                                           const std::optional<std::string>& backend_name) {
  placed in = take(x_obj, backend_name, "the input"),
         out = take(out_obj, backend_name, "the output", true);
  if (in.a.on_gpu != out.a.on_gpu)
    throw py::value_error("the input and the output must both be host arrays or GPU arrays");
  if (in.a.shape != out.a.shape || !in.a.c_contiguous() || !out.a.c_contiguous())
    throw py::value_error("the input and the output must be C-ordered arrays of one shape");
  return {std::move(in), std::move(out)};
}

// scipy.ndimage.correlate1d into integers in SciPy's order (correlate1d_in_scipys_order, and
// its _device call for GPU arrays): x and out of one shape in C order, out of an integer type
// (on a GPU, x of out's type or float64, apart from out); the pass along `axis`.
void scipy_order_pass_call(py::handle x_obj, py::handle out_obj, int axis,
                           const std::vector<double>& weights, long origin, const std::string& mode,
                           double cval, double divisor,
                           const std::optional<std::string>& backend_name) {
  auto [in, out] = input_and_output(x_obj, out_obj, backend_name);
  const int nd = int(in.a.ndim());
  if (axis < 0 || axis >= nd)
    throw py::value_error("axis " + std::to_string(axis) + " is out of bounds for " +
                          std::to_string(nd) + " axes");
  std::size_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= std::size_t(in.a.shape[std::size_t(d)]);
  for (int d = axis + 1; d < nd; ++d) inner *= std::size_t(in.a.shape[std::size_t(d)]);
  const boundary b = parse_boundary(mode);
  released unlocked;
  if (in.a.on_gpu) {
    correlate1d_in_scipys_order_device(in.a.type, in.a.data, out.a.type, out.a.data, outer,
                                       std::size_t(in.a.shape[std::size_t(axis)]), inner, weights,
                                       origin, b, cval, divisor);
    return;
  }
  correlate1d_in_scipys_order(in.where, in.a.type, in.a.data, out.a.type, out.a.data, outer,
                              std::size_t(in.a.shape[std::size_t(axis)]), inner, weights, origin, b,
                              cval, divisor);
}

// scipy.ndimage.correlate in SciPy's arithmetic (correlate_in_scipys_order, and its _device call
// for GPU arrays): x and out of one shape in C order, apart (on a GPU, x of out's type or
// float64); the weights of as many axes.
void scipy_correlate_call(py::handle x_obj, py::handle out_obj,
                          const py::array_t<double, py::array::c_style | py::array::forcecast>& w,
                          const std::vector<long>& origins, const std::string& mode, double cval,
                          const std::optional<std::string>& backend_name) {
  auto [in, out] = input_and_output(x_obj, out_obj, backend_name);
  std::vector<std::size_t> shape, wshape;
  for (auto v : in.a.shape) shape.push_back(std::size_t(v));
  for (py::ssize_t a = 0; a < w.ndim(); ++a) wshape.push_back(std::size_t(w.shape(a)));
  const boundary b = parse_boundary(mode);
  const std::span<const double> weights(w.data(), std::size_t(w.size()));
  released unlocked;
  if (in.a.on_gpu)
    correlate_in_scipys_order_device(in.a.type, in.a.data, out.a.type, out.a.data, shape, weights,
                                     wshape, origins, b, cval);
  else
    correlate_in_scipys_order(in.where, in.a.type, in.a.data, out.a.type, out.a.data, shape,
                              weights, wshape, origins, b, cval);
}

py::list backends_call() {
  py::list out;
  for (backend b : all_backends) {
    std::string why;
    try {
      require(b);
    } catch (const error& e) {
      why = e.what();
    }
    out.append(py::make_tuple(std::string(name_of(b)), why.empty(), why));
  }
  return out;
}

py::list rungs_call(const std::optional<std::string>& pattern) {
  if (pattern) lab::check_pattern(*pattern);
  py::list out;
  for (const rung_info& r : lab::all_rungs()) {
    if (pattern && r.pattern() != *pattern) continue;
    py::dict d;
    d["id"] = std::string(r.id);
    d["pattern"] = std::string(r.pattern());
    d["backend"] = std::string(name_of(r.where));
    d["step"] = r.step;
    d["summary"] = std::string(r.summary);
    d["racy"] = r.racy;
    out.append(d);
  }
  return out;
}

// The lab, as `pplab lab` runs it: its JSON record, and its chart written to `chart` if given.
std::string lab_call(const std::optional<std::string>& pattern,
                     const std::optional<std::string>& backend_name, const std::string& scale,
                     const std::vector<std::string>& rungs, double budget_s, bool progress,
                     bool table, const std::optional<std::string>& chart) {
  lab::settings s;
  s.scale = scale == "full"   ? lab::size::full
            : scale == "tiny" ? lab::size::tiny
                              : lab::size::quick;
  if (scale != "full" && scale != "quick" && scale != "tiny")
    throw py::value_error("size must be 'quick', 'full' or 'tiny', not '" + scale + "'");
  if (pattern) s.only_pattern = lab::check_pattern(*pattern);
  if (backend_name) s.only_backend = parse_backend(*backend_name);
  if (!(budget_s > 0 && budget_s <= 60))  // as `pplab lab --budget`
    throw py::value_error("budget_s is seconds of timing per rung, above 0 and at most 60; got " +
                          py::repr(py::float_(budget_s)).cast<std::string>());
  s.only_rungs = rungs;
  s.budget_s = budget_s;
  if (!rungs.empty()) {  // a filter that matches nothing is a mistake, not an empty lab
    const std::vector<std::string> planned = lab::planned_rungs(s);
    for (const std::string& part : rungs)
      if (std::none_of(planned.begin(), planned.end(),
                       [&](const std::string& id) { return id.find(part) != std::string::npos; }))
        throw py::value_error("rungs: no rung the lab would run here has '" + part +
                              "' in its id (pplab.rungs() lists them)");
  }
  if (progress)
    s.progress = [](const std::string& what) {
      std::fprintf(stderr, "\r\033[K%s", what.c_str());
      std::fflush(stderr);
    };
  lab::result r;
  {
    released unlocked;
    r = lab::run(s);
    if (progress) std::fprintf(stderr, "\r\033[K");
  }
  if (table) lab::print_table(r);
  if (chart) {
    std::FILE* f = std::fopen(chart->c_str(), "w");
    if (!f) fail(errc::io, "cannot write the chart to " + *chart);
    const std::string svg = lab::chart_svg(r);
    const bool ok = std::fwrite(svg.data(), 1, svg.size(), f) == svg.size();
    if (std::fclose(f) != 0 || !ok) fail(errc::io, "cannot write the chart to " + *chart);
  }
  return lab::record_json(r, s.scale == lab::size::quick);
}

}  // namespace
}  // namespace pplab::python

PYBIND11_MODULE(_pplab, m) {
  using namespace pplab;
  using namespace pplab::python;
  namespace py = pybind11;
  m.doc() = "pplab's compiled calls; use the pplab package's functions instead";
  // pplab's errors as Python's: a wrong call or wrong data is a ValueError, a file an OSError,
  // what this build or a device cannot do a RuntimeError (std::bad_alloc is a MemoryError).
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const error& e) {
      switch (e.code()) {
      case errc::invalid_argument:
      case errc::bad_data:
        PyErr_SetString(PyExc_ValueError, e.what());
        return;
      case errc::io:
        PyErr_SetString(PyExc_OSError, e.what());
        return;
      case errc::interrupted:  // the exception Python's signal handler raised
        if (pending[0]) {
          PyErr_Restore(pending[0], pending[1], pending[2]);
          pending[0] = pending[1] = pending[2] = nullptr;
        } else {
          PyErr_SetNone(PyExc_KeyboardInterrupt);
        }
        return;
      default:
        PyErr_SetString(PyExc_RuntimeError, e.what());
        return;
      }
    }
  });
  m.def("reduce", &reduce_call, py::arg("x"), py::arg("op"), py::arg("backend") = py::none(),
        py::arg("variant") = py::none());
  m.def("largest_as_unsigned", &largest_as_unsigned_call, py::arg("x"),
        py::arg("backend") = py::none());
  m.def("exact", &exact_call, py::arg("x"), py::arg("op"), py::arg("backend") = py::none());
  m.def("exact_rows", &exact_rows_call, py::arg("x"), py::arg("op"),
        py::arg("backend") = py::none());
  m.def("row_answer_type", &row_answer_type_call, py::arg("dtype_name"), py::arg("op"));
  m.def("numpy_keeps_type", &numpy_keeps_type_call, py::arg("dtype_name"), py::arg("op"));
  m.def("reduce_rows", &reduce_rows_call, py::arg("x"), py::arg("op"),
        py::arg("backend") = py::none(), py::arg("out") = py::none());
  m.def("gaussian_kernel", &gaussian_kernel, py::arg("sigma"), py::arg("truncate") = 4.0,
        py::arg("radius") = -1, py::arg("order") = 0);
  m.def(
      "placed_kernel",
      [](const std::vector<double>& w, long origin) { return placed_kernel(w, origin); },
      py::arg("weights"), py::arg("origin") = 0);
  m.def("reduce_axis", &reduce_axis_call, py::arg("x"), py::arg("op"), py::arg("axis"),
        py::arg("backend") = py::none(), py::arg("out") = py::none());
  m.def("histogram", &histogram_call, py::arg("x"), py::arg("bins"), py::arg("lo") = py::none(),
        py::arg("hi") = py::none(), py::arg("closed_last") = true, py::arg("edges") = "f64",
        py::arg("backend") = py::none(), py::arg("variant") = py::none(),
        py::arg("out") = py::none(), py::arg("bin_edges") = py::none(),
        py::arg("weights") = py::none());
  m.def("histogram2d", &histogram2d_call, py::arg("x"), py::arg("y"), py::arg("x_edges"),
        py::arg("y_edges"), py::arg("weights") = py::none(), py::arg("backend") = py::none(),
        py::arg("variant") = py::none(), py::arg("out") = py::none());
  m.def("histogramdd", &histogramdd_call, py::arg("axes"), py::arg("edges"),
        py::arg("weights") = py::none(), py::arg("backend") = py::none(),
        py::arg("variant") = py::none(), py::arg("out") = py::none());
  m.def("matmul", &matmul_call, py::arg("a"), py::arg("b"), py::arg("out"), py::arg("alpha"),
        py::arg("beta"), py::arg("backend") = py::none(), py::arg("variant") = py::none());
  m.def("matmul_batched", &matmul_batched_call, py::arg("a"), py::arg("stride_a"), py::arg("b"),
        py::arg("stride_b"), py::arg("out"), py::arg("stride_out"), py::arg("count"),
        py::arg("alpha"), py::arg("beta"), py::arg("backend") = py::none(),
        py::arg("variant") = py::none());
  m.def("scipy_order_pass", &scipy_order_pass_call, py::arg("x"), py::arg("out"), py::arg("axis"),
        py::arg("weights"), py::arg("origin"), py::arg("mode"), py::arg("cval"),
        py::arg("divisor") = 1.0, py::arg("backend") = py::none());
  m.def("scipy_correlate", &scipy_correlate_call, py::arg("x"), py::arg("out"), py::arg("weights"),
        py::arg("origins"), py::arg("mode"), py::arg("cval"), py::arg("backend") = py::none());
  m.def("filter", &filter_call, py::arg("image"), py::arg("mask"), py::arg("out"), py::arg("mode"),
        py::arg("cval"), py::arg("flip"), py::arg("channels"), py::arg("backend") = py::none(),
        py::arg("variant") = py::none());
  // The caller's current stream (torch.cuda.current_stream(), cupy.cuda.get_current_stream())
  // and whose it is ("torch", "cupy"): this thread's next calls run on it, until
  // set_stream(None).
  m.def(
      "set_stream",
      [](std::optional<std::uintptr_t> stream, const std::string& library) {
        thread_local std::unique_ptr<stream_scope> callers;
        callers.reset();
        set_stream_library(stream ? library : "");
        if (stream) callers = std::make_unique<stream_scope>(reinterpret_cast<void*>(*stream));
      },
      py::arg("stream"), py::arg("library") = "");
  m.def("backends", &backends_call);
  m.def("backend_names", [] {
    std::vector<std::string> names;
    for (const backend_entry& e : backend_table) names.emplace_back(e.name);
    return names;
  });
  m.def("rungs", &rungs_call, py::arg("pattern") = py::none());
  m.def("lab", &lab_call, py::arg("pattern"), py::arg("backend"), py::arg("size"), py::arg("rungs"),
        py::arg("budget_s"), py::arg("progress"), py::arg("table"), py::arg("chart"));
  m.def("is_gpu_array", [](py::handle x) { return lives_on_gpu(x); });
}
