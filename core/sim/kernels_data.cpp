// Model kernels that build, pick or retype whole tensors without arithmetic on their values:
// GATHER, CAST, FILL, SHAPE, PACK, UNPACK, ZEROS_LIKE, BROADCAST_TO, SELECT_V2, MIRROR_PAD,
// SPACE_TO_BATCH_ND, BATCH_TO_SPACE_ND, GATHER_ND, EMBEDDING_LOOKUP, DYNAMIC_UPDATE_SLICE;
// the types are those TFLM's kernels accept, every other one refused by name.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "core/sim/detail/model_kernels.h"

namespace arenaplan::sim {

namespace {

int64_t product(const KernelContext& c, const std::vector<int64_t>& d, size_t from, size_t to) {
  int64_t n = 1;
  for (size_t i = from; i < to; ++i) {
    c.require(d[i] >= 0 && (d[i] == 0 || n <= std::numeric_limits<int64_t>::max() / d[i]), "a dimension product overflows");
    n *= d[i];
  }
  return n;
}

int64_t normalized_axis(const KernelContext& c, int64_t axis, int64_t rank) {
  if (axis < 0) axis += rank;
  c.require(axis >= 0 && axis < rank, "axis " + std::to_string(axis) + " out of range for rank " + std::to_string(rank));
  return axis;
}

bool one_of(const Tensor& t, std::initializer_list<DType> types) {
  return t.dtype && std::find(types.begin(), types.end(), *t.dtype) != types.end();
}

// The bytes of a tensor whose shape the importer may leave empty (a scalar).
int64_t scalar_bytes(const Tensor& t) { return t.dtype ? dtype_width(*t.dtype) : 0; }

}  // namespace

ModelKernel prepare_gather(const KernelContext& c) {
  c.require(c.inputs() == 2 && c.outputs() == 1, "gather expects params and indices");
  const Tensor &xt = c.in(0), &it = c.in(1), &yt = c.out(0);
  c.require(c.is(it, DType::kInt32), "gather indices must be int32 (TFLM)");
  c.require(one_of(xt, {DType::kFloat32, DType::kInt8}) && xt.dtype == yt.dtype, "gather runs float32 or int8 (TFLM)");
  const auto x = c.dims(xt);
  const auto idx = it.shape.empty() ? std::vector<int64_t>{} : c.dims(it);
  const int64_t rank = static_cast<int64_t>(x.size()), irank = static_cast<int64_t>(idx.size());
  const int64_t axis = normalized_axis(c, c.attr("axis", 0), rank);
  int64_t batch_dims = c.attr("batch_dims", 0);
  if (batch_dims < 0) batch_dims += irank;
  c.require(batch_dims >= 0 && batch_dims <= axis && batch_dims < rank && batch_dims <= irank, "gather batch_dims out of range");
  for (int64_t i = 0; i < batch_dims; ++i) c.require(x[i] == idx[i], "gather batch dims differ");
  const int64_t batches = product(c, x, 0, batch_dims), outer = product(c, x, batch_dims, axis);
  const int64_t inner = product(c, x, axis + 1, x.size()), coords = product(c, idx, batch_dims, idx.size());
  const int64_t axis_size = x[axis];
  c.require(batches * outer * coords * inner == c.count(yt), "gather output size does not match");
  const size_t chunk = static_cast<size_t>(inner * dtype_width(*xt.dtype));
  ModelKernel k{"gather"};
  k.work.alu_ops = c.count(yt);
  k.run = [=](const Operand* in, const Operand* out) {
    const int32_t* ids = as<int32_t>(in[1]);
    for (int64_t b = 0; b < batches; ++b)
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < coords; ++i) {
          uint8_t* dst = out[0].data + static_cast<size_t>(((b * outer + o) * coords + i)) * chunk;
          const int64_t at = ids[b * coords + i];
          // TFLM only DCHECKs the index: an index outside the axis reads memory beyond the tensor.
          if (at < 0 || at >= axis_size) {
            std::memset(dst, 0, chunk);
            continue;
          }
          std::memcpy(dst, in[0].data + static_cast<size_t>((b * outer + o) * axis_size + at) * chunk, chunk);
        }
  };
  return k;
}

