#include "core/tflite/tflite_import.h"

#include <flatbuffers/flatbuffers.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

#include "core/tflite/detail/tflite_options.h"
#include "core/tflite/tflite_ops.h"
#include "core/tflite/tflite_sha256.h"
#include "tflite_schema_generated.h"

namespace arenaplan {
namespace {

constexpr const char* kOfflineMetadataName = "OfflineMemoryAllocation";

std::string text_of(const flatbuffers::String* s) { return tflite_ops::utf8_text(s ? s->str() : std::string()); }

std::string tensor_where(int32_t i, const tfl::Tensor* t) {
  std::string w = "subgraph 0 tensor " + std::to_string(i);
  if (t && t->name() && t->name()->size() > 0) w += " (" + text_of(t->name()) + ")";
  return w;
}

// Bytes of a tensor from its shape and type; InputError for sizes that are not static or overflow.
Bytes shape_bytes(int32_t index, const tfl::Tensor* t) {
  int bits = tflite_ops::type_bits(t->type());
  if (bits == 0)
    throw InputError(tensor_where(index, t), std::string("type ") + tflite_ops::type_name(t->type()) +
                                                 " (" + std::to_string(t->type()) +
                                                 ") has no static size");
  int64_t elements = 1;
  if (t->shape()) {
    for (flatbuffers::uoffset_t d = 0; d < t->shape()->size(); ++d) {
      int32_t dim = t->shape()->Get(d);
      if (dim < 0)
        throw InputError(tensor_where(index, t), "dim " + std::to_string(d) + " is " +
                                                     std::to_string(dim) +
                                                     ": dynamic shapes have no static size");
      if (__builtin_mul_overflow(elements, static_cast<int64_t>(dim), &elements))
        throw InputError(tensor_where(index, t), "element count overflows 64 bits");
    }
  }
  int64_t total_bits = 0;
  if (__builtin_mul_overflow(elements, static_cast<int64_t>(bits), &total_bits))
    throw InputError(tensor_where(index, t), "size overflows 64 bits");
  return total_bits / 8 + (total_bits % 8 ? 1 : 0);
}

std::string kind_of(const tfl::OperatorCode* code, int32_t* builtin_out) {
  // Writers before the int32 code set only the byte; newer ones set both (byte capped at 127).
  int32_t builtin = std::max<int32_t>(code->deprecated_builtin_code(), code->builtin_code());
  *builtin_out = builtin;
  if (builtin == tflite_ops::kCustom)
    return code->custom_code() && code->custom_code()->size() > 0 ? text_of(code->custom_code()) : "custom";
  if (const char* n = tflite_ops::builtin_name(builtin)) return n;
  return "builtin_" + std::to_string(builtin);
}

// The offsets of subgraph 0 from OfflineMemoryAllocation (words: version, subgraph, tensor count,
// then one int32 per tensor of the model), read as TFLM reads them.
// Bit k set: operand k is absent (-1), kept when some absent operand comes before a present one
// (then every absent slot, trailing ones too, so the slot count is known). Absent trailing
// operands alone (a conv without bias) shift nothing and give 0.
int64_t absent_before_present(const flatbuffers::Vector<int32_t>* v) {
  if (!v || v->size() > 62) return 0;
  int64_t mask = 0;
  bool shifts = false;
  for (flatbuffers::uoffset_t k = 0; k < v->size(); ++k) {
    if (v->Get(k) == -1) mask |= int64_t{1} << k;
    else if (mask != 0) shifts = true;
  }
  return shifts ? mask : 0;
}

std::optional<std::vector<int32_t>> read_offline_offsets(const tfl::Model* model, int32_t sg0_tensors,
                                                         int32_t total_tensors) {
  if (!model->metadata()) return std::nullopt;
  for (flatbuffers::uoffset_t i = 0; i < model->metadata()->size(); ++i) {
    const tfl::Metadata* md = model->metadata()->Get(i);
    if (!md || !md->name() || md->name()->str() != kOfflineMetadataName) continue;
    const std::string where = std::string("metadata ") + kOfflineMetadataName;
    if (!model->buffers() || md->buffer() >= model->buffers()->size())
      throw InputError(where, "buffer index " + std::to_string(md->buffer()) + " out of range");
    const tfl::Buffer* buf = model->buffers()->Get(md->buffer());
    if (!buf || !buf->data() || buf->data()->size() % 4 != 0 || buf->data()->size() < 12)
      throw InputError(where, "expected at least 3 int32 words (version, subgraph, tensor count)");
    const size_t words = buf->data()->size() / 4;
    std::vector<int32_t> w(words);
    std::memcpy(w.data(), buf->data()->data(), words * 4);  // data may be unaligned for int32
    // TFLM reads only the count word and the offsets: the version word (Vela writes 0) and the
    // subgraph word are not checked, so neither is refused here.
    if (w[2] != total_tensors && w[2] != sg0_tensors)
      throw InputError(where, std::to_string(w[2]) + " offsets for a model of " +
                                  std::to_string(total_tensors) + " tensors");
    if (words - 3 < static_cast<size_t>(w[2]))
      throw InputError(where, "declares " + std::to_string(w[2]) + " offsets but holds " +
                                  std::to_string(words - 3));
    for (int32_t t = 0; t < sg0_tensors; ++t)
      if (w[3 + t] < -1)
        throw InputError(where, "offset of tensor " + std::to_string(t) + " is " + std::to_string(w[3 + t]));
    return std::vector<int32_t>(w.begin() + 3, w.begin() + 3 + sg0_tensors);
  }
  return std::nullopt;
}

// The bytes of a constant tensor's buffer (in the flatbuffer; weights stored after it, in files
// over 2 GB, are not loaded: the simulator generates those).
ConstantData constant_data(const tfl::Model* model, const tfl::Tensor* t) {
  const tfl::Buffer* b = model->buffers()->Get(t->buffer());
  if (!b->data() || b->data()->size() == 0) return nullptr;
  return std::make_shared<const std::vector<uint8_t>>(b->data()->begin(), b->data()->end());
}

const tfl::Model* verified_model(std::string_view bytes) {
  if (bytes.size() < 8)
    throw InputError("model", "too short to be a .tflite file (" + std::to_string(bytes.size()) + " bytes)");
  if (bytes.size() >= FLATBUFFERS_MAX_BUFFER_SIZE)
    throw InputError("model", "larger than a flatbuffer can be (2 GiB)");
  if (!looks_like_tflite(bytes))
    throw InputError("model", "not a TFLite model: file identifier \"" + std::string(bytes.substr(4, 4)) +
                                  "\" at byte 4, expected \"TFL3\"");
  flatbuffers::Verifier verifier(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  if (!tfl::VerifyModelBuffer(verifier))
    throw InputError("model", "corrupt or truncated .tflite: the flatbuffer verifier rejected it "
                              "(an offset, vector or string lies outside the " +
                                  std::to_string(bytes.size()) + " bytes, or a table is malformed)");
  return tfl::GetModel(bytes.data());
}

// A custom op's working memory: a tensor without data that no op writes and only custom ops read
// (Vela's scratch and fast scratch, read by its `ethos-u` op). TFLM allocates it in the arena like
// any tensor; here the first custom op that reads it writes it, so that it has a lifetime.
// Returns the tensors adopted.
std::vector<TensorId> adopt_custom_working_tensors(Graph& g, const std::vector<char>& custom_op) {
  std::vector<TensorId> adopted;
  for (size_t t = 0; t < g.tensors.size(); ++t) {
    const Tensor& tensor = g.tensors[t];
    const TensorId id = static_cast<TensorId>(t);
    if (tensor.producer >= 0 || tensor.constant || tensor.persistent || g.is_input(id) || tensor.consumers.empty())
      continue;
    OpId first = -1;
    bool custom_only = true;
    for (OpId c : tensor.consumers) {
      custom_only = custom_only && custom_op[c];
      if (first < 0 || c < first) first = c;
    }
    if (!custom_only) continue;
    Op& op = g.ops[first];
    op.inputs.erase(std::remove(op.inputs.begin(), op.inputs.end(), id), op.inputs.end());
    op.outputs.push_back(id);
    adopted.push_back(id);
  }
  if (!adopted.empty()) link_tensors(g);
  return adopted;
}

}  // namespace

bool looks_like_tflite(std::string_view bytes) {
  return bytes.size() >= 8 && bytes.substr(4, 4) == "TFL3";
}

TfliteModel import_tflite(std::string_view bytes, const TfliteImportOptions& options) {
  // The flatbuffer accessors read scalars in place: keep them on an aligned copy.
  std::string aligned;
  if (reinterpret_cast<uintptr_t>(bytes.data()) % 16 != 0) {
    aligned.assign(bytes.data(), bytes.size());
    bytes = aligned;
  }
  const tfl::Model* model = verified_model(bytes);
  TfliteModel out;
  out.sha256 = sha256_hex(bytes);
  out.file_bytes = static_cast<Bytes>(bytes.size());
  out.schema_version = model->version();
  if (model->description()) out.description = text_of(model->description());
  if (!model->subgraphs() || model->subgraphs()->size() == 0)
    throw InputError("model", "has no subgraphs");
  for (flatbuffers::uoffset_t s = 0; s < model->subgraphs()->size(); ++s) {
    const tfl::SubGraph* sg = model->subgraphs()->Get(s);
    TfliteSubgraphInfo info;
    info.name = text_of(sg->name());
    info.tensors = sg->tensors() ? static_cast<int32_t>(sg->tensors()->size()) : 0;
    info.operators = sg->operators() ? static_cast<int32_t>(sg->operators()->size()) : 0;
    out.total_tensors += info.tensors;
    out.subgraphs.push_back(info);
  }

  const tfl::SubGraph* sg = model->subgraphs()->Get(0);
  const int32_t n_tensors = out.subgraphs[0].tensors;
  const int32_t n_ops = out.subgraphs[0].operators;
  const int32_t n_buffers = model->buffers() ? static_cast<int32_t>(model->buffers()->size()) : 0;
  const int32_t n_codes = model->operator_codes() ? static_cast<int32_t>(model->operator_codes()->size()) : 0;
  auto tensor_at = [&](int32_t i) { return sg->tensors()->Get(static_cast<flatbuffers::uoffset_t>(i)); };

  auto check_index = [&](int32_t t, const std::string& where, bool optional) {
    if (optional && t == -1) return;
    if (t < 0 || t >= n_tensors)
      throw InputError(where, "tensor index " + std::to_string(t) + " out of range (subgraph 0 has " +
                                  std::to_string(n_tensors) + " tensors)");
  };

  // Weights: a tensor whose buffer holds data (in the flatbuffer, or after it for > 2 GB models).
  std::vector<char> constant(n_tensors, 0), variable(n_tensors, 0);
  std::vector<Bytes> data_bytes(n_tensors, 0);
  for (int32_t i = 0; i < n_tensors; ++i) {
    const tfl::Tensor* t = tensor_at(i);
    variable[i] = t->is_variable();
    if (t->buffer() == 0) continue;
    if (static_cast<int32_t>(t->buffer()) >= n_buffers || t->buffer() > 0x7fffffffu)
      throw InputError(tensor_where(i, t), "buffer index " + std::to_string(t->buffer()) +
                                               " out of range (model has " + std::to_string(n_buffers) +
                                               " buffers)");
    const tfl::Buffer* b = model->buffers()->Get(t->buffer());
    Bytes size = b->data() ? static_cast<Bytes>(b->data()->size()) : 0;
    if (size == 0 && b->offset() > 1 && b->size() > 0 && b->size() < (uint64_t{1} << 62))
      size = static_cast<Bytes>(b->size());
    if (size > 0 && !variable[i]) {
      constant[i] = 1;
      data_bytes[i] = size;
    }
  }

  // Operators: kinds, index checks, and which ones can run once at initialisation.
  struct OpInfo {
    std::string kind;
    int32_t builtin = 0;
    std::vector<int32_t> inputs, outputs;
    bool folded = false;
    // Optional operands left out (-1) before a present one: without them the positions of the
    // operands after are lost (an LSTM's 24 slots), so the op keeps them as `absent_inputs`.
    int64_t absent_inputs = 0;
  };
  std::vector<OpInfo> ops(n_ops);
  std::vector<char> used(n_tensors, 0), graph_output(n_tensors, 0), graph_input(n_tensors, 0);
  auto read_io = [&](const flatbuffers::Vector<int32_t>* v, std::vector<int32_t>& dst,
                     const std::string& where, bool optional) {
    if (!v) return;
    for (flatbuffers::uoffset_t k = 0; k < v->size(); ++k) {
      int32_t t = v->Get(k);
      check_index(t, where + " " + std::to_string(k), optional);
      if (t >= 0) dst.push_back(t);
    }
  };
  std::vector<int32_t> sg_inputs, sg_outputs;
  read_io(sg->inputs(), sg_inputs, "subgraph 0 input", false);
  read_io(sg->outputs(), sg_outputs, "subgraph 0 output", false);
  for (int32_t t : sg_inputs) graph_input[t] = 1;
  for (int32_t t : sg_outputs) graph_output[t] = 1;
  for (int32_t o = 0; o < n_ops; ++o) {
    const tfl::Operator* op = sg->operators()->Get(static_cast<flatbuffers::uoffset_t>(o));
    const std::string where = "subgraph 0 operator " + std::to_string(o);
    if (static_cast<int64_t>(op->opcode_index()) >= n_codes)
      throw InputError(where, "opcode index " + std::to_string(op->opcode_index()) +
                                  " out of range (model has " + std::to_string(n_codes) + " operator codes)");
    OpInfo& info = ops[o];
    info.kind = kind_of(model->operator_codes()->Get(op->opcode_index()), &info.builtin);
    read_io(op->inputs(), info.inputs, where + " (" + info.kind + ") input", true);
    info.absent_inputs = absent_before_present(op->inputs());
    read_io(op->outputs(), info.outputs, where + " (" + info.kind + ") output", false);
    if (info.outputs.empty()) throw InputError(where + " (" + info.kind + ")", "has no outputs");
    if (info.builtin == tflite_ops::kCustom &&
        std::find(out.custom_ops.begin(), out.custom_ops.end(), info.kind) == out.custom_ops.end())
      out.custom_ops.push_back(info.kind);
  }

  std::vector<char> weight_read(n_tensors, 0);  // constants some op reads (flash the model needs)
  for (int32_t o = 0; o < n_ops; ++o) {
    OpInfo& info = ops[o];
    for (int32_t t : info.inputs)
      if (constant[t]) weight_read[t] = 1;
    // TFLite files list ops in execution order, so one pass folds chains of constant ops too.
    bool all_constant = options.fold_constant_ops && !info.inputs.empty();
    for (int32_t t : info.inputs) all_constant = all_constant && constant[t];
    for (int32_t t : info.outputs) all_constant = all_constant && !graph_output[t] && !variable[t];
    if (!all_constant) continue;
    info.folded = true;
    out.folded_ops.push_back(o);
    for (int32_t t : info.outputs) {
      if (constant[t]) continue;
      constant[t] = 1;
      Bytes b = shape_bytes(t, tensor_at(t));
      if (__builtin_add_overflow(out.folded_bytes, b, &out.folded_bytes))
        throw InputError("model", "constant bytes overflow 64 bits");
    }
  }
  // What a folded DEQUANTIZE computes at initialisation (fp16 or int8 weights to float32), so the
  // simulator runs the model's weights; other folded ops' outputs have no data (generated bytes).
  std::vector<ConstantData> folded_data(n_tensors);
  for (const OpInfo& info : ops)
    if (info.folded && info.builtin == tflite_ops::kDequantize && info.inputs.size() == 1 && info.outputs.size() == 1 &&
        data_bytes[info.inputs[0]] > 0)
      folded_data[info.outputs[0]] = tflite_ops::fold_dequantize(tensor_at(info.inputs[0]),
                                                                 *constant_data(model, tensor_at(info.inputs[0])),
                                                                 tensor_at(info.outputs[0]));
  std::set<uint32_t> counted_buffers;  // tensors may share one weight buffer
  for (int32_t t = 0; t < n_tensors; ++t)
    if (weight_read[t] && data_bytes[t] > 0 && counted_buffers.insert(tensor_at(t)->buffer()).second)
      if (__builtin_add_overflow(out.constant_bytes, data_bytes[t], &out.constant_bytes))
        throw InputError("model", "constant bytes overflow 64 bits");

  for (const OpInfo& info : ops) {
    if (info.folded) continue;
    for (int32_t t : info.inputs) used[t] = 1;
    for (int32_t t : info.outputs) used[t] = 1;
  }
  for (int32_t t : sg_inputs) used[t] = 1;
  for (int32_t t : sg_outputs) used[t] = 1;

  // Tensors of the graph, in subgraph order; names made unique (TFLite does not require it).
  Graph& g = out.graph;
  g.name = !options.name.empty() ? options.name : !out.subgraphs[0].name.empty() ? out.subgraphs[0].name : "model";
  g.alignment = options.alignment;
  out.graph_tensor.assign(n_tensors, -1);
  std::set<std::string> names;
  for (int32_t i = 0; i < n_tensors; ++i) {
    if (!used[i]) continue;
    const tfl::Tensor* ft = tensor_at(i);
    Tensor t;
    t.name = ft->name() && ft->name()->size() > 0 ? text_of(ft->name()) : "tensor_" + std::to_string(i);
    if (!names.insert(t.name).second) {
      t.name += "#" + std::to_string(i);
      names.insert(t.name);
    }
    t.constant = constant[i];
    t.persistent = variable[i];
    const bool static_size = tflite_ops::type_bits(ft->type()) > 0;
    if (t.constant && data_bytes[i] > 0 && !static_size) {
      t.bytes = data_bytes[i];  // e.g. a string table: only its stored size is known
    } else {
      t.bytes = shape_bytes(i, ft);
      t.dtype = tflite_ops::to_dtype(ft->type());
      if (t.dtype && ft->shape())
        for (flatbuffers::uoffset_t d = 0; d < ft->shape()->size(); ++d)
          t.shape.push_back(ShapeDim{ft->shape()->Get(d), ""});
      // Sparse or packed weights: what is stored differs from shape x type; keep the stored size.
      if (t.constant && data_bytes[i] > 0 && data_bytes[i] != t.bytes) {
        t.bytes = data_bytes[i];
        t.shape.clear();
        t.dtype.reset();
      }
      if (t.dtype && t.shape.empty() && t.bytes > 0) t.shape.push_back(ShapeDim{1, ""});  // scalar
    }
    if (t.dtype) t.quant = tflite_ops::read_quantization(ft, tensor_where(i, ft));
    if (t.constant && data_bytes[i] > 0 && t.dtype) t.data = constant_data(model, ft);
    if (t.constant && folded_data[i] && static_cast<Bytes>(folded_data[i]->size()) == t.bytes) t.data = folded_data[i];
    if (t.bytes == 0) {  // an empty tensor (a zero dim) still gets an address
      t.bytes = 1;
      t.shape.clear();
      t.dtype.reset();
    }
    if (t.persistent && __builtin_add_overflow(out.variable_bytes, t.bytes, &out.variable_bytes))
      throw InputError("model", "variable bytes overflow 64 bits");
    out.graph_tensor[i] = static_cast<TensorId>(g.tensors.size());
    out.tensor_index.push_back(i);
    g.tensors.push_back(std::move(t));
  }
  for (int32_t t : sg_inputs)
    if (!constant[t] && !variable[t] && !g.is_input(out.graph_tensor[t])) g.inputs.push_back(out.graph_tensor[t]);
  for (int32_t t : sg_outputs)
    if (!g.is_output(out.graph_tensor[t])) g.outputs.push_back(out.graph_tensor[t]);

  flatbuffers::Verifier options_verifier(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  for (int32_t o = 0; o < n_ops; ++o) {
    const OpInfo& info = ops[o];
    if (info.folded) continue;
    Op op;
    op.kind = info.kind;
    op.name = info.kind + "_" + std::to_string(o);
    for (int32_t t : info.inputs) {
      TensorId id = out.graph_tensor[t];
      if (std::find(op.inputs.begin(), op.inputs.end(), id) == op.inputs.end()) op.inputs.push_back(id);
    }
    for (int32_t t : info.outputs) {
      TensorId id = out.graph_tensor[t];
      if (std::find(op.outputs.begin(), op.outputs.end(), id) != op.outputs.end())
        throw InputError("subgraph 0 operator " + std::to_string(o) + " (" + info.kind + ")",
                         "writes tensor " + g.tensors[id].name + " twice");
      if (g.tensors[id].constant)
        throw InputError("subgraph 0 operator " + std::to_string(o) + " (" + info.kind + ")",
                         "writes tensor " + g.tensors[id].name + ", which holds constant data");
      op.outputs.push_back(id);
    }
    if (info.absent_inputs != 0) op.attrs["absent_inputs"] = info.absent_inputs;
    tflite_ops::read_operator_attrs(info.builtin, sg->operators()->Get(static_cast<flatbuffers::uoffset_t>(o)), sg,
                                    options_verifier, "subgraph 0 operator " + std::to_string(o) + " (" + info.kind + ")",
                                    op);
    out.op_index.push_back(o);
    g.ops.push_back(std::move(op));
  }
  link_tensors(g);
  std::vector<char> custom(g.ops.size());
  for (size_t o = 0; o < g.ops.size(); ++o) custom[o] = ops[out.op_index[o]].builtin == tflite_ops::kCustom;
  out.working_tensors = adopt_custom_working_tensors(g, custom);

  if (options.reshape_in_place) {
    for (size_t o = 0; o < g.ops.size(); ++o) {
      const OpInfo& info = ops[out.op_index[o]];
      if (info.builtin != tflite_ops::kReshape || info.inputs.empty()) continue;
      TensorId in = out.graph_tensor[info.inputs[0]], res = out.graph_tensor[info.outputs[0]];
      const Tensor& ti = g.tensors[in];
      const Tensor& to = g.tensors[res];
      bool legal = !ti.constant && !ti.persistent && !to.persistent && !g.is_input(in) &&
                   !g.is_output(in) && !ti.retained && ti.consumers.size() == 1 && ti.bytes == to.bytes;
      if (legal) g.ops[o].in_place.push_back(InPlace{res, in});
    }
  }

  out.offline_offsets = read_offline_offsets(model, n_tensors, out.total_tensors);
  validate_graph(g);
  return out;
}

Bytes io_lower_bound_bytes(const Graph& g) {
  Bytes persistent = 0;
  for (const Tensor& t : g.tensors)
    if (t.persistent) persistent += align_up(t.bytes, g.alignment);
  Bytes best = persistent;
  for (const Op& op : g.ops) {
    std::set<TensorId> held;
    for (TensorId t : op.inputs) held.insert(t);
    for (TensorId t : op.outputs) held.insert(t);
    for (const InPlace& ip : op.in_place) held.erase(ip.output);  // shares the input's bytes
    Bytes sum = persistent + align_up(op.scratch_bytes, g.alignment);
    for (TensorId t : held) {
      const Tensor& tensor = g.tensors[t];
      if (tensor.constant || tensor.persistent) continue;
      if (g.is_input(t) && g.input_policy == InputPolicy::kCallerOwned) continue;
      if (__builtin_add_overflow(sum, align_up(tensor.bytes, g.alignment), &sum))
        throw InputError("op " + op.name, "live bytes overflow 64 bits");
    }
    best = std::max(best, sum);
  }
  return best;
}

}  // namespace arenaplan
