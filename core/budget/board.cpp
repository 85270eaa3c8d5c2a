#include "core/budget/board.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <set>

#include "core/graph/graph_json.h"
#include "core/graph/json_read.h"

namespace arenaplan {

namespace {

// An enum value with its JSON spelling; each enum's names live in one table.
template <typename E>
struct Named {
  E value;
  const char* name;
};

constexpr Named<RegionAttribute> kAttributes[] = {
    {RegionAttribute::kDma, "dma"}, {RegionAttribute::kAccelerator, "accelerator"}, {RegionAttribute::kFast, "fast"}};

constexpr Named<ReservationKind> kKinds[] = {
    {ReservationKind::kStack, "stack"},           {ReservationKind::kServices, "services"},
    {ReservationKind::kAcquisition, "acquisition"}, {ReservationKind::kPersistent, "persistent"},
    {ReservationKind::kHeap, "heap"},             {ReservationKind::kConversion, "conversion"},
    {ReservationKind::kOther, "other"}};

constexpr Named<Phase> kPhases[] = {{Phase::kAlways, "always"}, {Phase::kInit, "init"}, {Phase::kInference, "inference"}};

template <typename Table>
std::string names_of(const Table& table) {
  std::string out;
  for (const auto& e : table) out += (out.empty() ? "" : ", ") + std::string(e.name);
  return out;
}

// The name of `value` in `table`, or `unknown` for a value the table does not list.
template <typename E, size_t N>
const char* name_in(const Named<E> (&table)[N], E value, const char* unknown) {
  for (const auto& e : table)
    if (e.value == value) return e.name;
  return unknown;
}

template <typename E, size_t N>
std::optional<E> value_in(const Named<E> (&table)[N], const std::string& name) {
  for (const auto& e : table)
    if (name == e.name) return e.value;
  return std::nullopt;
}

using namespace json_read;

Bytes get_bytes(const Json& j, const std::string& where) {
  Bytes b = 0;
  if (j.is_string()) b = parse_byte_size(j.get<std::string>(), where);
  else if (j.is_number_unsigned() && j.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
    throw InputError(where, "number overflows 64 bits");
  else if (j.is_number_integer()) b = j.get<int64_t>();
  else throw InputError(where, "expected a byte count (integer or \"16KiB\"), found " + kind_of(j));
  if (b <= 0) throw InputError(where, "size must be positive");
  return b;
}

// Addresses are usually written in hex ("0x20000000"); decimal integers work too.
uint64_t get_address(const Json& j, const std::string& where) {
  if (j.is_number_unsigned()) return j.get<uint64_t>();
  if (j.is_number_integer()) {
    if (j.get<int64_t>() < 0) throw InputError(where, "an address cannot be negative");
    return static_cast<uint64_t>(j.get<int64_t>());
  }
  if (!j.is_string()) throw InputError(where, "expected an address (\"0x20000000\" or an integer), found " + kind_of(j));
  std::string s = j.get<std::string>();
  const std::string expect = "expected an address like \"0x20000000\", found \"" + s + "\"";
  int radix = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    radix = 16;
    s = s.substr(2);
  }
  if (s.empty() || s.size() > (radix == 16 ? 16u : 19u)) throw InputError(where, expect);
  uint64_t v = 0;
  for (char c : s) {
    int d = (c >= '0' && c <= '9') ? c - '0'
            : (radix == 16 && c >= 'a' && c <= 'f') ? c - 'a' + 10
            : (radix == 16 && c >= 'A' && c <= 'F') ? c - 'A' + 10
                                                    : -1;
    if (d < 0) throw InputError(where, expect);
    v = v * radix + d;
  }
  return v;
}

std::vector<RegionAttribute> parse_attributes(const Json& j, const std::string& where) {
  if (!j.is_array()) throw InputError(where, "expected an array of attributes (" + names_of(kAttributes) + ")");
  std::vector<RegionAttribute> out;
  for (size_t i = 0; i < j.size(); ++i) {
    std::string name = get_string(j[i], ptr(where, i));
    auto a = attribute_from_name(name);
    if (!a) throw InputError(ptr(where, i), "unknown attribute \"" + name + "\"; expected one of: " + names_of(kAttributes));
    if (std::find(out.begin(), out.end(), *a) == out.end()) out.push_back(*a);
  }
  return out;
}

RegionId region_ref(const MemoryMap& m, const Json& j, const std::string& where) {
  std::string name = get_string(j, where);
  auto r = m.find_region(name);
  if (!r) throw InputError(where, "unknown region \"" + name + "\" (not declared in /regions)");
  return *r;
}

Region parse_region(const Json& j, const std::string& where) {
  if (!j.is_object()) throw InputError(where, "expected a region object, found " + kind_of(j));
  expect_keys(j, where, {"name", "base", "size", "attributes", "source", "doc"});
  Region r;
  r.name = get_string(require(j, "name", where), ptr(where, "name"));
  if (r.name.empty()) throw InputError(ptr(where, "name"), "region names must not be empty");
  if (j.contains("base")) r.base = get_address(j["base"], ptr(where, "base"));
  r.size = get_bytes(require(j, "size", where), ptr(where, "size"));
  if (j.contains("attributes")) r.attributes = parse_attributes(j["attributes"], ptr(where, "attributes"));
  if (j.contains("source")) r.source = get_string(j["source"], ptr(where, "source"));
  return r;
}

Reservation parse_reservation(const MemoryMap& m, const Json& j, const std::string& where) {
  if (!j.is_object()) throw InputError(where, "expected a reservation object, found " + kind_of(j));
  expect_keys(j, where, {"owner", "kind", "region", "bytes", "phase", "in_arena", "assumption", "doc"});
  Reservation r;
  r.owner = get_string(require(j, "owner", where), ptr(where, "owner"));
  if (r.owner.empty()) throw InputError(ptr(where, "owner"), "say who owns this memory");
  if (j.contains("kind")) {
    std::string k = get_string(j["kind"], ptr(where, "kind"));
    auto kind = reservation_kind_from_name(k);
    if (!kind) throw InputError(ptr(where, "kind"), "unknown kind \"" + k + "\"; expected one of: " + names_of(kKinds));
    r.kind = *kind;
  }
  r.region = j.contains("region") ? region_ref(m, j["region"], ptr(where, "region")) : m.arena_regions.front();
  r.bytes = get_bytes(require(j, "bytes", where), ptr(where, "bytes"));
  if (j.contains("phase")) {
    std::string p = get_string(j["phase"], ptr(where, "phase"));
    auto phase = phase_from_name(p);
    if (!phase) throw InputError(ptr(where, "phase"), "unknown phase \"" + p + "\"; expected one of: " + names_of(kPhases));
    r.phase = *phase;
  }
  if (j.contains("in_arena")) {
    r.in_arena = get_bool(j["in_arena"], ptr(where, "in_arena"));
    if (r.in_arena && r.phase != Phase::kInit)
      throw InputError(ptr(where, "in_arena"),
                       "only init-phase temporaries can borrow the arena (it is in use during inference)");
  }
  if (j.contains("assumption")) r.assumption = get_bool(j["assumption"], ptr(where, "assumption"));
  return r;
}

PlacementConstraint parse_constraint(const MemoryMap& m, const Json& j, const std::string& where) {
  if (!j.is_object()) throw InputError(where, "expected a constraint object, found " + kind_of(j));
  expect_keys(j, where, {"tensor", "op_kind", "async_read", "requires", "region", "why", "doc"});
  PlacementConstraint c;
  c.where = where;
  int selectors = 0;
  if (j.contains("tensor")) {
    c.select.tensor = get_string(j["tensor"], ptr(where, "tensor"));
    if (c.select.tensor.empty()) throw InputError(ptr(where, "tensor"), "tensor name must not be empty");
    ++selectors;
  }
  if (j.contains("op_kind")) {
    c.select.op_kind = get_string(j["op_kind"], ptr(where, "op_kind"));
    if (c.select.op_kind.empty()) throw InputError(ptr(where, "op_kind"), "op kind must not be empty");
    ++selectors;
  }
  if (j.contains("async_read")) {
    c.select.async_read = get_bool(j["async_read"], ptr(where, "async_read"));
    if (!c.select.async_read) throw InputError(ptr(where, "async_read"), "only true selects anything");
    ++selectors;
  }
  if (selectors != 1)
    throw InputError(where, "give exactly one of \"tensor\", \"op_kind\" or \"async_read\" to say which buffers");
  if (j.contains("requires")) c.requires_attributes = parse_attributes(j["requires"], ptr(where, "requires"));
  if (j.contains("region")) c.region = region_ref(m, j["region"], ptr(where, "region"));
  if (c.requires_attributes.empty() && !c.region)
    throw InputError(where, "give \"requires\" (region attributes) and/or \"region\" to say where");
  if (j.contains("why")) c.why = get_string(j["why"], ptr(where, "why"));
  return c;
}

// The libraries TFLM's kernels come in; the cycle profiles (sim_cycles.h) exist per library.
constexpr const char* kKernelLibraries[] = {"cmsis-nn", "reference"};

std::string figure_source(const Json& j, const std::string& where) {
  if (!j.contains("source")) throw InputError(ptr(where, "source"), "say which document the figure comes from");
  const std::string s = get_string(j["source"], ptr(where, "source"));
  if (s.empty()) throw InputError(ptr(where, "source"), "say which document the figure comes from");
  return s;
}

void parse_clock(MemoryMap& m, const Json& j) {
  const std::string where = "/clock";
  if (!j.is_object()) throw InputError(where, "expected {\"mhz\": NUMBER, \"source\": TEXT}, found " + kind_of(j));
  expect_keys(j, where, {"mhz", "source", "doc"});
  const Json& mhz = require(j, "mhz", where);
  if (!mhz.is_number() || !(mhz.get<double>() > 0) || mhz.get<double>() > 100000)
    throw InputError(ptr(where, "mhz"), "expected a clock in MHz (a positive number), found " + mhz.dump());
  m.clock_mhz = mhz.get<double>();
  m.clock_source = figure_source(j, where);
}

void parse_flash(MemoryMap& m, const Json& j) {
  const std::string where = "/flash";
  if (!j.is_object()) throw InputError(where, "expected {\"size\": \"2MiB\", \"source\": TEXT}, found " + kind_of(j));
  expect_keys(j, where, {"size", "source", "doc"});
  m.flash_bytes = get_bytes(require(j, "size", where), ptr(where, "size"));
  m.flash_source = figure_source(j, where);
}

void parse_kernels(MemoryMap& m, const Json& j) {
  const std::string where = "/kernels";
  if (!j.is_object())
    throw InputError(where, "expected {\"library\": \"cmsis-nn\" or \"reference\", \"source\": TEXT}, found " + kind_of(j));
  expect_keys(j, where, {"library", "source", "doc"});
  m.kernels = get_string(require(j, "library", where), ptr(where, "library"));
  if (std::find_if(std::begin(kKernelLibraries), std::end(kKernelLibraries),
                   [&](const char* k) { return m.kernels == k; }) == std::end(kKernelLibraries))
    throw InputError(ptr(where, "library"), "unknown kernel library \"" + m.kernels + "\"; expected cmsis-nn or reference");
  m.kernels_source = figure_source(j, where);
}

}  // namespace

const char* attribute_name(RegionAttribute a) { return name_in(kAttributes, a, "?"); }
std::optional<RegionAttribute> attribute_from_name(const std::string& name) { return value_in(kAttributes, name); }
const char* reservation_kind_name(ReservationKind k) { return name_in(kKinds, k, "other"); }
std::optional<ReservationKind> reservation_kind_from_name(const std::string& name) { return value_in(kKinds, name); }
const char* phase_name(Phase p) { return name_in(kPhases, p, "always"); }
std::optional<Phase> phase_from_name(const std::string& name) { return value_in(kPhases, name); }

bool Region::has(RegionAttribute a) const {
  return std::find(attributes.begin(), attributes.end(), a) != attributes.end();
}

std::optional<RegionId> MemoryMap::find_region(const std::string& n) const {
  for (size_t i = 0; i < regions.size(); ++i)
    if (regions[i].name == n) return static_cast<RegionId>(i);
  return std::nullopt;
}

std::string PlacementConstraint::describe(const std::vector<Region>& regions) const {
  std::string who = !select.tensor.empty()    ? "tensor " + select.tensor
                    : !select.op_kind.empty() ? "operands of " + select.op_kind + " ops"
                                              : "asynchronously read tensors";
  std::string need;
  for (RegionAttribute a : requires_attributes) need += (need.empty() ? "" : "+") + std::string(attribute_name(a));
  std::string out = where + " (" + who;
  if (!need.empty()) out += " require " + need;
  if (region && *region >= 0 && static_cast<size_t>(*region) < regions.size())
    out += (need.empty() ? " must be in region " : " in region ") + regions[*region].name;
  if (!why.empty()) out += ": " + why;
  return out + ")";
}

void validate_board(const MemoryMap& m) {
  if (m.regions.empty()) throw InputError("/regions", "a board needs at least one region");
  std::set<std::string> names;
  for (size_t i = 0; i < m.regions.size(); ++i) {
    const Region& r = m.regions[i];
    if (!names.insert(r.name).second)
      throw InputError(ptr(ptr("/regions", i), "name"), "duplicate region name \"" + r.name + "\"");
    if (r.size <= 0) throw InputError(ptr(ptr("/regions", i), "size"), "size must be positive");
    if (r.base > UINT64_MAX - static_cast<uint64_t>(r.size))
      throw InputError(ptr("/regions", i), "base + size overflows 64-bit addresses");
  }
  auto valid = [&](RegionId r) { return r >= 0 && static_cast<size_t>(r) < m.regions.size(); };
  if (m.arena_regions.empty()) throw InputError("/arena_regions", "name at least one region for the arena");
  for (size_t i = 0; i < m.arena_regions.size(); ++i)
    if (!valid(m.arena_regions[i])) throw InputError(ptr("/arena_regions", i), "names no region");
  for (size_t i = 0; i < m.reservations.size(); ++i) {
    const Reservation& r = m.reservations[i];
    const std::string where = ptr("/reservations", i);
    if (!valid(r.region)) throw InputError(ptr(where, "region"), "names no region");
    if (r.bytes <= 0) throw InputError(ptr(where, "bytes"), "size must be positive");
    if (r.in_arena && r.phase != Phase::kInit)
      throw InputError(ptr(where, "in_arena"), "only init-phase temporaries can borrow the arena");
  }
  for (const PlacementConstraint& c : m.constraints)
    if (c.region && !valid(*c.region)) throw InputError(c.where + "/region", "names no region");
}

std::vector<std::string> use_model_persistent(MemoryMap& board, Bytes bytes, const std::string& owner) {
  std::vector<std::string> replaced;
  std::optional<RegionId> region;
  std::vector<Reservation> kept;
  for (Reservation& r : board.reservations) {
    if (r.kind != ReservationKind::kPersistent) {
      kept.push_back(std::move(r));
      continue;
    }
    if (!region) region = r.region;
    replaced.push_back(r.owner);
  }
  Reservation model;
  model.owner = owner;
  model.kind = ReservationKind::kPersistent;
  model.region = region.value_or(board.arena_regions.empty() ? 0 : board.arena_regions.front());
  model.bytes = bytes;
  kept.push_back(std::move(model));
  board.reservations = std::move(kept);
  validate_board(board);
  return replaced;
}

MemoryMap parse_board_json(std::string_view text) {
  Json doc = parse_document(text);
  if (!doc.is_object()) throw InputError("/", "expected a board object, found " + kind_of(doc));
  // The format first: a graph file given as a board should say so, not complain about its keys.
  if (get_string(require(doc, "format", ""), "/format") != "arenaplan-board")
    throw InputError("/format", "expected \"arenaplan-board\" (is this a graph file?)");
  expect_keys(doc, "", {"format", "version", "name", "title", "core", "source", "regions", "arena_regions",
                        "reservations", "constraints", "doc", "clock", "flash", "kernels"});
  if (doc.contains("version")) {
    if (!doc["version"].is_number_integer() || doc["version"].get<int64_t>() != 1)
      throw InputError("/version", "unsupported version (this tool reads version 1)");
  }
  MemoryMap m;
  m.name = doc.contains("name") ? get_string(doc["name"], "/name") : "board";
  if (doc.contains("title")) m.title = get_string(doc["title"], "/title");
  if (doc.contains("core")) m.core = get_string(doc["core"], "/core");
  if (doc.contains("doc")) m.description = get_string(doc["doc"], "/doc");
  if (doc.contains("source")) m.source = get_string(doc["source"], "/source");
  if (doc.contains("clock")) parse_clock(m, doc["clock"]);
  if (doc.contains("flash")) parse_flash(m, doc["flash"]);
  if (doc.contains("kernels")) parse_kernels(m, doc["kernels"]);
  const Json& regions = require(doc, "regions", "");
  if (!regions.is_array() || regions.empty()) throw InputError("/regions", "expected a non-empty array of regions");
  for (size_t i = 0; i < regions.size(); ++i) {
    Region r = parse_region(regions[i], ptr("/regions", i));
    if (m.find_region(r.name))
      throw InputError(ptr(ptr("/regions", i), "name"), "duplicate region name \"" + r.name + "\"");
    m.regions.push_back(std::move(r));
  }
  if (doc.contains("arena_regions")) {
    const Json& a = doc["arena_regions"];
    if (!a.is_array() || a.empty()) throw InputError("/arena_regions", "expected a non-empty array of region names");
    for (size_t i = 0; i < a.size(); ++i) {
      RegionId r = region_ref(m, a[i], ptr("/arena_regions", i));
      if (std::find(m.arena_regions.begin(), m.arena_regions.end(), r) != m.arena_regions.end())
        throw InputError(ptr("/arena_regions", i), "region listed twice");
      m.arena_regions.push_back(r);
    }
  } else {
    m.arena_regions.push_back(0);
  }
  if (doc.contains("reservations")) {
    const Json& rs = doc["reservations"];
    if (!rs.is_array()) throw InputError("/reservations", "expected an array of reservations");
    for (size_t i = 0; i < rs.size(); ++i) m.reservations.push_back(parse_reservation(m, rs[i], ptr("/reservations", i)));
  }
  if (doc.contains("constraints")) {
    const Json& cs = doc["constraints"];
    if (!cs.is_array()) throw InputError("/constraints", "expected an array of placement constraints");
    for (size_t i = 0; i < cs.size(); ++i) m.constraints.push_back(parse_constraint(m, cs[i], ptr("/constraints", i)));
  }
  validate_board(m);
  return m;
}

std::string board_to_json(const MemoryMap& m) {
  auto hex = [](uint64_t v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
    return std::string(buf);
  };
  auto attrs = [](const std::vector<RegionAttribute>& as) {
    Json a = Json::array();
    for (RegionAttribute x : as) a.push_back(attribute_name(x));
    return a;
  };
  Json doc;
  doc["format"] = "arenaplan-board";
  doc["version"] = 1;
  doc["name"] = m.name;
  if (!m.title.empty()) doc["title"] = m.title;
  if (!m.core.empty()) doc["core"] = m.core;
  if (!m.description.empty()) doc["doc"] = m.description;
  if (!m.source.empty()) doc["source"] = m.source;
  Json regions = Json::array();
  for (const Region& r : m.regions) {
    Json jr = {{"name", r.name}, {"base", hex(r.base)}, {"size", r.size}};
    if (!r.attributes.empty()) jr["attributes"] = attrs(r.attributes);
    if (!r.source.empty()) jr["source"] = r.source;
    regions.push_back(jr);
  }
  doc["regions"] = regions;
  Json ar = Json::array();
  for (RegionId r : m.arena_regions) ar.push_back(m.regions[r].name);
  doc["arena_regions"] = ar;
  Json rs = Json::array();
  for (const Reservation& r : m.reservations) {
    Json jr = {{"owner", r.owner}, {"kind", reservation_kind_name(r.kind)}, {"region", m.regions[r.region].name},
               {"bytes", r.bytes}};
    if (r.phase != Phase::kAlways) jr["phase"] = phase_name(r.phase);
    if (r.in_arena) jr["in_arena"] = true;
    if (r.assumption) jr["assumption"] = true;
    rs.push_back(jr);
  }
  doc["reservations"] = rs;
  Json cs = Json::array();
  for (const PlacementConstraint& c : m.constraints) {
    Json jc = Json::object();
    if (!c.select.tensor.empty()) jc["tensor"] = c.select.tensor;
    if (!c.select.op_kind.empty()) jc["op_kind"] = c.select.op_kind;
    if (c.select.async_read) jc["async_read"] = true;
    if (!c.requires_attributes.empty()) jc["requires"] = attrs(c.requires_attributes);
    if (c.region) jc["region"] = m.regions[*c.region].name;
    if (!c.why.empty()) jc["why"] = c.why;
    cs.push_back(jc);
  }
  if (!cs.empty()) doc["constraints"] = cs;
  if (m.clock_mhz > 0) doc["clock"] = {{"mhz", m.clock_mhz}, {"source", m.clock_source}};
  if (m.flash_bytes > 0) doc["flash"] = {{"size", m.flash_bytes}, {"source", m.flash_source}};
  if (!m.kernels.empty()) doc["kernels"] = {{"library", m.kernels}, {"source", m.kernels_source}};
  return doc.dump(2);
}

}  // namespace arenaplan
