// Model kernels that move bytes without arithmetic: RESHAPE (SQUEEZE, EXPAND_DIMS),
// CONCATENATION, SPLIT / SPLIT_V, PAD / PADV2, TRANSPOSE, STRIDED_SLICE, SLICE, REVERSE_V2,
// BROADCAST_ARGS. They work on
// elements of any width.
#include <algorithm>
#include <cstring>

#include "core/sim/detail/model_kernels.h"

namespace arenaplan::sim {

namespace {

int width_of(const KernelContext& c, const Tensor& t) {
  c.require(t.dtype.has_value(), "tensor " + t.name + " has no type");
  return dtype_width(*t.dtype);
}

void require_same_type(const KernelContext& c, const Tensor& a, const Tensor& b) {
  c.require(a.dtype == b.dtype, "tensors " + a.name + " and " + b.name + " differ in type");
  if (a.quant && b.quant && !a.quant->per_channel() && !b.quant->per_channel())
    c.require(a.quant->scale[0] == b.quant->scale[0] && a.quant->zero_point[0] == b.quant->zero_point[0],
              "tensors " + a.name + " and " + b.name + " differ in quantization (TFLM requires them equal)");
}

// Row-major strides in elements.
std::vector<int64_t> strides_of(const std::vector<int64_t>& d) {
  std::vector<int64_t> s(d.size(), 1);
  for (size_t i = d.size(); i-- > 1;) s[i - 1] = s[i] * d[i];
  return s;
}

// Steps a row-major multi-index idx[0..rank) over dims: the last dim fastest, carrying into the
// ones before (the walk of the element-by-element kernels).
template <class Dims>
inline void next_index(int64_t* idx, const Dims& dims, size_t rank) {
  for (size_t d = rank; d-- > 0;) {
    if (++idx[d] < dims[d]) return;
    idx[d] = 0;
  }
}

// STRIDED_SLICE and SLICE: output element idx (row-major over `count`) is input element
// start + idx * step per dim; `xs` the input's strides, `w` the element width. At most 8 dims.
ModelKernel copy_box(const char* name, std::vector<int64_t> xs, int w, std::vector<int64_t> start, std::vector<int64_t> step,
                     std::vector<int64_t> count) {
  const size_t rank = count.size();
  int64_t total = 1;
  for (int64_t n : count) total *= n;
  ModelKernel k{name};
  k.work.alu_ops = total;
  k.run = [=](const Operand* in, const Operand* out) {
    int64_t idx[8] = {0};
    for (int64_t i = 0; i < total; ++i) {
      int64_t src = 0;
      for (size_t d = 0; d < rank; ++d) src += (start[d] + idx[d] * step[d]) * xs[d];
      std::memcpy(out[0].data + i * w, in[0].data + src * w, static_cast<size_t>(w));
      next_index(idx, count, rank);
    }
  };
  return k;
}

// The pieces of a CONCATENATION or SPLIT: `whole` cut along `axis` into `parts` of its type and
// quantization, equal to it but along the axis, adding up to it there. Bytes of each part per
// step of the dims before the axis (`outer` steps). `part_role` / `whole_role` name them in refusals.
struct AxisParts {
  int64_t outer = 1;
  std::vector<int64_t> chunk;
};
AxisParts parts_along_axis(const KernelContext& c, const Tensor& whole, int64_t axis, const std::vector<const Tensor*>& parts,
                           const std::string& part_role, const std::string& whole_role) {
  const auto x = c.dims(whole);
  const int64_t rank = static_cast<int64_t>(x.size());
  AxisParts r;
  int64_t inner = width_of(c, whole), sum = 0;
  for (int64_t i = 0; i < axis; ++i) r.outer *= x[i];
  for (int64_t i = axis + 1; i < rank; ++i) inner *= x[i];
  for (const Tensor* t : parts) {
    require_same_type(c, *t, whole);
    const auto d = c.dims(*t);
    bool ok = static_cast<int64_t>(d.size()) == rank;
    for (int64_t k = 0; ok && k < rank; ++k) ok = k == axis || d[k] == x[k];
    c.require(ok, part_role + " " + t->name + " does not match the " + whole_role + " but along the axis");
    r.chunk.push_back(d[axis] * inner);
    sum += d[axis];
  }
  c.require(sum == x[axis], part_role + "s do not add up to the " + whole_role + " along the axis");
  return r;
}

// SPLIT / SPLIT_V as TFLM runs them: the axis from a constant operand, each output's share of it
// from the output's own shape (TFLM reads neither num_splits nor size_splits at run time).
ModelKernel split_along(const KernelContext& c, const Tensor& xt, const Tensor& axis_t) {
  const auto x = c.dims(xt);
  const int64_t rank = static_cast<int64_t>(x.size());
  const auto axis_values = c.const_ints(axis_t);
  c.require(axis_values.size() == 1, "the axis operand must hold one value");
  int64_t axis = axis_values[0];
  if (axis < 0) axis += rank;
  c.require(axis >= 0 && axis < rank, "axis " + std::to_string(axis_values[0]) + " out of range");
  std::vector<const Tensor*> parts;
  for (size_t i = 0; i < c.outputs(); ++i) parts.push_back(&c.out(i));
  const AxisParts p = parts_along_axis(c, xt, axis, parts, "output", "input");
  const int64_t outer = p.outer;
  const std::vector<int64_t> chunk = p.chunk;
  c.require(c.attr("num_splits", static_cast<int64_t>(c.outputs())) == static_cast<int64_t>(c.outputs()),
            "num_splits differs from the number of outputs");
  ModelKernel k{"split"};
  k.work.alu_ops = xt.bytes;
  k.run = [=](const Operand* in, const Operand* out) {
    const uint8_t* src = in[0].data;
    for (int64_t o = 0; o < outer; ++o)
      for (size_t i = 0; i < chunk.size(); ++i) {
        std::memcpy(out[i].data + o * chunk[i], src, static_cast<size_t>(chunk[i]));
        src += chunk[i];
      }
  };
  return k;
}

}  // namespace

ModelKernel prepare_split(const KernelContext& c) {
  // Inputs: axis, then the tensor.
  c.require(c.inputs() == 2, "split expects an axis and an input");
  ModelKernel k = split_along(c, c.in(1), c.in(0));
  // The input's bytes are operand 1: shift the operands so the copy loop reads in[0].
  auto run = std::move(k.run);
  k.run = [run](const Operand* in, const Operand* out) { run(in + 1, out); };
  return k;
}

ModelKernel prepare_split_v(const KernelContext& c) {
  // Inputs: the tensor, size_splits, axis. The sizes must agree with the outputs (one -1 takes the rest).
  c.require(c.inputs() == 3, "split_v expects an input, size_splits and an axis");
  ModelKernel k = split_along(c, c.in(0), c.in(2));
  const auto sizes = c.const_ints(c.in(1));
  c.require(sizes.size() == c.outputs(), "size_splits lists " + std::to_string(sizes.size()) + " sizes for " +
                                             std::to_string(c.outputs()) + " outputs");
  return k;
}

ModelKernel prepare_reshape(const KernelContext& c) {
  const Tensor &xt = c.in(0), &yt = c.out(0);
  require_same_type(c, xt, yt);
  c.require(xt.bytes == yt.bytes && c.count(xt) == c.count(yt), "input and output sizes differ");
  const int64_t bytes = yt.bytes;
  ModelKernel k{"reshape (copy)"};
  k.work.alu_ops = bytes;
  k.run = [=](const Operand* in, const Operand* out) {
    if (out[0].data != in[0].data) std::memmove(out[0].data, in[0].data, static_cast<size_t>(bytes));
  };
  return k;
}

ModelKernel prepare_concatenation(const KernelContext& c) {
  const Tensor& yt = c.out(0);
  const auto y = c.dims(yt);
  const int64_t rank = static_cast<int64_t>(y.size());
  int64_t axis = c.attr("axis", 0);
  if (axis < 0) axis += rank;
  c.require(axis >= 0 && axis < rank, "axis out of range");
  std::vector<const Tensor*> parts;
  for (size_t i = 0; i < c.inputs(); ++i) parts.push_back(&c.in(i));
  const AxisParts p = parts_along_axis(c, yt, axis, parts, "input", "output");
  const int64_t outer = p.outer;
  const std::vector<int64_t> chunk = p.chunk;
  c.require(c.attr("activation", 0) == 0, "a fused activation on concatenation is not supported");
  ModelKernel k{"concatenation"};
  k.work.alu_ops = yt.bytes;
  const size_t n = chunk.size();
  k.run = [=](const Operand* in, const Operand* out) {
    concat_parts(outer, n, [&](size_t i) { return in[i].data; }, chunk.data(), out[0].data);
  };
  return k;
}

ModelKernel prepare_pad(const KernelContext& c) {
  const Tensor &xt = c.in(0), &yt = c.out(0);
  require_same_type(c, xt, yt);
  const auto x = c.dims(xt), y = c.dims(yt);
  const auto pads = c.const_ints(c.in(1));
  const size_t rank = x.size();
  c.require(y.size() == rank && pads.size() == 2 * rank && rank <= 8, "paddings must be [rank, 2]");
  for (size_t d = 0; d < rank; ++d)
    c.require(pads[2 * d] >= 0 && pads[2 * d + 1] >= 0 && x[d] + pads[2 * d] + pads[2 * d + 1] == y[d],
              "paddings do not give the output shape");
  const int w = width_of(c, yt);
  // The fill: PADV2's constant, else the output's zero point (int8) or 0.
  std::vector<uint8_t> fill(static_cast<size_t>(w), 0);
  if (c.inputs() > 2) {
    const Tensor& v = c.in(2);
    c.require(v.constant && v.data && v.data->size() >= static_cast<size_t>(w) && v.dtype == yt.dtype,
              "constant_values must be constant data of the output type");
    std::memcpy(fill.data(), v.data->data(), static_cast<size_t>(w));
  } else if (yt.dtype == DType::kInt8 && yt.quant) {
    fill[0] = static_cast<uint8_t>(static_cast<int8_t>(c.zero_point(yt)));
  }
  const auto xs = strides_of(x);
  const int64_t total = c.count(yt);
  ModelKernel k{"pad"};
  k.work.alu_ops = total;
  k.run = [=](const Operand* in, const Operand* out) {
    int64_t idx[8] = {0};
    for (int64_t i = 0; i < total; ++i) {
      int64_t src = 0;
      bool inside = true;
      for (size_t d = 0; d < rank; ++d) {
        const int64_t v = idx[d] - pads[2 * d];
        if (v < 0 || v >= x[d]) inside = false;
        src += v * xs[d];
      }
      std::memcpy(out[0].data + i * w, inside ? in[0].data + src * w : fill.data(), static_cast<size_t>(w));
      next_index(idx, y, rank);
    }
  };
  return k;
}

ModelKernel prepare_transpose(const KernelContext& c) {
  const Tensor &xt = c.in(0), &yt = c.out(0);
  require_same_type(c, xt, yt);
  const auto x = c.dims(xt), y = c.dims(yt);
  const auto perm = c.const_ints(c.in(1));
  const size_t rank = x.size();
  c.require(perm.size() == rank && y.size() == rank && rank <= 8, "perm must list every dim");
  std::vector<bool> seen(rank, false);
  for (size_t d = 0; d < rank; ++d) {
    c.require(perm[d] >= 0 && perm[d] < static_cast<int64_t>(rank) && !seen[perm[d]] && y[d] == x[perm[d]],
              "perm does not map the input shape onto the output shape");
    seen[perm[d]] = true;
  }
  const auto xs = strides_of(x);
  std::vector<int64_t> step(rank);  // input stride of each output dim
  for (size_t d = 0; d < rank; ++d) step[d] = xs[perm[d]];
  const int w = width_of(c, yt);
  const int64_t total = c.count(yt);
  ModelKernel k{"transpose"};
  k.work.alu_ops = total;
  k.run = [=](const Operand* in, const Operand* out) {
    int64_t idx[8] = {0}, src = 0;
    for (int64_t i = 0; i < total; ++i) {
      std::memcpy(out[0].data + i * w, in[0].data + src * w, static_cast<size_t>(w));
      for (size_t d = rank; d-- > 0;) {
        src += step[d];
        if (++idx[d] < y[d]) break;
        src -= step[d] * idx[d];
        idx[d] = 0;
      }
    }
  };
  return k;
}

ModelKernel prepare_strided_slice(const KernelContext& c) {
  const Tensor &xt = c.in(0), &yt = c.out(0);
  require_same_type(c, xt, yt);
  const auto x = c.dims(xt);
  const size_t rank = x.size();
  const auto begin = c.const_ints(c.in(1)), end = c.const_ints(c.in(2));
  const auto strides = c.inputs() > 3 ? c.const_ints(c.in(3)) : std::vector<int64_t>(rank, 1);
  c.require(begin.size() == rank && end.size() == rank && strides.size() == rank && rank <= 8,
            "begin, end and strides must have one value per input dim");
  c.require(c.attr("ellipsis_mask", 0) == 0 && c.attr("new_axis_mask", 0) == 0,
            "ellipsis_mask and new_axis_mask are not supported");
  const int64_t begin_mask = c.attr("begin_mask", 0), end_mask = c.attr("end_mask", 0);
  const int64_t shrink = c.attr("shrink_axis_mask", 0);
  const bool offset = c.attr("offset", 0) != 0;
  // TFLM's StartForAxis / StopForAxis: wrap negatives, clamp to the dim, masks take the extreme.
  std::vector<int64_t> start(rank), stop(rank), count(rank);
  int64_t total = 1;
  for (size_t d = 0; d < rank; ++d) {
    const int64_t s = strides[d], dim = x[d];
    c.require(s != 0, "stride 0");
    int64_t b = begin[d];
    if (begin_mask & (int64_t{1} << d)) {
      b = s > 0 ? 0 : dim - 1;
    } else {
      if (b < 0) b += dim;
      b = s > 0 ? std::clamp<int64_t>(b, 0, dim) : std::clamp<int64_t>(b, -1, dim - 1);
    }
    int64_t e = offset ? begin[d] + end[d] : end[d];
    if (shrink & (int64_t{1} << d)) {
      e = b + 1;
    } else if (end_mask & (int64_t{1} << d)) {
      e = s > 0 ? dim : -1;
    } else {
      if (e < 0) e += dim;
      e = s > 0 ? std::clamp<int64_t>(e, 0, dim) : std::clamp<int64_t>(e, -1, dim - 1);
    }
    start[d] = b, stop[d] = e;
    count[d] = s > 0 ? std::max<int64_t>(0, (e - b + s - 1) / s) : std::max<int64_t>(0, (b - e - s - 1) / -s);
    total *= count[d];
  }
  c.require(total == c.count(yt), "the slice has " + std::to_string(total) + " elements, the output " +
                                      std::to_string(c.count(yt)));
  return copy_box("strided_slice", strides_of(x), width_of(c, yt), start, strides, count);
}

ModelKernel prepare_slice(const KernelContext& c) {
  c.require(c.inputs() == 3, "slice expects an input, begin and size");
  const Tensor &xt = c.in(0), &yt = c.out(0);
  require_same_type(c, xt, yt);
  const auto x = c.dims(xt), y = c.dims(yt);
  const size_t rank = x.size();
  const auto begin = c.const_ints(c.in(1)), size = c.const_ints(c.in(2));
  c.require(begin.size() == rank && size.size() == rank, "begin and size must have one value per input dim");
  c.require(rank <= 5, "slice runs up to 5 dims in TFLM");
  c.require(y.size() == rank, "the output rank differs from the input's");
  // TFLM's reference: size -1 takes the rest of the dim.
  std::vector<int64_t> count(rank);
  for (size_t d = 0; d < rank; ++d) {
    const int64_t stop = size[d] == -1 ? x[d] : begin[d] + size[d];
    c.require(begin[d] >= 0 && begin[d] <= stop && stop <= x[d],
              "slice [" + std::to_string(begin[d]) + ", " + std::to_string(stop) + ") is outside dim " +
                  std::to_string(d) + " of size " + std::to_string(x[d]));
    count[d] = stop - begin[d];
    c.require(count[d] == y[d], "the slice does not give the output shape along dim " + std::to_string(d));
  }
  return copy_box("slice", strides_of(x), width_of(c, yt), begin, std::vector<int64_t>(rank, 1), count);
}

// REVERSE_V2: TFLM reverses contiguous axes only; reversing axes a..b together reverses the
// flattened index over them, so each run of `lower` elements moves as one block.
ModelKernel prepare_reverse_v2(const KernelContext& c) {
  c.require(c.inputs() == 2 && c.outputs() == 1, "reverse_v2 expects an input, its axes and one output");
  const Tensor &xt = c.in(0), &yt = c.out(0);
  const auto x = c.dims(xt);
  c.require(xt.dtype == yt.dtype && c.dims(yt) == x, "reverse_v2's output must have the input's shape and type");
  c.require(c.is(c.in(1), DType::kInt32), "TFLM's reverse_v2 takes int32 axes");
  c.require(!c.is(xt, DType::kFloat16), "reverse_v2 does not run float16 (TFLM)");
  const int64_t rank = static_cast<int64_t>(x.size());
  std::vector<int64_t> axes = c.const_ints(c.in(1));
  c.require(!axes.empty() && static_cast<int64_t>(axes.size()) <= rank, "reverse_v2 needs 1 to rank axes");
  for (int64_t& a : axes) {
    if (a < 0) a += rank;
    c.require(a >= 0 && a < rank, "reverse_v2's axis is out of range");
  }
  std::sort(axes.begin(), axes.end());
  for (size_t i = 1; i < axes.size(); ++i) c.require(axes[i - 1] + 1 == axes[i], "reverse_v2's axes are not contiguous (TFLM)");
  int64_t upper = 1, middle = 1, lower = 1;
  for (int64_t d = 0; d < rank; ++d) (d < axes.front() ? upper : d > axes.back() ? lower : middle) *= x[d];
  const int64_t block = lower * width_of(c, xt);
  ModelKernel k{"reverse_v2"};
  k.work.alu_ops = c.count(xt);
  k.run = [=](const Operand* in, const Operand* out) {
    for (int64_t u = 0; u < upper; ++u)
      for (int64_t m = 0; m < middle; ++m)
        std::memcpy(out[0].data + ((u * middle + middle - 1 - m) * block), in[0].data + (u * middle + m) * block,
                    static_cast<size_t>(block));
  };
  return k;
}

// BROADCAST_ARGS: the shape two shapes broadcast to (numpy rules, right-aligned), int32 or int64,
// read at run time. Dims that do not broadcast are TFLM's undefined case; here the larger wins.
ModelKernel prepare_broadcast_args(const KernelContext& c) {
  c.require(c.inputs() == 2 && c.outputs() == 1, "broadcast_args expects two shapes and one output");
  const Tensor &at = c.in(0), &bt = c.in(1), &yt = c.out(0);
  c.require((c.is(at, DType::kInt32) || c.is(at, DType::kInt64)) && bt.dtype == at.dtype && yt.dtype == at.dtype,
            "broadcast_args runs int32 or int64 shapes of one type (TFLM)");
  c.require(c.dims(at).size() == 1 && c.dims(bt).size() == 1 && c.dims(yt).size() == 1, "broadcast_args' shapes must be 1-D (TFLM)");
  const int64_t na = c.count(at), nb = c.count(bt), ny = c.count(yt);
  c.require(ny == std::max(na, nb), "broadcast_args' output must be as long as the longer shape");
  const bool wide = c.is(at, DType::kInt64);
  ModelKernel k{wide ? "broadcast_args int64" : "broadcast_args int32"};
  k.work.alu_ops = ny;
  k.run = [=](const Operand* in, const Operand* out) {
    auto read = [&](const Operand& o, int64_t i) { return wide ? as<int64_t>(o)[i] : int64_t{as<int32_t>(o)[i]}; };
    for (int64_t i = 0; i < ny; ++i) {  // i counts from the right
      const int64_t a = i < na ? read(in[0], na - 1 - i) : 1, b = i < nb ? read(in[1], nb - 1 - i) : 1;
      const int64_t d = a == 1 ? b : b == 1 ? a : std::max(a, b);
      if (wide) as_mut<int64_t>(out[0])[ny - 1 - i] = d;
      else as_mut<int32_t>(out[0])[ny - 1 - i] = static_cast<int32_t>(d);
    }
  };
  return k;
}

}  // namespace arenaplan::sim