namespace {

// Reads element i of a CAST input as a double-free value: integers exactly, floats as floats.
template <class To>
To cast_float(float f) {
  // Cortex-M's VCVT saturates and turns NaN into 0 (C++ leaves it undefined); narrower integer
  // types then keep the low bits, as the compiler's float -> int32 -> int8 sequence does.
  if constexpr (std::is_same_v<To, float>) {
    return f;
  } else if constexpr (std::is_same_v<To, uint32_t>) {  // VCVT.U32: saturates to [0, 2^32 - 1]
    if (std::isnan(f) || f <= 0.0f) return 0;
    if (f >= 4294967296.0f) return std::numeric_limits<uint32_t>::max();
    return static_cast<uint32_t>(f);
  } else {
    int32_t v;
    if (std::isnan(f)) v = 0;
    else if (f >= 2147483648.0f) v = std::numeric_limits<int32_t>::max();
    else if (f < -2147483648.0f) v = std::numeric_limits<int32_t>::min();
    else v = static_cast<int32_t>(f);
    return static_cast<To>(v);
  }
}

template <class From, class To>
void cast_all(const uint8_t* src, uint8_t* dst, int64_t n) {
  const From* x = reinterpret_cast<const From*>(src);
  To* y = reinterpret_cast<To*>(dst);
  for (int64_t i = 0; i < n; ++i) {
    if constexpr (std::is_same_v<From, float>) y[i] = cast_float<To>(x[i]);
    else if constexpr (std::is_same_v<From, bool>) y[i] = static_cast<To>(reinterpret_cast<const uint8_t*>(src)[i] != 0);
    else y[i] = static_cast<To>(x[i]);
  }
}

template <class From>
void (*cast_to(DType to))(const uint8_t*, uint8_t*, int64_t) {
  switch (to) {
    case DType::kInt8: return cast_all<From, int8_t>;
    case DType::kInt16: return cast_all<From, int16_t>;
    case DType::kInt32: return cast_all<From, int32_t>;
    case DType::kUInt32: return cast_all<From, uint32_t>;
    case DType::kFloat32: return cast_all<From, float>;
    default: return nullptr;
  }
}

}  // namespace

ModelKernel prepare_cast(const KernelContext& c) {
  c.require(c.inputs() == 1 && c.outputs() == 1, "cast expects one input and one output");
  const Tensor &xt = c.in(0), &yt = c.out(0);
  const int64_t n = c.count(yt);
  c.require(c.count(xt) == n, "cast input and output element counts differ");
  c.require(one_of(yt, {DType::kInt8, DType::kInt16, DType::kInt32, DType::kUInt32, DType::kFloat32}),
            "cast runs to int8, int16, int32, uint32 or float32 (TFLM)");
  void (*f)(const uint8_t*, uint8_t*, int64_t) = nullptr;
  switch (xt.dtype.value_or(DType::kInt64)) {
    case DType::kInt8: f = cast_to<int8_t>(*yt.dtype); break;
    case DType::kInt16: f = cast_to<int16_t>(*yt.dtype); break;
    case DType::kInt32: f = cast_to<int32_t>(*yt.dtype); break;
    case DType::kUInt32: f = cast_to<uint32_t>(*yt.dtype); break;
    case DType::kFloat32: f = cast_to<float>(*yt.dtype); break;
    case DType::kBool: f = cast_to<bool>(*yt.dtype); break;
    default: c.unsupported("cast runs from int8, int16, int32, uint32, float32 or bool (TFLM)");
  }
  ModelKernel k{"cast"};
  k.work.alu_ops = n;
  k.run = [=](const Operand* in, const Operand* out) { f(in[0].data, out[0].data, n); };
  return k;
}

