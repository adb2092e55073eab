// Taking arrays from Python: the buffer protocol first (it alone carries read-only NumPy arrays),
// then DLPack, then __cuda_array_interface__.
#include "arrays.hpp"

#include <dlpack/dlpack.h>
#include <pybind11/numpy.h>

#include <algorithm>
#include <bit>
#include <iterator>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <utility>

namespace pplab::python {

std::size_t array_view::size() const {
  return std::accumulate(shape.begin(), shape.end(), std::size_t(1),
                         [](std::size_t a, std::int64_t b) { return a * std::size_t(b); });
}

bool array_view::c_contiguous() const {
  std::int64_t want = 1;
  for (std::size_t d = shape.size(); d-- > 0;) {
    if (shape[d] != 1 && strides[d] != want) return size() == 0;
    want *= shape[d];
  }
  return true;
}

std::size_t array_view::row_stride(const std::string& what) const {
  if (ndim() != 2)
    throw py::value_error(what + " must be 2-D; it has " + std::to_string(ndim()) + " dimensions");
  if (shape[1] > 1 && strides[1] != 1)
    throw py::value_error(
        what + "'s rows are not contiguous (a column stride of " + std::to_string(strides[1]) +
        " elements); pass numpy.ascontiguousarray(x) or its library's equivalent");
  if (shape[0] > 1 && strides[0] < shape[1])
    throw py::value_error(what + "'s row stride " + std::to_string(strides[0]) +
                          " is less than its row's length " + std::to_string(shape[1]));
  return shape[0] > 1 ? std::size_t(strides[0]) : std::size_t(shape[1]);
}

void require_contiguous(const array_view& a, const std::string& what) {
  if (!a.c_contiguous())
    throw py::value_error(what + " is not C-contiguous; pass numpy.ascontiguousarray(x) (or "
                                 "x.contiguous() in PyTorch, cupy.ascontiguousarray(x)): pplab "
                                 "reads arrays where they lie and copies none");
}

namespace {

[[noreturn]] void bad_type(const std::string& what, const std::string& type) {
  throw py::type_error(what + " has elements of type " + type +
                       "; pplab takes int8 to int64, uint8 to uint64, float32 and float64");
}

dtype from_dlpack_type(DLDataType t, const std::string& what) {
  if (t.lanes == 1) {
    if (t.code == kDLFloat && t.bits == 32) return dtype::f32;
    if (t.code == kDLFloat && t.bits == 64) return dtype::f64;
    if (t.code == kDLInt || t.code == kDLUInt) {
      const bool s = t.code == kDLInt;
      switch (t.bits) {
      case 8:
        return s ? dtype::i8 : dtype::u8;
      case 16:
        return s ? dtype::i16 : dtype::u16;
      case 32:
        return s ? dtype::i32 : dtype::u32;
      case 64:
        return s ? dtype::i64 : dtype::u64;
      }
    }
  }
  bad_type(what, "DLPack code " + std::to_string(t.code) + " of " + std::to_string(t.bits) +
                     " bits x " + std::to_string(t.lanes));
}

dtype from_struct_format(std::string f, std::size_t itemsize, const std::string& what) {
  if (!f.empty() && (f[0] == '<' || f[0] == '=' || f[0] == '@')) f.erase(0, 1);
  else if (!f.empty() && (f[0] == '>' || f[0] == '!') && itemsize > 1)
    bad_type(what, "big-endian '" + f + "'");
  // NumPy's names for the formats pplab does not take
  for (auto [code, name] : {std::pair{"e", "float16"},
                            {"?", "bool"},
                            {"g", "longdouble"},
                            {"Zf", "complex64"},
                            {"Zd", "complex128"},
                            {"Zg", "clongdouble"},
                            {"O", "object"}})
    if (f == code) bad_type(what, name);
  if (f.size() != 1) bad_type(what, "'" + f + "'");
  const char c = f[0];
  const bool is_signed = c == 'b' || c == 'h' || c == 'i' || c == 'l' || c == 'q' || c == 'n';
  const bool is_unsigned = c == 'B' || c == 'H' || c == 'I' || c == 'L' || c == 'Q' || c == 'N';
  if (c == 'f' || c == 'd' || is_signed || is_unsigned)
    return from_dlpack_type({std::uint8_t(c == 'f' || c == 'd' ? kDLFloat
                                          : is_signed          ? kDLInt
                                                               : kDLUInt),
                             std::uint8_t(itemsize * 8), 1},
                            what);
  bad_type(what, "'" + f + "'");
}

array_view from_buffer(py::handle obj, bool writable, const std::string& what) {
  py::buffer b = py::reinterpret_borrow<py::buffer>(obj);
  py::buffer_info info;
  try {
    info = b.request(writable);
  } catch (py::error_already_set&) {
    if (writable)
      throw py::value_error(what + " is read-only; pplab cannot write its output there");
    throw;
  }
  array_view a;
  a.data = info.ptr;
  a.type = from_struct_format(info.format, std::size_t(info.itemsize), what);
  a.writable = !info.readonly;
  for (py::ssize_t d = 0; d < info.ndim; ++d) {
    a.shape.push_back(info.shape[std::size_t(d)]);
    const py::ssize_t s = info.strides[std::size_t(d)];
    if (s % info.itemsize != 0)
      throw py::value_error(what + " has a stride that is not a whole number of elements");
    a.strides.push_back(s / info.itemsize);
  }
  a.keep = std::make_shared<py::buffer_info>(std::move(info));
  return a;
}

// A NumPy array of a type pplab takes, in the machine's byte order, read from the array's own
// fields (no buffer request, which builds a format string and a copy of the shape each call);
// any other (float16, bool, complex, a byte-swapped or structured type) goes through the
// buffer protocol, whose formats name what pplab refuses.
array_view from_numpy(py::handle obj, bool writable, const std::string& what) {
  const auto arr = py::reinterpret_borrow<py::array>(obj);
  const py::dtype t = arr.dtype();
  const char c = t.char_(), order = t.byteorder();
  static const std::string taken = "bBhHiIlLqQnNfd";
  const bool swapped =
      std::endian::native == std::endian::little ? order == '>' || order == '!' : order == '<';
  if (taken.find(c) == std::string::npos || swapped) return from_buffer(obj, writable, what);
  if (writable && !arr.writeable())
    throw py::value_error(what + " is read-only; pplab cannot write its output there");
  array_view a;
  a.data = const_cast<void*>(arr.data());
  const auto itemsize = arr.itemsize();
  a.type = from_struct_format(std::string(1, c), std::size_t(itemsize), what);
  a.writable = arr.writeable();
  const py::ssize_t ndim = arr.ndim();
  for (py::ssize_t d = 0; d < ndim; ++d) a.shape.push_back(arr.shape(d));
  // A contiguous array's strides as its buffer gives them: the canonical ones (an axis of one
  // element, or an empty array, may hold any stride).
  const int flags = arr.flags();
  if (flags & (py::array::c_style | py::array::f_style)) {
    a.strides.assign(std::size_t(ndim), 1);
    if (flags & py::array::c_style)
      for (py::ssize_t d = ndim - 1; d > 0; --d)
        a.strides[std::size_t(d - 1)] = a.strides[std::size_t(d)] * a.shape[std::size_t(d)];
    else
      for (py::ssize_t d = 1; d < ndim; ++d)
        a.strides[std::size_t(d)] = a.strides[std::size_t(d - 1)] * a.shape[std::size_t(d - 1)];
  } else {
    for (py::ssize_t d = 0; d < ndim; ++d) {
      const py::ssize_t s = arr.strides(d);
      if (s % itemsize != 0)
        throw py::value_error(what + " has a stride that is not a whole number of elements");
      a.strides.push_back(s / itemsize);
    }
  }
  a.keep = std::make_shared<py::object>(py::reinterpret_borrow<py::object>(obj));
  return a;
}

// The consumer's side of DLPack: the capsule's tensor is ours (the capsule renamed, so that it
// does not free it) until the view is dropped, when its deleter runs.
// dev: obj.__dlpack_device__(), (device type, device id).
array_view from_dlpack(py::handle obj, const py::tuple& dev, std::uintptr_t stream,
                       const std::string& what) {
  const int type = dev[0].cast<int>(), id = dev[1].cast<int>();
  if (type != kDLCPU && type != kDLCUDA && type != kDLCUDAHost && type != kDLCUDAManaged)
    throw py::value_error(what + " lives on DLPack device type " + std::to_string(type) +
                          "; pplab takes host and CUDA arrays");
  const bool gpu = type == kDLCUDA || type == kDLCUDAManaged;
  // CUDA: the stream pplab reads on (1 is the legacy default stream; 0 is not allowed).
  py::object capsule = gpu ? obj.attr("__dlpack__")(py::arg("stream") = stream ? stream : 1)
                           : obj.attr("__dlpack__")();
  auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor"));
  if (!managed) throw py::error_already_set();
  PyCapsule_SetName(capsule.ptr(), "used_dltensor");
  std::shared_ptr<void> keep(managed, [](void* p) {
    auto* m = static_cast<DLManagedTensor*>(p);
    if (m->deleter) m->deleter(m);
  });
  const DLTensor& t = managed->dl_tensor;
  array_view a;
  a.type = from_dlpack_type(t.dtype, what);
  a.data = static_cast<char*>(t.data) + t.byte_offset;
  a.on_gpu = gpu;
  a.device = id;
  a.writable = true;  // DLPack 0.6 cannot say read-only; the producer exports writable memory
  for (int d = 0; d < t.ndim; ++d) a.shape.push_back(t.shape[d]);
  if (t.strides) {
    for (int d = 0; d < t.ndim; ++d) a.strides.push_back(t.strides[d]);
  } else {  // compact row-major
    a.strides.assign(std::size_t(t.ndim), 1);
    for (int d = t.ndim - 1; d > 0; --d)
      a.strides[std::size_t(d - 1)] = a.strides[std::size_t(d)] * t.shape[d];
  }
  a.keep = std::move(keep);
  return a;
}

namespace {

array_view parse_cuda_interface(py::handle obj, const std::string& what) {
  const py::dict cai = obj.attr("__cuda_array_interface__");
  const py::tuple data = cai["data"];
  const std::string typestr = cai["typestr"].cast<std::string>();
  array_view a;
  a.data = reinterpret_cast<void*>(data[0].cast<std::uintptr_t>());
  a.writable = !data[1].cast<bool>();
  a.on_gpu = true;
  const char kind = typestr.size() > 2 ? typestr[1] : '?';
  std::size_t itemsize = 0;
  if (typestr.size() > 2 && typestr.find_first_not_of("0123456789", 2) == std::string::npos &&
      typestr.size() < 5)
    itemsize = std::stoul(typestr.substr(2));
  if (itemsize == 0 || (typestr[0] == '>' && itemsize > 1) ||
      (kind != 'f' && kind != 'i' && kind != 'u'))
    bad_type(what, typestr);
  a.type = from_dlpack_type({std::uint8_t(kind == 'f'   ? kDLFloat
                                          : kind == 'i' ? kDLInt
                                                        : kDLUInt),
                             std::uint8_t(itemsize * 8), 1},
                            what);
  for (py::handle s : py::tuple(cai["shape"])) {
    a.shape.push_back(s.cast<std::int64_t>());
    if (a.shape.back() < 0) throw std::invalid_argument("a negative size in its shape");
  }
  if (cai.contains("strides") && !cai["strides"].is_none()) {
    for (py::handle s : py::tuple(cai["strides"])) {
      const std::int64_t bytes = s.cast<std::int64_t>();
      if (bytes % std::int64_t(itemsize) != 0)
        throw std::invalid_argument("a stride that is not a whole number of elements");
      a.strides.push_back(bytes / std::int64_t(itemsize));
    }
    if (a.strides.size() != a.shape.size())
      throw std::invalid_argument("strides and shape of different lengths");
  } else {
    a.strides.assign(a.shape.size(), 1);
    for (std::size_t d = a.shape.size(); d-- > 1;) a.strides[d - 1] = a.strides[d] * a.shape[d];
  }
  // The producer's stream (version 3): its pending work must be done before pplab reads.
  if (cai.contains("stream") && !cai["stream"].is_none())
    a.producer_stream = cai["stream"].cast<std::uintptr_t>();
  a.keep = std::make_shared<py::object>(py::reinterpret_borrow<py::object>(obj));
  return a;
}

}  // namespace

// A dictionary that lacks a key, or holds a value of the wrong kind, is a ValueError that says
// what the interface needs, never a cast or conversion error from inside.
array_view from_cuda_interface(py::handle obj, const std::string& what) {
  std::string why;
  try {
    return parse_cuda_interface(obj, what);
  } catch (const py::cast_error&) {
    why = "a value of the wrong kind: a number where a number belongs, tuples for data and shape";
  } catch (const py::builtin_exception&) {
    throw;  // pplab's own ValueError or TypeError (a dtype it does not take)
  } catch (const std::exception& e) {  // a missing key, a bad typestr or shape
    why = e.what();
  }
  throw py::value_error(what + ": a malformed __cuda_array_interface__ (" + why +
                        "); it needs 'data' (pointer, read-only), 'typestr' such as '<f4' and "
                        "'shape', and may have 'strides' and 'stream'");
}

thread_local std::string stream_library;

// A PyTorch CUDA tensor read through its own accessors (data_ptr, dtype, shape, stride), while
// pplab runs on PyTorch's current stream: PyTorch's kernels there are ordered before pplab's, as
// DLPack's export on that stream would order them, and the export itself (Tensor.__dlpack__ runs
// in Python and builds a stream object) took more time than pplab's own call around a kernel.
// nullopt where the tensor is not that case (a host tensor, a negated or conjugated view, a type
// pplab does not take): DLPack then says what it is.
std::optional<array_view> from_torch_on_its_stream(py::handle obj) {
  if (stream_library != "torch" || !is_torch_tensor(obj) || !obj.attr("is_cuda").cast<bool>())
    return std::nullopt;
  // PyTorch's dtypes are objects made once: each is looked up by its name the first time only
  // (a call here is often a few microseconds of host work around a kernel). The objects are
  // kept, so none is freed and its address taken by another; the list is never destroyed (its
  // references would be dropped after the interpreter's end).
  static auto& known = *new std::vector<std::pair<py::object, std::optional<dtype>>>;
  const py::object kind = obj.attr("dtype");
  auto seen = std::find_if(known.begin(), known.end(),
                           [&](const auto& k) { return k.first.ptr() == kind.ptr(); });
  if (seen == known.end()) {
    static const std::pair<const char*, dtype> types[] = {
        {"torch.float32", dtype::f32}, {"torch.float64", dtype::f64}, {"torch.int8", dtype::i8},
        {"torch.int16", dtype::i16},   {"torch.int32", dtype::i32},   {"torch.int64", dtype::i64},
        {"torch.uint8", dtype::u8},    {"torch.uint16", dtype::u16},  {"torch.uint32", dtype::u32},
        {"torch.uint64", dtype::u64}};
    const std::string name = py::str(kind);
    const auto* found = std::find_if(std::begin(types), std::end(types),
                                     [&](const auto& t) { return name == t.first; });
    known.emplace_back(kind, found == std::end(types) ? std::nullopt
                                                      : std::optional<dtype>(found->second));
    seen = std::prev(known.end());
  }
  // A negated view (x.conj().imag) is read by DLPack, which refuses it; a conjugated one is
  // complex, a type not taken here.
  if (!seen->second || obj.attr("is_neg")().cast<bool>()) return std::nullopt;
  array_view a;
  a.type = *seen->second;
  a.data = reinterpret_cast<void*>(obj.attr("data_ptr")().cast<std::uintptr_t>());
  a.on_gpu = true;
  a.device = obj.attr("get_device")().cast<int>();
  a.writable = true;  // as DLPack exports it
  for (py::handle d : py::tuple(obj.attr("shape"))) a.shape.push_back(d.cast<std::int64_t>());
  for (py::handle d : py::tuple(obj.attr("stride")())) a.strides.push_back(d.cast<std::int64_t>());
  a.keep = std::make_shared<py::object>(py::reinterpret_borrow<py::object>(obj));
  return a;
}

array_view take(py::handle obj, std::uintptr_t stream, bool writable, const std::string& what) {
  if (is_numpy_array(obj)) return from_numpy(obj, writable, what);
  if (auto t = from_torch_on_its_stream(obj)) return std::move(*t);
  // GPU arrays first: CuPy's arrays also answer the buffer protocol, and then refuse to be read.
  // Where DLPack says the device, __cuda_array_interface__ is not asked: PyTorch builds it in
  // Python at every access, a cost on every call.
  const bool dlpack = py::hasattr(obj, "__dlpack__") && py::hasattr(obj, "__dlpack_device__");
  py::tuple dev;
  if (dlpack) {
    dev = obj.attr("__dlpack_device__")();
    const int type = dev[0].cast<int>();
    if (type == kDLCUDA || type == kDLCUDAManaged) return from_dlpack(obj, dev, stream, what);
  } else if (py::hasattr(obj, "__cuda_array_interface__")) {
    return from_cuda_interface(obj, what);
  }
  if (PyObject_CheckBuffer(obj.ptr())) return from_buffer(obj, writable, what);
  if (dlpack) return from_dlpack(obj, dev, stream, what);
  throw py::type_error(what + " is a " + std::string(py::str(obj.get_type().attr("__name__"))) +
                       ", not an array: pass a NumPy, CuPy or PyTorch array (or anything with "
                       "the buffer protocol, __dlpack__ or __cuda_array_interface__)");
}

}  // namespace

bool is_numpy_array(py::handle obj) { return py::isinstance<py::array>(obj); }

bool is_torch_tensor(py::handle obj) {
  // Asked several times a call: the answer remembered per type (the types kept, so that none is
  // freed and its address reused by another; the list is never destroyed, as from_torch's).
  static auto& types = *new std::vector<std::pair<py::object, bool>>;
  PyObject* type = reinterpret_cast<PyObject*>(Py_TYPE(obj.ptr()));
  for (const auto& [t, is] : types)
    if (t.ptr() == type) return is;
  const std::string module = py::str(obj.get_type().attr("__module__"));
  const bool is = module.compare(0, 5, "torch") == 0 && (module.size() == 5 || module[5] == '.');
  types.emplace_back(py::reinterpret_borrow<py::object>(type), is);
  return is;
}

void set_stream_library(std::string library) { stream_library = std::move(library); }

array_view view_of(py::handle obj, std::uintptr_t stream, const std::string& what) {
  return take(obj, stream, false, what);
}

array_view writable_view_of(py::handle obj, std::uintptr_t stream, const std::string& what) {
  array_view a = take(obj, stream, true, what);
  if (!a.writable)
    throw py::value_error(what + " is read-only; pplab cannot write its output there");
  return a;
}

}  // namespace pplab::python
