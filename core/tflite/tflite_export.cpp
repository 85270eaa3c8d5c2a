#include "core/tflite/tflite_export.h"

#include <flatbuffers/flatbuffers.h>

#include <cstring>
#include <limits>
#include <stdexcept>

#include "core/graph/op_kinds.h"
#include "tflite_schema_generated.h"

namespace arenaplan {
namespace {

constexpr const char* kOfflineMetadataName = "OfflineMemoryAllocation";
constexpr int kModelFields = 8;  // Model fields of the published schema we know the types of
constexpr int kModelBuffersField = 4, kModelMetadataField = 6, kModelVersionField = 0;

const tfl::Model* checked_model(std::string_view bytes) {
  // Same gate as the importer: every input is verified before we read a single offset.
  TfliteImportOptions keep;
  keep.fold_constant_ops = false;
  import_tflite(bytes, keep);
  return tfl::GetModel(bytes.data());
}

void verify_output(const std::string& out, const char* what) {
  flatbuffers::Verifier v(reinterpret_cast<const uint8_t*>(out.data()), out.size());
  if (!tfl::VerifyModelBuffer(v))
    throw std::logic_error(std::string(what) + ": the written model fails flatbuffers verification");
}

// A little-endian byte writer with absolute positions (the prefix starts at file offset 0).
struct Prefix {
  std::string bytes;
  size_t pos() const { return bytes.size(); }
  void pad_to(size_t align) {
    while (bytes.size() % align) bytes.push_back('\0');
  }
  void u16(uint16_t v) { bytes.append(reinterpret_cast<const char*>(&v), 2); }
  void u32(uint32_t v) { bytes.append(reinterpret_cast<const char*>(&v), 4); }
  void put_u32(size_t at, uint32_t v) { std::memcpy(&bytes[at], &v, 4); }
  // A forward offset from `at` to absolute position `target`.
  void put_offset(size_t at, size_t target) {
    if (target <= at || target - at > std::numeric_limits<uint32_t>::max())
      throw std::logic_error("tflite export: offset does not point forward");
    put_u32(at, static_cast<uint32_t>(target - at));
  }
};

}  // namespace

std::vector<int32_t> offline_offsets_for(const TfliteModel& m, const LiveAnalysis& live,
                                         const std::vector<Bytes>& offsets) {
  if (offsets.size() < live.buffers.size())
    throw InputError("plan", "has fewer offsets than the analysis has buffers");
  std::vector<int32_t> out(m.graph_tensor.size(), -1);
  for (size_t i = 0; i < m.graph_tensor.size(); ++i) {
    TensorId t = m.graph_tensor[i];
    if (t < 0 || m.graph.tensors[t].persistent) continue;  // TFLM keeps variables in its tail
    int b = live.buffer_of_tensor[t];
    if (b < 0) continue;
    Bytes off = offsets[b];
    if (off < 0 || off > std::numeric_limits<int32_t>::max())
      throw InputError("tensor " + m.graph.tensors[t].name, "offset " + std::to_string(off) +
                                                                " does not fit TFLM's int32 offsets");
    out[i] = static_cast<int32_t>(off);
  }
  return out;
}

std::optional<std::string> npu_plan_kept(const TfliteModel& m, std::string* npu_op) {
  if (!m.offline_offsets) return std::nullopt;
  for (const Op& op : m.graph.ops) {
    if (!runs_on_npu(op.kind)) continue;
    if (npu_op) *npu_op = op.name;
    return std::string("runs on the Ethos-U NPU: its command stream addresses the feature maps Vela placed "
                       "inside its scratch tensor, at the offsets of the model's offline plan, so arenaplan keeps "
                       "that plan and does not re-plan the model (tflm-arena sizes it as Vela wrote it)");
  }
  return std::nullopt;
}

int keep_offline_offsets(LayoutProblem& problem, const TfliteModel& m, const LiveAnalysis& live) {
  if (!m.offline_offsets) return 0;
  std::string npu_op;
  if (const std::optional<std::string> kept = npu_plan_kept(m, &npu_op)) throw InputError("op " + npu_op, *kept);
  std::vector<std::optional<Bytes>> want(problem.buffers.size());
  std::vector<char> conflict(problem.buffers.size(), 0);
  for (size_t i = 0; i < m.offline_offsets->size() && i < m.graph_tensor.size(); ++i) {
    const int32_t off = (*m.offline_offsets)[i];
    const TensorId t = m.graph_tensor[i];
    if (off < 0 || t < 0 || m.graph.tensors[t].persistent) continue;
    const int b = live.buffer_of_tensor[t];
    if (b < 0 || static_cast<size_t>(b) >= problem.buffers.size()) continue;
    if (want[b] && *want[b] != off) conflict[b] = 1;
    want[b] = off;
  }
  int fixed = 0;
  for (size_t b = 0; b < problem.buffers.size(); ++b) {
    if (!want[b] || conflict[b]) continue;
    LayoutBuffer& buf = problem.buffers[b];
    buf.fixed_offset = *want[b];
    if (*want[b] % buf.alignment != 0) buf.alignment = 1;  // TFLM takes offsets as they are
    ++fixed;
  }
  return fixed;
}

std::string tflite_with_offline_plan(std::string_view model_bytes, const std::vector<int32_t>& offsets) {
  std::string aligned(model_bytes);  // heap copy: aligned like the importer wants
  const tfl::Model* model = checked_model(aligned);
  const auto* base = reinterpret_cast<const uint8_t*>(aligned.data());
  const int32_t sg0 = model->subgraphs()->Get(0)->tensors() ? model->subgraphs()->Get(0)->tensors()->size() : 0;
  if (static_cast<int32_t>(offsets.size()) != sg0)
    throw InputError("offline plan", std::to_string(offsets.size()) + " offsets for a subgraph of " +
                                         std::to_string(sg0) + " tensors");
  int64_t total = 0;
  for (flatbuffers::uoffset_t s = 0; s < model->subgraphs()->size(); ++s)
    total += model->subgraphs()->Get(s)->tensors() ? model->subgraphs()->Get(s)->tensors()->size() : 0;
  if (model->buffers())
    for (flatbuffers::uoffset_t k = 0; k < model->buffers()->size(); ++k)
      if (model->buffers()->Get(k)->offset() > 1)
        throw InputError("model", "keeps weights outside the flatbuffer (> 2 GB format): not supported");

  // The Model table's fields, read through its vtable so unknown-to-us fields are caught.
  const auto* model_table = reinterpret_cast<const flatbuffers::Table*>(model);
  const size_t model_pos = reinterpret_cast<const uint8_t*>(model) - base;
  const uint8_t* vtable = model_table->GetVTable();
  const int old_fields = (flatbuffers::ReadScalar<uint16_t>(vtable) - 4) / 2;
  for (int f = kModelFields; f < old_fields; ++f)
    if (model_table->GetOptionalFieldOffset(static_cast<flatbuffers::voffset_t>(4 + 2 * f)) != 0)
      throw InputError("model", "has Model field " + std::to_string(f) + ", newer than this tool knows");

  // What the new vectors hold: old tables (by old position) and the new ones.
  std::vector<size_t> old_buffers, old_metadata;
  if (model->buffers())
    for (flatbuffers::uoffset_t k = 0; k < model->buffers()->size(); ++k)
      old_buffers.push_back(reinterpret_cast<const uint8_t*>(model->buffers()->Get(k)) - base);
  if (model->metadata())
    for (flatbuffers::uoffset_t k = 0; k < model->metadata()->size(); ++k) {
      const tfl::Metadata* md = model->metadata()->Get(k);
      if (md->name() && md->name()->str() == kOfflineMetadataName) continue;  // replaced below
      old_metadata.push_back(reinterpret_cast<const uint8_t*>(md) - base);
    }
  // Buffer 0 is the always-empty buffer activations point at: ours must never take its place.
  if (old_buffers.empty()) throw InputError("model", "has no buffers (not even the empty buffer 0)");
  const uint32_t new_buffer_index = static_cast<uint32_t>(old_buffers.size());
  std::vector<int32_t> words = {1, 0, static_cast<int32_t>(total)};
  words.insert(words.end(), offsets.begin(), offsets.end());
  words.resize(3 + static_cast<size_t>(total), -1);

  // Two passes: the first learns the prefix size P (old positions shift by P), the second writes.
  size_t prefix_size = 0;
  std::string result;
  for (int pass = 0; pass < 2; ++pass) {
    Prefix p;
    const size_t P = prefix_size;
    p.u32(0);  // root offset, patched below
    p.bytes += "TFL3";
    // Model vtable: all 8 known fields (4-byte slots: version is a uint, the rest are offsets).
    const size_t model_vt = p.pos();
    p.u16(static_cast<uint16_t>(4 + 2 * kModelFields));
    p.u16(static_cast<uint16_t>(4 + 4 * kModelFields));
    for (int f = 0; f < kModelFields; ++f) p.u16(static_cast<uint16_t>(4 + 4 * f));
    p.pad_to(4);
    const size_t model_at = p.pos();
    p.u32(static_cast<uint32_t>(model_at - model_vt));  // soffset: vtable lies before the table
    for (int f = 0; f < kModelFields; ++f) p.u32(0);
    const auto field_at = [&](int f) { return model_at + 4 + 4 * f; };
    // Metadata vector (old entries + ours), then our Metadata table and its name.
    const size_t md_vec = p.pos();
    p.u32(static_cast<uint32_t>(old_metadata.size() + 1));
    for (size_t k = 0; k <= old_metadata.size(); ++k) p.u32(0);
    const size_t md_vt = p.pos();
    p.u16(8); p.u16(12); p.u16(4); p.u16(8);
    const size_t md_at = p.pos();
    p.u32(static_cast<uint32_t>(md_at - md_vt));
    p.u32(0);  // name
    p.u32(new_buffer_index);
    const size_t name_at = p.pos();
    p.u32(static_cast<uint32_t>(std::strlen(kOfflineMetadataName)));
    p.bytes += kOfflineMetadataName;
    p.bytes.push_back('\0');
    p.pad_to(4);
    // Buffers vector (old entries + ours), our Buffer table, its 16-aligned data.
    const size_t buf_vec = p.pos();
    p.u32(static_cast<uint32_t>(old_buffers.size() + 1));
    for (size_t k = 0; k <= old_buffers.size(); ++k) p.u32(0);
    const size_t buf_vt = p.pos();
    p.u16(6); p.u16(8); p.u16(4);
    p.pad_to(4);
    const size_t buf_at = p.pos();
    p.u32(static_cast<uint32_t>(buf_at - buf_vt));
    p.u32(0);  // data
    while ((p.pos() + 4) % 16) p.bytes.push_back('\0');
    const size_t data_at = p.pos();
    p.u32(static_cast<uint32_t>(words.size() * 4));
    p.bytes.append(reinterpret_cast<const char*>(words.data()), words.size() * 4);
    p.pad_to(16);  // old bytes keep their alignment (force_align 16 for weights)
    if (pass == 0) {
      prefix_size = p.pos();
      continue;
    }
    // Offsets: new-to-new, and new-to-old (old position + P).
    p.put_offset(0, model_at);
    for (int f = 0; f < kModelFields; ++f) {
      const auto vo = static_cast<flatbuffers::voffset_t>(4 + 2 * f);
      if (f == kModelBuffersField) {
        p.put_offset(field_at(f), buf_vec);
      } else if (f == kModelMetadataField) {
        p.put_offset(field_at(f), md_vec);
      } else if (f < old_fields && model_table->GetOptionalFieldOffset(vo) != 0) {
        const size_t slot = model_pos + model_table->GetOptionalFieldOffset(vo);
        const uint32_t value = flatbuffers::ReadScalar<uint32_t>(base + slot);
        if (f == kModelVersionField) p.put_u32(field_at(f), value);
        else p.put_offset(field_at(f), P + slot + value);
      } else {
        // Absent: a zero vtable entry would be cleaner, but a slot that holds a default is legal
        // only for scalars; for offsets we must mark the field absent in the vtable.
        uint16_t zero = 0;
        std::memcpy(&p.bytes[model_vt + 4 + 2 * f], &zero, 2);
      }
    }
    for (size_t k = 0; k < old_metadata.size(); ++k) p.put_offset(md_vec + 4 + 4 * k, P + old_metadata[k]);
    p.put_offset(md_vec + 4 + 4 * old_metadata.size(), md_at);
    p.put_offset(md_at + 4, name_at);
    for (size_t k = 0; k < old_buffers.size(); ++k) p.put_offset(buf_vec + 4 + 4 * k, P + old_buffers[k]);
    p.put_offset(buf_vec + 4 + 4 * old_buffers.size(), buf_at);
    p.put_offset(buf_at + 4, data_at);
    if (p.pos() != P) throw std::logic_error("tflite export: prefix size changed between passes");
    result = p.bytes;
    result.append(aligned);
  }
  verify_output(result, "offline plan export");
  return result;
}

std::string tflite_reordered(std::string_view model_bytes, const std::vector<int32_t>& operator_order) {
  std::string out(model_bytes);
  const tfl::Model* model = checked_model(out);
  const auto* base = reinterpret_cast<const uint8_t*>(out.data());
  const auto* ops = model->subgraphs()->Get(0)->operators();
  const size_t n = ops ? ops->size() : 0;
  if (operator_order.size() != n)
    throw InputError("order", std::to_string(operator_order.size()) + " operators for a subgraph of " +
                                  std::to_string(n));
  std::vector<char> seen(n, 0);
  for (int32_t o : operator_order) {
    if (o < 0 || static_cast<size_t>(o) >= n || seen[o])
      throw InputError("order", "is not a permutation of the operators (operator " + std::to_string(o) + ")");
    seen[o] = 1;
  }
  if (n == 0) return out;
  const size_t vec = reinterpret_cast<const uint8_t*>(ops) - base;  // the length word
  const size_t vec_end = vec + 4 + 4 * n;
  std::vector<size_t> target(n);
  for (size_t k = 0; k < n; ++k) {
    target[k] = reinterpret_cast<const uint8_t*>(ops->Get(static_cast<flatbuffers::uoffset_t>(k))) - base;
    if (target[k] < vec_end)
      throw InputError("model", "operator tables precede their vector: cannot reorder in place");
  }
  for (size_t k = 0; k < n; ++k) {
    const size_t slot = vec + 4 + 4 * k;
    const uint32_t rel = static_cast<uint32_t>(target[operator_order[k]] - slot);
    std::memcpy(&out[slot], &rel, 4);
  }
  verify_output(out, "reordered export");
  // The new file order must be a valid schedule: every operator after the producers of its inputs.
  TfliteImportOptions keep;
  keep.fold_constant_ops = false;
  TfliteModel back = import_tflite(out, keep);
  check_order(back.graph, back.graph.file_order());
  return out;
}

std::vector<int32_t> file_operator_order(const TfliteModel& m, const Schedule& order) {
  std::vector<int32_t> out = m.folded_ops;
  for (OpId o : order) out.push_back(m.op_index.at(o));
  return out;
}

}  // namespace arenaplan