ModelKernel prepare_fill(const KernelContext& c) {
  c.require(c.inputs() == 2 && c.outputs() == 1, "fill expects dims and a value");
  const Tensor &dt = c.in(0), &vt = c.in(1), &yt = c.out(0);
  c.require(vt.shape.empty() || c.count(vt) == 1, "fill's value must be a scalar");
  c.require(vt.dtype == yt.dtype && one_of(yt, {DType::kFloat32, DType::kInt32, DType::kInt8}),
            "fill runs float32, int32 or int8 (TFLM)");
  c.require(dt.constant, "fill's dims must be constant (TFLM)");
  c.require(c.const_ints(dt) == c.dims(yt), "fill's dims do not match its output");
  const int64_t n = c.count(yt);
  const size_t w = static_cast<size_t>(scalar_bytes(yt));
  ModelKernel k{"fill"};
  k.work.alu_ops = n;
  k.run = [=](const Operand* in, const Operand* out) {
    for (int64_t i = 0; i < n; ++i) std::memcpy(out[0].data + static_cast<size_t>(i) * w, in[1].data, w);
  };
  return k;
}

ModelKernel prepare_shape(const KernelContext& c) {
  c.require(c.inputs() == 1 && c.outputs() == 1, "shape expects one input and one output");
  c.require(c.is(c.out(0), DType::kInt32), "shape runs to int32 only (TFLM)");
  const std::vector<int64_t> x = c.in(0).shape.empty() ? std::vector<int64_t>{} : c.dims(c.in(0));
  c.require(c.count(c.out(0)) == static_cast<int64_t>(x.size()), "shape output size is not the input's rank");
  std::vector<int32_t> dims;
  for (int64_t d : x) {
    c.require(d <= std::numeric_limits<int32_t>::max(), "a dimension does not fit int32");
    dims.push_back(static_cast<int32_t>(d));
  }
  ModelKernel k{"shape"};
  k.work.alu_ops = static_cast<int64_t>(dims.size());
  k.run = [=](const Operand*, const Operand* out) {
    if (!dims.empty()) std::memcpy(out[0].data, dims.data(), dims.size() * 4);
  };
  return k;
}

namespace {

// PACK and UNPACK: `count` slices of `outer` x `copy` elements interleaved along `axis`.
struct Interleave {
  int64_t count = 0, outer = 0, copy_bytes = 0;
};
Interleave interleave(const KernelContext& c, const std::vector<int64_t>& whole, int64_t axis, int64_t count, int width) {
  Interleave s;
  s.count = count;
  s.outer = product(c, whole, 0, static_cast<size_t>(axis));
  s.copy_bytes = product(c, whole, static_cast<size_t>(axis) + 1, whole.size()) * width;
  c.require(whole[axis] == count, "the packed axis does not match the number of slices");
  return s;
}

}  // namespace

namespace {

// PACK (many slices into `whole`) or UNPACK (`whole` into many): the slices' types and sizes
// checked against the whole tensor, the copy in TFLM's order.
ModelKernel interleave_kernel(const KernelContext& c, bool pack) {
  const char* op = pack ? "pack" : "unpack";
  const size_t slices = pack ? c.inputs() : c.outputs();
  const Tensor& whole = pack ? c.out(0) : c.in(0);
  c.require(one_of(whole, {DType::kFloat32, DType::kInt8, DType::kInt16, DType::kInt32}) || (pack && c.is(whole, DType::kInt64)),
            pack ? "pack runs float32, int8, int16, int32 or int64 (TFLM)" : "unpack runs float32, int8, int16 or int32 (TFLM)");
  const auto d = c.dims(whole);
  const int64_t count = c.attr(pack ? "values_count" : "num", static_cast<int64_t>(slices));
  c.require(count == static_cast<int64_t>(slices) && count >= 1, std::string(op) + "'s count is not its number of slices");
  const int64_t axis = normalized_axis(c, c.attr("axis", 0), static_cast<int64_t>(d.size()));
  const int width = dtype_width(*whole.dtype);
  const Interleave s = interleave(c, d, axis, count, width);
  for (size_t i = 0; i < slices; ++i) {
    const Tensor& t = pack ? c.in(i) : c.out(i);
    c.require(t.dtype == whole.dtype, std::string(op) + " slice types differ from the whole");
    c.require(c.count(t) * width == s.outer * s.copy_bytes, std::string(op) + ": a slice has the wrong size");
  }
  ModelKernel k{pack ? "pack" : "unpack"};
  k.work.alu_ops = c.count(whole);
  k.run = [=](const Operand* in, const Operand* out) {
    for (int64_t i = 0; i < s.count; ++i)
      for (int64_t o = 0; o < s.outer; ++o) {
        uint8_t* joined = (pack ? out[0].data : in[0].data) + static_cast<size_t>((o * s.count + i) * s.copy_bytes);
        uint8_t* part = (pack ? in[i].data : out[i].data) + static_cast<size_t>(o * s.copy_bytes);
        if (pack) std::memcpy(joined, part, static_cast<size_t>(s.copy_bytes));
        else std::memcpy(part, joined, static_cast<size_t>(s.copy_bytes));
      }
  };
  return k;
}

}  // namespace

