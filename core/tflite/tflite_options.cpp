// flexbuffers' number accessors also parse strings, through a locale object defined in
// flatbuffers' library, which neither build links; the options read here never parse strings.
#define FLATBUFFERS_LOCALE_INDEPENDENT 0

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include <flatbuffers/flexbuffers.h>

#include "core/tflite/detail/tflite_options.h"
#include "core/tflite/tflite_ops.h"

namespace arenaplan::tflite_ops {
namespace {

// BuiltinOperator codes whose options the kernels read.
enum Code : int32_t {
  kAdd = 0, kAveragePool2d = 1, kConcatenation = 2, kDepthToSpace = 5,
  kFullyConnected = 9, kL2Pool2d = 12, kMaxPool2d = 17, kMul = 18, kResizeBilinear = 23, kSoftmax = 25, kSvdf = 27, kMean = 40,
  kSub = 41, kDiv = 42, kStridedSlice = 45, kSplit = 49, kArgMax = 56, kSum = 74, kReduceProd = 81, kReduceMax = 82,
  kReduceMin = 89, kReduceAny = 91, kResizeNearestNeighbor = 97, kLeakyRelu = 98, kSplitV = 102, kReduceAll = 140,
  kSpaceToDepth = 26, kGather = 36, kPack = 83, kUnpack = 88, kBatchMatMul = 126, kMirrorPad = 100,
  kL2Normalization = 11, kArgMin = 79, kCumsum = 128
};
// Recurrent ops.
constexpr int32_t kUnidirectionalSequenceLstm = 44;

int64_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

std::vector<int64_t> dims_of(const tfl::SubGraph* sg, const tfl::Operator* op, bool input, size_t k) {
  const auto* list = input ? op->inputs() : op->outputs();
  if (!list || k >= list->size() || !sg->tensors()) return {};
  const int32_t t = list->Get(static_cast<flatbuffers::uoffset_t>(k));
  if (t < 0 || static_cast<flatbuffers::uoffset_t>(t) >= sg->tensors()->size()) return {};
  const tfl::Tensor* tensor = sg->tensors()->Get(static_cast<flatbuffers::uoffset_t>(t));
  std::vector<int64_t> d;
  if (tensor->shape())
    for (int32_t v : *tensor->shape()) d.push_back(v);
  return d;
}

template <class T>
const T* options_as(const tfl::Operator* op, flatbuffers::Verifier& v, const std::string& where) {
  if (!op->builtin_options()) return nullptr;
  const T* t = reinterpret_cast<const T*>(op->builtin_options());
  if (!t->Verify(v)) throw InputError(where, "malformed builtin options table");
  return t;
}

// Window geometry of conv / depthwise / pool: strides, dilation and TFLM's explicit padding.
void window_attrs(bool same, int64_t stride_h, int64_t stride_w, int64_t dil_h, int64_t dil_w, int64_t kh,
                  int64_t kw, const std::vector<int64_t>& in, const std::string& where, Op& out) {
  if (stride_h < 1 || stride_w < 1 || dil_h < 1 || dil_w < 1)
    throw InputError(where, "strides and dilation factors must be >= 1");
  out.attrs["stride_h"] = stride_h;
  out.attrs["stride_w"] = stride_w;
  out.attrs["dilation_h"] = dil_h;
  out.attrs["dilation_w"] = dil_w;
  out.attrs["padding_same"] = same ? 1 : 0;
  if (in.size() != 4 || kh < 1 || kw < 1) return;  // the kernel refuses it later, naming the op
  const PaddedDim h = tflite_padding(same, in[1], kh, stride_h, dil_h);
  const PaddedDim w = tflite_padding(same, in[2], kw, stride_w, dil_w);
  out.attrs["pad_h"] = h.before;
  out.attrs["pad_bottom"] = h.after;
  out.attrs["pad_w"] = w.before;
  out.attrs["pad_right"] = w.after;
}

}  // namespace

PaddedDim tflite_padding(bool same, int64_t in, int64_t filter, int64_t stride, int64_t dilation) {
  PaddedDim p;
  const int64_t effective = (filter - 1) * dilation + 1;
  p.out = same ? (in + stride - 1) / stride : std::max<int64_t>(0, (in + stride - effective) / stride);
  const int64_t total = std::max<int64_t>(0, (p.out - 1) * stride + effective - in);
  p.before = total / 2;
  p.after = total - p.before;
  return p;
}

namespace {

// A custom op's options (a flexbuffer map, as TFLM's Signal ops keep them): its integer and
// boolean values as attrs under their keys. A buffer the flexbuffer verifier refuses, or one that
// is not a map, gives none (the kernel then refuses the op for a missing option).
void read_custom_attrs(const tfl::Operator* op, Op& out) {
  const auto* bytes = op->custom_options();
  if (!bytes || bytes->size() == 0 || !flexbuffers::VerifyBuffer(bytes->data(), bytes->size())) return;
  const flexbuffers::Reference root = flexbuffers::GetRoot(bytes->data(), bytes->size());
  if (!root.IsMap()) return;
  const flexbuffers::Map map = root.AsMap();
  const flexbuffers::TypedVector keys = map.Keys();
  const flexbuffers::Vector values = map.Values();
  for (size_t i = 0; i < keys.size() && i < values.size(); ++i) {
    const flexbuffers::Reference v = values[i];
    if (v.IsBool()) out.attrs[keys[i].AsKey()] = v.AsBool() ? 1 : 0;
    else if (v.IsInt() || v.IsUInt()) out.attrs[keys[i].AsKey()] = v.AsInt64();
  }
}

}  // namespace

void read_operator_attrs(int32_t builtin, const tfl::Operator* op, const tfl::SubGraph* sg,
                         flatbuffers::Verifier& v, const std::string& where, Op& out) {
  auto activation = [&](int8_t a) { out.attrs["activation"] = a; };
  if (builtin == kCustom) return read_custom_attrs(op, out);
  switch (builtin) {
    case kConv2d: {
      const auto* o = options_as<tfl::Conv2DOptions>(op, v, where);
      if (!o) return;
      const auto f = dims_of(sg, op, true, 1);  // [OC, KH, KW, IC]
      window_attrs(o->padding() == 0, o->stride_h(), o->stride_w(), o->dilation_h_factor(), o->dilation_w_factor(),
                   f.size() == 4 ? f[1] : 0, f.size() == 4 ? f[2] : 0, dims_of(sg, op, true, 0), where, out);
      activation(o->fused_activation_function());
      return;
    }
    case kDepthwiseConv2d: {
      const auto* o = options_as<tfl::DepthwiseConv2DOptions>(op, v, where);
      if (!o) return;
      const auto f = dims_of(sg, op, true, 1);  // [1, KH, KW, OC]
      window_attrs(o->padding() == 0, o->stride_h(), o->stride_w(), o->dilation_h_factor(), o->dilation_w_factor(),
                   f.size() == 4 ? f[1] : 0, f.size() == 4 ? f[2] : 0, dims_of(sg, op, true, 0), where, out);
      out.attrs["depth_multiplier"] = o->depth_multiplier();
      activation(o->fused_activation_function());
      return;
    }
    case kAveragePool2d:
    case kMaxPool2d:
    case kL2Pool2d: {
      const auto* o = options_as<tfl::Pool2DOptions>(op, v, where);
      if (!o) return;
      out.attrs["kernel_h"] = o->filter_height();
      out.attrs["kernel_w"] = o->filter_width();
      window_attrs(o->padding() == 0, o->stride_h(), o->stride_w(), 1, 1, o->filter_height(), o->filter_width(),
                   dims_of(sg, op, true, 0), where, out);
      activation(o->fused_activation_function());
      return;
    }
    case kFullyConnected: {
      const auto* o = options_as<tfl::FullyConnectedOptions>(op, v, where);
      if (!o) return;
      activation(o->fused_activation_function());
      out.attrs["keep_num_dims"] = o->keep_num_dims();
      if (o->weights_format() != 0) out.attrs["weights_format"] = o->weights_format();
      return;
    }
    case kSvdf:
      if (const auto* o = options_as<tfl::SVDFOptions>(op, v, where)) {
        out.attrs["rank"] = o->rank();
        activation(o->fused_activation_function());
      }
      return;
    case kAdd:
    case kSub:
    case kMul:
    case kDiv:
      if (const auto* o = options_as<tfl::ActivationOptions>(op, v, where)) activation(o->fused_activation_function());
      return;
    case kConcatenation:
      if (const auto* o = options_as<tfl::ConcatenationOptions>(op, v, where)) {
        out.attrs["axis"] = o->axis();
        activation(o->fused_activation_function());
      }
      return;
    case kSoftmax:
      if (const auto* o = options_as<tfl::SoftmaxOptions>(op, v, where)) out.attrs["beta_f32"] = float_bits(o->beta());
      return;
    case kResizeBilinear:
      if (const auto* o = options_as<tfl::ResizeBilinearOptions>(op, v, where)) {
        out.attrs["align_corners"] = o->align_corners();
        out.attrs["half_pixel_centers"] = o->half_pixel_centers();
      }
      return;
    case kResizeNearestNeighbor:
      if (const auto* o = options_as<tfl::ResizeNearestNeighborOptions>(op, v, where)) {
        out.attrs["align_corners"] = o->align_corners();
        out.attrs["half_pixel_centers"] = o->half_pixel_centers();
      }
      return;
    case kSplit:
      if (const auto* o = options_as<tfl::SplitOptions>(op, v, where)) out.attrs["num_splits"] = o->num_splits();
      return;
    case kSplitV:
      if (const auto* o = options_as<tfl::SplitVOptions>(op, v, where)) out.attrs["num_splits"] = o->num_splits();
      return;
    case kArgMax:
      if (const auto* o = options_as<tfl::ArgMaxOptions>(op, v, where)) out.attrs["output_type"] = o->output_type();
      return;
    case kArgMin:
      if (const auto* o = options_as<tfl::ArgMinOptions>(op, v, where)) out.attrs["output_type"] = o->output_type();
      return;
    case kCumsum:
      if (const auto* o = options_as<tfl::CumsumOptions>(op, v, where)) {
        out.attrs["exclusive"] = o->exclusive();
        out.attrs["reverse"] = o->reverse();
      }
      return;
    case kL2Normalization:
      if (const auto* o = options_as<tfl::L2NormOptions>(op, v, where)) activation(o->fused_activation_function());
      return;
    case kDepthToSpace:
      if (const auto* o = options_as<tfl::DepthToSpaceOptions>(op, v, where)) out.attrs["block_size"] = o->block_size();
      return;
    case kLeakyRelu:
      if (const auto* o = options_as<tfl::LeakyReluOptions>(op, v, where)) out.attrs["alpha_f32"] = float_bits(o->alpha());
      return;
    case kUnidirectionalSequenceLstm:
      if (const auto* o = options_as<tfl::UnidirectionalSequenceLSTMOptions>(op, v, where)) {
        activation(o->fused_activation_function());
        if (o->cell_clip() != 0) out.attrs["cell_clip_f32"] = float_bits(o->cell_clip());
        if (o->proj_clip() != 0) out.attrs["proj_clip_f32"] = float_bits(o->proj_clip());
        out.attrs["time_major"] = o->time_major();
        if (o->diagonal_recurrent_tensors()) out.attrs["diagonal_recurrent_tensors"] = 1;
      }
      return;
    case kMean:
    case kSum:
    case kReduceProd:
    case kReduceMax:
    case kReduceMin:
    case kReduceAny:
    case kReduceAll:
      if (const auto* o = options_as<tfl::ReducerOptions>(op, v, where)) out.attrs["keep_dims"] = o->keep_dims();
      return;
    case kGather:
      if (const auto* o = options_as<tfl::GatherOptions>(op, v, where)) {
        out.attrs["axis"] = o->axis();
        out.attrs["batch_dims"] = o->batch_dims();
      }
      return;
    case kPack:
      if (const auto* o = options_as<tfl::PackOptions>(op, v, where)) {
        out.attrs["values_count"] = o->values_count();
        out.attrs["axis"] = o->axis();
      }
      return;
    case kUnpack:
      if (const auto* o = options_as<tfl::UnpackOptions>(op, v, where)) {
        out.attrs["num"] = o->num();
        out.attrs["axis"] = o->axis();
      }
      return;
    case kBatchMatMul:
      if (const auto* o = options_as<tfl::BatchMatMulOptions>(op, v, where)) {
        out.attrs["adj_x"] = o->adj_x();
        out.attrs["adj_y"] = o->adj_y();
      }
      return;
    case kMirrorPad:
      // TFLM reflects (leaves out the edge) only for an explicit REFLECT; without options its
      // parsed mode is unknown, which pads symmetrically.
      if (const auto* o = options_as<tfl::MirrorPadOptions>(op, v, where)) out.attrs["reflect"] = o->mode() == 0 ? 1 : 0;
      return;
    case kSpaceToDepth:
      if (const auto* o = options_as<tfl::SpaceToDepthOptions>(op, v, where)) out.attrs["block_size"] = o->block_size();
      return;
    case kTransposeConv:
      if (const auto* o = options_as<tfl::TransposeConvOptions>(op, v, where)) {
        out.attrs["padding_same"] = o->padding() == 0 ? 1 : 0;
        out.attrs["stride_h"] = o->stride_h();
        out.attrs["stride_w"] = o->stride_w();
        activation(o->fused_activation_function());
      }
      return;
    case kStridedSlice:
      if (const auto* o = options_as<tfl::StridedSliceOptions>(op, v, where)) {
        out.attrs["begin_mask"] = o->begin_mask();
        out.attrs["end_mask"] = o->end_mask();
        out.attrs["ellipsis_mask"] = o->ellipsis_mask();
        out.attrs["new_axis_mask"] = o->new_axis_mask();
        out.attrs["shrink_axis_mask"] = o->shrink_axis_mask();
        out.attrs["offset"] = o->offset();
      }
      return;
    default:
      return;
  }
}

ConstantData fold_dequantize(const tfl::Tensor* in, const std::vector<uint8_t>& data, const tfl::Tensor* out) {
  constexpr int8_t kFloat32 = 0, kFloat16 = 1, kInt8 = 9;
  if (out->type() != kFloat32) return nullptr;
  auto result = std::make_shared<std::vector<uint8_t>>();
  if (in->type() == kFloat16) {
    const size_t n = data.size() / 2;
    result->resize(n * 4);
    for (size_t i = 0; i < n; ++i) {
      uint16_t h;
      std::memcpy(&h, data.data() + 2 * i, 2);
      const float f = float16_to_float32(h);
      std::memcpy(result->data() + 4 * i, &f, 4);
    }
    return result;
  }
  if (in->type() != kInt8) return nullptr;
  std::optional<Quantization> q;
  try {
    q = read_quantization(in, "");
  } catch (const InputError&) {
    return nullptr;
  }
  if (!q) return nullptr;
  // Per channel: the index along the quantized dimension is (i / inner) % channels.
  int64_t inner = 1;
  if (q->per_channel() && in->shape())
    for (flatbuffers::uoffset_t d = static_cast<flatbuffers::uoffset_t>(q->axis) + 1; d < in->shape()->size(); ++d)
      inner *= in->shape()->Get(d);
  const size_t channels = q->scale.size();
  result->resize(data.size() * 4);
  for (size_t i = 0; i < data.size(); ++i) {
    const size_t c = channels > 1 ? static_cast<size_t>(static_cast<int64_t>(i) / inner) % channels : 0;
    const float f = static_cast<float>(static_cast<double>(q->scale[c]) *
                                       (static_cast<int8_t>(data[i]) - q->zero_point[c]));
    std::memcpy(result->data() + 4 * i, &f, 4);
  }
  return result;
}

std::optional<Quantization> read_quantization(const tfl::Tensor* t, const std::string& where) {
  const tfl::QuantizationParameters* q = t->quantization();
  if (!q || !q->scale() || q->scale()->size() == 0) return std::nullopt;
  Quantization out;
  for (float s : *q->scale()) out.scale.push_back(s);
  const size_t n = out.scale.size();
  if (q->zero_point() && q->zero_point()->size() > 0) {
    if (q->zero_point()->size() != n && q->zero_point()->size() != 1)
      throw InputError(where, std::to_string(q->scale()->size()) + " quantization scales but " +
                                  std::to_string(q->zero_point()->size()) + " zero points");
    // Copied byte by byte: a file may place the int64 vector 4 bytes off an 8-byte boundary
    // (flatbuffers aligns to the buffer's start, not to the address it was loaded at).
    const uint8_t* raw = q->zero_point()->Data();
    for (size_t i = 0; i < n; ++i) {
      int64_t zp = 0;
      std::memcpy(&zp, raw + sizeof(int64_t) * (q->zero_point()->size() == 1 ? 0 : i), sizeof zp);
      out.zero_point.push_back(flatbuffers::EndianScalar(zp));
    }
  } else {
    out.zero_point.assign(n, 0);
  }
  out.axis = q->quantized_dimension();
  const int rank = t->shape() ? static_cast<int>(t->shape()->size()) : 0;
  // Converters copy the weights' quantized dimension onto 1-D biases: their only dim is meant.
  if (n > 1 && rank == 1 && static_cast<size_t>(t->shape()->Get(0)) == n) out.axis = 0;
  if (n > 1 && (out.axis < 0 || out.axis >= rank ||
                static_cast<size_t>(t->shape()->Get(static_cast<flatbuffers::uoffset_t>(out.axis))) != n))
    throw InputError(where, std::to_string(n) + " per-channel scales do not match quantized dimension " +
                                std::to_string(out.axis));
  return out;
}

}  // namespace arenaplan::tflite_ops
