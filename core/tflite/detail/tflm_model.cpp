#include "core/tflite/detail/tflm_model.h"

#include <flatbuffers/flatbuffers.h>

#include <algorithm>
#include <cstring>

#include "core/tflite/detail/tflite_options.h"
#include "core/tflite/tflite_import.h"
#include "core/tflite/tflite_ops.h"
#include "tflite_schema_generated.h"

namespace arenaplan::tflm {
namespace {

std::string tensor_place(size_t s, size_t i, const std::string& name) {
  std::string w = "subgraph " + std::to_string(s) + " tensor " + std::to_string(i);
  return name.empty() ? w : w + " (" + name + ")";
}

// The number of quantization channels TFLM gives a TfLiteTensor: scale count when both scale and
// zero_point are non-empty (InitializeTfLiteTensorFromFlatbuffer), else 0.
// Channels of a tensor's quantization (0 without scales): the model was verified as a whole by
// VerifyModelBuffer, QuantizationParameters included.
int32_t quant_channels(const tfl::QuantizationParameters* q) {
  if (!q || !q->scale() || !q->zero_point() || q->scale()->size() == 0 || q->zero_point()->size() == 0) return 0;
  return static_cast<int32_t>(q->scale()->size());
}

std::vector<int32_t> int_vector(const flatbuffers::Vector<int32_t>* v) {
  return v ? std::vector<int32_t>(v->begin(), v->end()) : std::vector<int32_t>{};
}

constexpr int32_t kBatchMatMulCode = 126;

// The options of a convolution, read as the importer reads them (TFLM's SAME/VALID padding rule).
Window read_window(int32_t builtin, const tfl::Operator* fo, const tfl::SubGraph* sg, flatbuffers::Verifier& v,
                   const std::string& where) {
  Window w;
  if (builtin == tflite_ops::kTransposeConv) {
    if (!fo->builtin_options()) return w;
    const auto* o = reinterpret_cast<const tfl::TransposeConvOptions*>(fo->builtin_options());
    if (!o->Verify(v)) throw InputError(where, "malformed builtin options table");
    w.stride_h = o->stride_h();
    w.stride_w = o->stride_w();
    return w;
  }
  if (builtin != tflite_ops::kConv2d && builtin != tflite_ops::kDepthwiseConv2d) return w;
  Op attrs;
  tflite_ops::read_operator_attrs(builtin, fo, sg, v, where, attrs);
  auto get = [&](const char* key, int32_t fallback) {
    auto it = attrs.attrs.find(key);
    return it == attrs.attrs.end() ? fallback : static_cast<int32_t>(it->second);
  };
  w.stride_h = get("stride_h", 1);
  w.stride_w = get("stride_w", 1);
  w.dilation_h = get("dilation_h", 1);
  w.dilation_w = get("dilation_w", 1);
  w.pad_h = get("pad_h", 0);
  w.pad_w = get("pad_w", 0);
  return w;
}

std::optional<OfflinePlan> read_offline(const tfl::Model* model, int32_t total_tensors) {
  if (!model->metadata()) return std::nullopt;
  for (const tfl::Metadata* md : *model->metadata()) {
    // TFLM compares the whole name (length included).
    if (!md || !md->name() || md->name()->str() != "OfflineMemoryAllocation") continue;
    const std::string where = "metadata OfflineMemoryAllocation";
    if (!model->buffers() || md->buffer() >= model->buffers()->size())
      throw InputError(where, "buffer index " + std::to_string(md->buffer()) + " out of range");
    const tfl::Buffer* buf = model->buffers()->Get(md->buffer());
    if (!buf || !buf->data() || buf->data()->size() < 12)
      throw InputError(where, "expected at least 3 int32 words (version, subgraph, tensor count)");
    const size_t words = buf->data()->size() / 4;
    std::vector<int32_t> w(words);
    std::memcpy(w.data(), buf->data()->data(), words * 4);
    OfflinePlan plan;
    plan.version = w[0];
    plan.subgraph = w[1];
    plan.count = w[2];
    // TFLM refuses a count that differs from the tensors of all subgraphs ("Nbr of offline buffer
    // offsets ... not equal nbr tensors").
    if (plan.count != total_tensors)
      throw InputError(where, "holds " + std::to_string(plan.count) + " offsets for a model of " +
                                  std::to_string(total_tensors) + " tensors (TFLM requires one per tensor)");
    if (words - 3 < static_cast<size_t>(plan.count))
      throw InputError(where, "declares " + std::to_string(plan.count) + " offsets but holds " +
                                  std::to_string(words - 3));
    plan.offsets.assign(w.begin() + 3, w.begin() + 3 + plan.count);
    for (size_t t = 0; t < plan.offsets.size(); ++t)
      if (plan.offsets[t] < -1)
        throw InputError(where, "offset of tensor " + std::to_string(t) + " is " + std::to_string(plan.offsets[t]));
    return plan;
  }
  return std::nullopt;
}

}  // namespace

int32_t Model::total_tensors() const {
  int32_t n = 0;
  for (const Subgraph& s : subgraphs) n += static_cast<int32_t>(s.tensors.size());
  return n;
}

int type_size(int8_t type) {
  switch (type) {
    case 0: case 2: case 15: return 4;           // float32, int32, uint32
    case 1: case 7: case 16: case 18: return 2;  // float16, int16, uint16, bfloat16
    case 3: case 6: case 9: case 17: return 1;   // uint8, bool, int8, int4 (one byte per element)
    case 4: case 8: case 10: case 12: return 8;  // int64, complex64, float64, uint64
    case 11: return 16;                          // complex128
    default: return 0;                           // string, resource, variant: TFLM cannot size them
  }
}

Model read_model(std::string_view input) {
  std::string aligned;
  if (reinterpret_cast<uintptr_t>(input.data()) % 16 != 0) {
    aligned.assign(input.data(), input.size());
    input = aligned;
  }
  if (!looks_like_tflite(input)) throw InputError("model", "not a TFLite model (no \"TFL3\" file identifier)");
  const auto* base = reinterpret_cast<const uint8_t*>(input.data());
  flatbuffers::Verifier verifier(base, input.size());
  if (!tfl::VerifyModelBuffer(verifier))
    throw InputError("model", "corrupt or truncated .tflite: the flatbuffer verifier rejected it");
  const tfl::Model* model = tfl::GetModel(input.data());
  if (!model->subgraphs() || model->subgraphs()->size() == 0) throw InputError("model", "has no subgraphs");
  const uint32_t n_buffers = model->buffers() ? model->buffers()->size() : 0;
  const uint32_t n_codes = model->operator_codes() ? model->operator_codes()->size() : 0;

  Model out;
  for (flatbuffers::uoffset_t s = 0; s < model->subgraphs()->size(); ++s) {
    const tfl::SubGraph* sg = model->subgraphs()->Get(s);
    Subgraph g;
    const uint32_t n_tensors = sg->tensors() ? sg->tensors()->size() : 0;
    for (uint32_t i = 0; i < n_tensors; ++i) {
      const tfl::Tensor* ft = sg->tensors()->Get(i);
      Tensor t;
      t.name = ft->name() ? tflite_ops::utf8_text(ft->name()->str()) : "";
      const std::string where = tensor_place(s, i, t.name);
      t.type = ft->type();
      t.dims = int_vector(ft->shape());
      t.is_variable = ft->is_variable();
      if (ft->buffer() >= n_buffers && ft->buffer() != 0)
        throw InputError(where, "buffer index " + std::to_string(ft->buffer()) + " out of range");
      if (ft->buffer() < n_buffers) {
        const tfl::Buffer* b = model->buffers()->Get(ft->buffer());
        t.has_data = b && b->data() && b->data()->size() > 0;  // TFLM looks only at data()
      }
      const int size = type_size(t.type);
      if (size == 0)
        throw InputError(where, std::string("type ") + tflite_ops::type_name(t.type) +
                                    " has no size TFLM can allocate");
      int64_t elements = 1;
      for (int32_t d : t.dims) {
        if (d < 0) throw InputError(where, "dynamic dim " + std::to_string(d) + ": TFLM needs static shapes");
        if (__builtin_mul_overflow(elements, static_cast<int64_t>(d), &elements) || elements > INT32_MAX)
          throw InputError(where, "element count overflows TFLM's int");
      }
      t.bytes = elements * size;
      t.quant_channels = quant_channels(ft->quantization());
      g.tensors.push_back(std::move(t));
    }
    auto check = [&](int32_t t, const std::string& where, bool optional) {
      if ((optional && t == -1) || (t >= 0 && static_cast<uint32_t>(t) < n_tensors)) return;
      throw InputError(where, "tensor index " + std::to_string(t) + " out of range (" +
                                  std::to_string(n_tensors) + " tensors)");
    };
    g.inputs = int_vector(sg->inputs());
    g.outputs = int_vector(sg->outputs());
    for (int32_t t : g.inputs) check(t, "subgraph " + std::to_string(s) + " input", false);
    for (int32_t t : g.outputs) check(t, "subgraph " + std::to_string(s) + " output", false);
    const uint32_t n_ops = sg->operators() ? sg->operators()->size() : 0;
    for (uint32_t o = 0; o < n_ops; ++o) {
      const tfl::Operator* fo = sg->operators()->Get(o);
      const std::string where = "subgraph " + std::to_string(s) + " operator " + std::to_string(o);
      if (fo->opcode_index() >= n_codes)
        throw InputError(where, "opcode index " + std::to_string(fo->opcode_index()) + " out of range");
      const tfl::OperatorCode* code = model->operator_codes()->Get(fo->opcode_index());
      Operator op;
      op.builtin = std::max<int32_t>(code->deprecated_builtin_code(), code->builtin_code());
      if (op.builtin == tflite_ops::kCustom)
        op.kind = code->custom_code() ? tflite_ops::utf8_text(code->custom_code()->str()) : "custom";
      else if (const char* n = tflite_ops::builtin_name(op.builtin)) op.kind = n;
      else op.kind = "builtin_" + std::to_string(op.builtin);
      op.inputs = int_vector(fo->inputs());
      op.outputs = int_vector(fo->outputs());
      op.intermediates = int_vector(fo->intermediates());
      for (int32_t t : op.inputs) check(t, where + " input", true);
      for (int32_t t : op.outputs) check(t, where + " output", false);
      for (int32_t t : op.intermediates) check(t, where + " intermediate", false);
      op.window = read_window(op.builtin, fo, sg, verifier, where);
      if (op.builtin == tflite_ops::kCustom) {
        Op attrs;
        tflite_ops::read_operator_attrs(op.builtin, fo, sg, verifier, where, attrs);
        op.custom_options.insert(attrs.attrs.begin(), attrs.attrs.end());
      }
      if (op.builtin == kBatchMatMulCode) {
        Op attrs;
        tflite_ops::read_operator_attrs(op.builtin, fo, sg, verifier, where, attrs);
        op.adj_x = attrs.attrs.count("adj_x") && attrs.attrs.at("adj_x") != 0;
        op.adj_y = attrs.attrs.count("adj_y") && attrs.attrs.at("adj_y") != 0;
      }
      g.ops.push_back(std::move(op));
    }
    out.subgraphs.push_back(std::move(g));
  }
  out.offline = read_offline(model, out.total_tensors());
  return out;
}

}  // namespace arenaplan::tflm