ModelKernel prepare_pack(const KernelContext& c) { return interleave_kernel(c, true); }
ModelKernel prepare_unpack(const KernelContext& c) { return interleave_kernel(c, false); }

ModelKernel prepare_zeros_like(const KernelContext& c) {
  c.require(c.inputs() == 1 && c.outputs() == 1, "zeros_like expects one input and one output");
  const Tensor &xt = c.in(0), &yt = c.out(0);
  c.require(xt.dtype == yt.dtype && one_of(xt, {DType::kInt64, DType::kInt32, DType::kInt8, DType::kFloat32}),
            "zeros_like runs int64, int32, int8 or float32 (TFLM)");
  c.require(c.count(xt) == c.count(yt), "zeros_like input and output sizes differ");
  const size_t bytes = static_cast<size_t>(c.count(yt) * dtype_width(*yt.dtype));
  ModelKernel k{"zeros_like"};
  k.work.alu_ops = c.count(yt);
  k.run = [=](const Operand*, const Operand* out) { std::memset(out[0].data, 0, bytes); };
  return k;
}

ModelKernel prepare_broadcast_to(const KernelContext& c) {
  c.require(c.inputs() == 2 && c.outputs() == 1, "broadcast_to expects an input and a shape");
  const Tensor &xt = c.in(0), &yt = c.out(0);
  c.require(xt.dtype == yt.dtype, "broadcast_to input and output types differ");
  const auto x = c.dims(xt), y = c.dims(yt);
  c.require(y.size() <= 5 && x.size() <= y.size(), "broadcast_to runs up to 5 dims (TFLM)");
  c.require(c.const_ints(c.in(1)) == y, "broadcast_to's shape does not match its output");
  const Broadcast2 bc = make_broadcast(c, x, x, y);
  const size_t w = static_cast<size_t>(dtype_width(*yt.dtype));
  ModelKernel k{"broadcast_to"};
  k.work.alu_ops = c.count(yt);
  k.run = [=](const Operand* in, const Operand* out) {
    bc.each([&](int64_t i, int64_t ia, int64_t) {
      std::memcpy(out[0].data + static_cast<size_t>(i) * w, in[0].data + static_cast<size_t>(ia) * w, w);
    });
  };
  return k;
}

ModelKernel prepare_select_v2(const KernelContext& c) {
  c.require(c.inputs() == 3 && c.outputs() == 1, "select_v2 expects a condition and two values");
  const Tensor &ct = c.in(0), &xt = c.in(1), &yt = c.in(2), &ot = c.out(0);
  c.require(c.is(ct, DType::kBool), "select_v2's condition must be bool (TFLM)");
  c.require(xt.dtype == yt.dtype && xt.dtype == ot.dtype && one_of(xt, {DType::kFloat32, DType::kInt8, DType::kInt16}),
            "select_v2 runs float32, int8 or int16 (TFLM)");
  const auto out = c.dims(ot);
  c.require(out.size() <= 5, "select_v2 broadcasts up to 5 dims (TFLM)");
  // Three operands onto one shape: the condition and x in one walk, y's indices kept beside it.
  const Broadcast2 cx = make_broadcast(c, c.dims(ct), c.dims(xt), out);
  const Broadcast2 yy = make_broadcast(c, c.dims(yt), c.dims(yt), out);
  std::vector<int64_t> y_at;
  yy.each([&](int64_t, int64_t iy, int64_t) { y_at.push_back(iy); });
  const size_t w = static_cast<size_t>(dtype_width(*ot.dtype));
  ModelKernel k{"select_v2"};
  k.work.alu_ops = static_cast<int64_t>(y_at.size());
  k.run = [=](const Operand* in, const Operand* o) {
    cx.each([&](int64_t i, int64_t ic, int64_t ix) {
      const uint8_t* src = in[0].data[ic] ? in[1].data + static_cast<size_t>(ix) * w : in[2].data + static_cast<size_t>(y_at[i]) * w;
      std::memcpy(o[0].data + static_cast<size_t>(i) * w, src, w);
    });
  };
  return k;
}

// Each output coordinate reads the input coordinate TFLM's GetInputDimension gives: inside, the
// same; in the padding, mirrored about the edge (REFLECT leaves the edge out, SYMMETRIC repeats it).
ModelKernel prepare_mirror_pad(const KernelContext& c) {
  c.require(c.inputs() == 2 && c.outputs() == 1, "mirror_pad expects an input and its paddings");
  const Tensor &xt = c.in(0), &yt = c.out(0);
  c.require(xt.dtype == yt.dtype && one_of(xt, {DType::kFloat32, DType::kInt8}), "mirror_pad runs float32 or int8 (TFLM)");
  const auto x = c.dims(xt), y = c.dims(yt);
  const auto pads = c.const_ints(c.in(1));
  c.require(x.size() == y.size() && x.size() <= 8 && pads.size() == 2 * x.size(), "mirror_pad's paddings do not match the input's rank");
  const int64_t offset = c.attr("reflect", 0) ? 1 : 0;
  std::vector<std::vector<int64_t>> source(x.size());
  for (size_t d = 0; d < x.size(); ++d) {
    const int64_t left = pads[2 * d], right = pads[2 * d + 1];
    c.require(left >= 0 && right >= 0 && left + x[d] + right == y[d] && left <= x[d] - offset && right <= x[d] - offset,
              "mirror_pad's paddings do not fit dim " + std::to_string(d));
    for (int64_t o = 0; o < y[d]; ++o) {
      int64_t at = o - left;
      if (o < left) at = left + offset - 1 - std::min(o, left - 1) ;
      else if (at >= x[d]) at = x[d] - 1 - offset - std::min(at - x[d], x[d] - 1 - offset);
      source[d].push_back(at);
    }
  }
  std::vector<int64_t> in_stride(x.size(), 1);
  for (size_t d = x.size(); d-- > 1;) in_stride[d - 1] = in_stride[d] * x[d];
  const size_t w = static_cast<size_t>(dtype_width(*xt.dtype));
  const int64_t n = c.count(yt);
  ModelKernel k{"mirror_pad"};
  k.work.alu_ops = n;
  k.run = [=](const Operand* in, const Operand* out) {
    const size_t rank = y.size();
    int64_t idx[8] = {0};
    for (int64_t i = 0; i < n; ++i) {
      int64_t from = 0;
      for (size_t d = 0; d < rank; ++d) from += source[d][static_cast<size_t>(idx[d])] * in_stride[d];
      std::memcpy(out[0].data + static_cast<size_t>(i) * w, in[0].data + static_cast<size_t>(from) * w, w);
      for (size_t d = rank; d-- > 0;) {
        if (++idx[d] < y[d]) break;
        idx[d] = 0;
      }
    }
  };
  return k;
}

namespace {

// SPACE_TO_BATCH_ND and BATCH_TO_SPACE_ND over [batch, height, width, depth] (a 3-D tensor is one
// column wide): the batched tensor's batch b holds the spatial shift (b / batch) of the other's
// batch (b % batch), on a grid of block_h x block_w, offset by the padding (or crop) before.
struct BatchGrid {
  int64_t batch = 0, h = 0, w = 0, depth = 0;  // the spatial tensor
  int64_t bbatch = 0, bh = 0, bw = 0;           // the batched tensor
  int64_t block_h = 1, block_w = 1, top = 0, left = 0;
  // visit(spatial element, batched element) for each spatial position the batched tensor holds,
  // or visit(-1, batched element) where it holds padding.
  template <class F>
  void each(F&& visit) const {
    for (int64_t ob = 0; ob < bbatch; ++ob) {
      const int64_t b = ob % batch, shift_w = (ob / batch) % block_w, shift_h = (ob / batch) / block_w;
      for (int64_t oy = 0; oy < bh; ++oy)
        for (int64_t ox = 0; ox < bw; ++ox) {
          const int64_t y = oy * block_h + shift_h - top, x = ox * block_w + shift_w - left;
          const int64_t at = ((ob * bh + oy) * bw + ox) * depth;
          visit(y < 0 || y >= h || x < 0 || x >= w ? -1 : ((b * h + y) * w + x) * depth, at);
        }
    }
  }
};

ModelKernel batch_grid_kernel(const KernelContext& c, bool to_batch) {
  const char* kind = to_batch ? "space_to_batch_nd" : "batch_to_space_nd";
  c.require(c.inputs() == 3 && c.outputs() == 1, std::string(kind) + " expects an input, the block shape and the paddings");
  const Tensor &xt = c.in(0), &yt = c.out(0);
  c.require(xt.dtype == yt.dtype && one_of(xt, {DType::kFloat32, DType::kInt8}), std::string(kind) + " runs float32 or int8 (TFLM)");
  auto spatial = c.dims(to_batch ? xt : yt), batched = c.dims(to_batch ? yt : xt);
  c.require(spatial.size() == batched.size() && (spatial.size() == 3 || spatial.size() == 4), std::string(kind) + " runs 3-D or 4-D tensors (TFLM)");
  const bool four = spatial.size() == 4;
  const auto block = c.const_ints(c.in(1)), pads = c.const_ints(c.in(2));
  c.require(block.size() == (four ? 2u : 1u) && pads.size() == (four ? 4u : 2u), std::string(kind) + "'s block shape or paddings have the wrong size");
  if (!four) spatial.insert(spatial.begin() + 2, 1), batched.insert(batched.begin() + 2, 1);
  BatchGrid g;
  g.batch = spatial[0], g.h = spatial[1], g.w = spatial[2], g.depth = spatial[3];
  g.bbatch = batched[0], g.bh = batched[1], g.bw = batched[2];
  g.block_h = block[0], g.block_w = four ? block[1] : 1, g.top = pads[0], g.left = four ? pads[2] : 0;
  const int64_t bottom = pads[1], right = four ? pads[3] : 0;
  c.require(g.block_h >= 1 && g.block_w >= 1 && g.top >= 0 && g.left >= 0 && bottom >= 0 && right >= 0, std::string(kind) + ": negative block or padding");
  c.require(batched[3] == g.depth && g.bbatch == g.batch * g.block_h * g.block_w && g.bh * g.block_h == g.top + g.h + bottom &&
                g.bw * g.block_w == g.left + g.w + right,
            std::string(kind) + "'s shapes do not match its block shape and paddings");
  const size_t w = static_cast<size_t>(dtype_width(*xt.dtype));
  const size_t pixel = static_cast<size_t>(g.depth) * w;
  ModelKernel k{to_batch ? "space_to_batch_nd" : "batch_to_space_nd"};
  k.work.alu_ops = c.count(yt);
  k.run = [=](const Operand* in, const Operand* out) {
    g.each([&](int64_t at, int64_t bat) {
      uint8_t* batched_px = (to_batch ? out[0].data : in[0].data) + static_cast<size_t>(bat) * w;
      if (to_batch) {
        // TFLM pads with its OpData's output_offset, which its Prepare never sets: the zero of a
        // zero-initialised arena, not the zero point.
        if (at < 0) std::memset(batched_px, 0, pixel);
        else std::memcpy(batched_px, in[0].data + static_cast<size_t>(at) * w, pixel);
      } else if (at >= 0) {
        std::memcpy(out[0].data + static_cast<size_t>(at) * w, batched_px, pixel);
      }
    });
  };
  return k;
}

}  // namespace

ModelKernel prepare_space_to_batch_nd(const KernelContext& c) { return batch_grid_kernel(c, true); }
ModelKernel prepare_batch_to_space_nd(const KernelContext& c) { return batch_grid_kernel(c, false); }

// GATHER_ND: each row of the last indices dim picks a slice of params (its first `nd` dims
// indexed, the rest copied). A slice outside params fails TFLM's Invoke; here it gives zeros.
ModelKernel prepare_gather_nd(const KernelContext& c) {
  c.require(c.inputs() == 2 && c.outputs() == 1, "gather_nd expects params, indices and one output");
  const Tensor &pt = c.in(0), &it = c.in(1), &yt = c.out(0);
  c.require((c.is(pt, DType::kInt8) || c.is(pt, DType::kFloat32)) && yt.dtype == pt.dtype,
            "gather_nd runs int8 or float32 params (TFLM)");
  c.require(c.is(it, DType::kInt32), "gather_nd takes int32 indices (TFLM)");
  const auto p = c.dims(pt), idx = c.dims(it);
  const int64_t nd = idx.back();
  c.require(nd >= 1 && nd <= static_cast<int64_t>(p.size()) && nd <= 5, "gather_nd's index depth must be 1..min(rank, 5) (TFLM)");
  std::vector<int64_t> expect(idx.begin(), idx.end() - 1);
  expect.insert(expect.end(), p.begin() + nd, p.end());
  if (expect.empty()) expect.push_back(1);  // a scalar output is stored as one element
  auto y = c.dims(yt);
  c.require(y == expect, "gather_nd's output shape is not indices' outer dims then params' inner dims");
  int64_t slices = 1, slice = 1;
  for (size_t d = 0; d + 1 < idx.size(); ++d) slices *= idx[d];
  for (size_t d = static_cast<size_t>(nd); d < p.size(); ++d) slice *= p[d];
  std::vector<int64_t> stride(static_cast<size_t>(nd));  // elements per step of each indexed dim
  int64_t remaining = c.count(pt);
  for (int64_t d = 0; d < nd; ++d) stride[d] = remaining /= p[d];
  const int64_t total = c.count(pt), width = dtype_width(*pt.dtype);
  ModelKernel k{c.is(pt, DType::kInt8) ? "gather_nd int8" : "gather_nd float32"};
  k.work.alu_ops = slices * slice;
  k.run = [=](const Operand* in, const Operand* out) {
    const int32_t* index = as<int32_t>(in[1]);
    for (int64_t s = 0; s < slices; ++s) {
      int64_t from = 0;
      for (int64_t d = 0; d < nd; ++d) from += int64_t{index[s * nd + d]} * stride[d];
      uint8_t* to = out[0].data + s * slice * width;
      if (from < 0 || from + slice > total) std::memset(to, 0, static_cast<size_t>(slice * width));
      else std::memcpy(to, in[0].data + from * width, static_cast<size_t>(slice * width));
    }
  };
  return k;
}

// EMBEDDING_LOOKUP: row ids (int32, 1-D) pick rows of the value table. float32 and int8 tables
// are copied; an int8 table into a float32 output is dequantized (zero point 0) as TFLM's hybrid
// path does. A row id outside the table fails TFLM's Invoke; here its row is zeros.
ModelKernel prepare_embedding_lookup(const KernelContext& c) {
  c.require(c.inputs() == 2 && c.outputs() == 1, "embedding_lookup expects row ids, a table and one output");
  const Tensor &it = c.in(0), &vt = c.in(1), &yt = c.out(0);
  c.require(c.is(it, DType::kInt32) && c.dims(it).size() == 1, "embedding_lookup takes 1-D int32 row ids (TFLM)");
  const auto v = c.dims(vt);
  c.require(v.size() >= 2, "embedding_lookup's table must have 2 or more dims (TFLM)");
  const int64_t ids = c.dims(it)[0], rows = v[0], columns = c.count(vt) / std::max<int64_t>(rows, 1);
  std::vector<int64_t> expect = v;
  expect[0] = ids;
  c.require(c.dims(yt) == expect, "embedding_lookup's output is not [ids, table's row shape]");
  const bool hybrid = c.is(vt, DType::kInt8) && c.is(yt, DType::kFloat32);
  c.require(hybrid || ((c.is(vt, DType::kFloat32) || c.is(vt, DType::kInt8)) && yt.dtype == vt.dtype),
            "embedding_lookup runs float32 or int8 tables into their own type, or int8 into float32 (TFLM)");
  ModelKernel k{hybrid ? "embedding_lookup int8->float32" : c.is(vt, DType::kInt8) ? "embedding_lookup int8" : "embedding_lookup float32"};
  k.work.alu_ops = ids * columns;
  if (hybrid) {
    c.require(c.zero_point(vt) == 0, "embedding_lookup's int8 table into float32 needs zero point 0 (TFLM)");
    const float scale = c.scale(vt);
    k.run = [=](const Operand* in, const Operand* out) {
      const int32_t* id = as<int32_t>(in[0]);
      const int8_t* table = as<int8_t>(in[1]);
      float* y = as_mut<float>(out[0]);
      for (int64_t i = 0; i < ids; ++i)
        for (int64_t j = 0; j < columns; ++j)
          y[i * columns + j] = id[i] < 0 || id[i] >= rows ? 0.f : scale * static_cast<float>(table[id[i] * columns + j]);
    };
    return k;
  }
  const int64_t row_bytes = columns * dtype_width(*vt.dtype);
  k.run = [=](const Operand* in, const Operand* out) {
    const int32_t* id = as<int32_t>(in[0]);
    for (int64_t i = 0; i < ids; ++i) {
      uint8_t* to = out[0].data + i * row_bytes;
      if (id[i] < 0 || id[i] >= rows) std::memset(to, 0, static_cast<size_t>(row_bytes));
      else std::memcpy(to, in[1].data + id[i] * row_bytes, static_cast<size_t>(row_bytes));
    }
  };
  return k;
}

// DYNAMIC_UPDATE_SLICE: the operand with `update` written at the start indices (int32 or int64,
// read at run time), each clamped so the update fits, as TFLM clamps them.
ModelKernel prepare_dynamic_update_slice(const KernelContext& c) {
  c.require(c.inputs() == 3 && c.outputs() == 1, "dynamic_update_slice expects an operand, an update, start indices and one output");
  const Tensor &xt = c.in(0), &ut = c.in(1), &st = c.in(2), &yt = c.out(0);
  const auto x = c.dims(xt), u = c.dims(ut);
  c.require(ut.dtype == xt.dtype && yt.dtype == xt.dtype && c.dims(yt) == x, "dynamic_update_slice's update and output must have the operand's type (and the output its shape)");
  c.require(c.is(xt, DType::kFloat32) || c.is(xt, DType::kInt8) || c.is(xt, DType::kInt16) || c.is(xt, DType::kInt32),
            "dynamic_update_slice runs float32, int8, int16 or int32 (TFLM)");
  c.require(c.is(st, DType::kInt32) || c.is(st, DType::kInt64), "dynamic_update_slice takes int32 or int64 start indices (TFLM)");
  const size_t rank = x.size();
  c.require(u.size() == rank && c.dims(st).size() == 1 && c.dims(st)[0] == static_cast<int64_t>(rank),
            "dynamic_update_slice needs one start index per operand dim (TFLM)");
  for (size_t d = 0; d < rank; ++d) c.require(u[d] <= x[d], "dynamic_update_slice's update is larger than the operand (TFLM)");
  const int64_t width = dtype_width(*xt.dtype), total = c.count(xt) * width, update_count = c.count(ut);
  const bool wide_indices = c.is(st, DType::kInt64);
  ModelKernel k{"dynamic_update_slice"};
  k.work.alu_ops = c.count(xt);
  k.run = [=](const Operand* in, const Operand* out) {
    if (in[0].data != out[0].data) std::memcpy(out[0].data, in[0].data, static_cast<size_t>(total));
    if (update_count == 0) return;
    std::vector<int64_t> start(rank);  // clamped into [0, operand - update]
    for (size_t d = 0; d < rank; ++d) {
      const int64_t raw = wide_indices ? as<int64_t>(in[2])[d] : int64_t{as<int32_t>(in[2])[d]};
      start[d] = std::min(std::max<int64_t>(0, raw), x[d] - u[d]);
    }
    // Each run of the update's last dim lands at the operand index of its first element.
    const int64_t run = u[rank - 1] * width;
    for (int64_t first = 0; first < update_count; first += u[rank - 1]) {
      int64_t rest = first, at = 0, stride = 1;
      for (size_t d = rank; d-- > 0;) {
        at += (start[d] + rest % u[d]) * stride;
        rest /= u[d];
        stride *= x[d];
      }
      std::memcpy(out[0].data + at * width, in[1].data + first * width, static_cast<size_t>(run));
    }
  };
  return k;
}

}  // namespace arenaplan::sim
