// ONNX -> IR, read straight from the file's bytes (onnx_wire.h): no onnx::ModelProto is built, so
// the graph is never held twice and weights stored in the file are copied once, into the IR.
// External data is mapped lazily after its location has been checked to stay inside the
// model's folder.
#include <sys/mman.h>

#include <charconv>
#include <climits>
#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "model/mapped_file.h"
#include "model/onnx_io.h"
#include "model/model_check.h"
#include "model/onnx_proto.h"
#include "model/onnx_wire.h"

namespace fs = std::filesystem;

namespace msa {
namespace {

using wire::Reader;

constexpr int64_t kMaxDim = int64_t(1) << 40;
constexpr int64_t kMaxElements = int64_t(1) << 50;
constexpr size_t kPage = 4096;
constexpr uintptr_t kReleaseBatch = uintptr_t(8) << 20;  // file pages given back 8 MB at a time

// Malformed wire data anywhere: the whole file is refused ("the protobuf does not parse").
struct Malformed {};
[[noreturn]] void malformed() { throw Malformed{}; }

// One field of a message: its number, wire type, and the reader positioned on its value.
struct Field {
  uint32_t number = 0;
  int type = 0;
  const char* start = nullptr;  // the tag
};

// Walks a message's fields; f(field, reader) returns false for a field it does not take, which
// is then kept as unknown (byte for byte) when `unknown` is given, dropped otherwise.
template <typename F>
void forEachField(std::string_view bytes, int depth, std::string* unknown, F&& f) {
  if (depth > wire::kMaxDepth) malformed();
  Reader r(bytes);
  while (!r.done()) {
    Field fd;
    fd.start = r.position();
    if (!r.tag(fd.number, fd.type) || fd.type == wire::EndGroup) malformed();
    if (f(fd, r)) continue;
    if (!r.skip(fd.number, fd.type)) malformed();
    if (unknown) unknown->append(fd.start, static_cast<size_t>(r.position() - fd.start));
  }
}

uint64_t varint(Reader& r) {
  uint64_t v;
  if (!r.varint(v)) malformed();
  return v;
}
std::string_view bytes(Reader& r) {
  std::string_view v;
  if (!r.bytes(v)) malformed();
  return v;
}
std::string string(Reader& r) { return std::string(bytes(r)); }
float fixedFloat(Reader& r) {
  uint32_t u;
  if (!r.fixed32(u)) malformed();
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
double fixedDouble(Reader& r) {
  uint64_t u;
  if (!r.fixed64(u)) malformed();
  double d;
  std::memcpy(&d, &u, 8);
  return d;
}

// A repeated scalar, packed or one element per field; false for another wire type (unknown).
template <typename T, typename Read>
bool repeated(const Field& f, Reader& r, int scalarType, std::vector<T>& out, Read read) {
  if (f.type == wire::Bytes) {
    Reader p(bytes(r));
    while (!p.done()) out.push_back(read(p));
    return true;
  }
  if (f.type != scalarType) return false;
  out.push_back(read(r));
  return true;
}

auto readInt64 = [](Reader& r) { return static_cast<int64_t>(varint(r)); };
auto readInt32 = [](Reader& r) { return static_cast<int32_t>(static_cast<uint32_t>(varint(r))); };

// StringStringEntryProto: key = 1, value = 2.
std::pair<std::string, std::string> entry(std::string_view b, int depth) {
  std::pair<std::string, std::string> kv;
  forEachField(b, depth, nullptr, [&](const Field& f, Reader& r) {
    if (f.type != wire::Bytes || (f.number != 1 && f.number != 2)) return false;
    (f.number == 1 ? kv.first : kv.second) = string(r);
    return true;
  });
  return kv;
}

// The fields of a TensorProto, gathered before they are interpreted (the type may come last).
struct TensorFields {
  std::string name, docString, unknown;
  int32_t dataType = 0;
  int32_t dataLocation = 0;
  std::vector<int64_t> dims;
  std::optional<std::string_view> raw;
  std::vector<float> floats;
  std::vector<int32_t> int32s;
  std::vector<std::string> strings;
  std::vector<int64_t> int64s;
  std::vector<double> doubles;
  std::vector<uint64_t> uint64s;
  std::vector<std::pair<std::string, std::string>> external;
};

void parseTensor(std::string_view b, int depth, TensorFields& t) {
  forEachField(b, depth, &t.unknown, [&](const Field& f, Reader& r) {
    switch (f.number) {
      case 1: return repeated(f, r, wire::Varint, t.dims, readInt64);
      case 2:
        if (f.type != wire::Varint) return false;
        t.dataType = readInt32(r);
        return true;
      case 4: return repeated(f, r, wire::Fixed32, t.floats, fixedFloat);
      case 5: return repeated(f, r, wire::Varint, t.int32s, readInt32);
      case 6:
        if (f.type != wire::Bytes) return false;
        t.strings.push_back(string(r));
        return true;
      case 7: return repeated(f, r, wire::Varint, t.int64s, readInt64);
      case 8:
      case 12:
        if (f.type != wire::Bytes) return false;
        (f.number == 8 ? t.name : t.docString) = string(r);
        return true;
      case 9:
        if (f.type != wire::Bytes) return false;
        t.raw = bytes(r);
        return true;
      case 10: return repeated(f, r, wire::Fixed64, t.doubles, fixedDouble);
      case 11: return repeated(f, r, wire::Varint, t.uint64s, [](Reader& x) { return varint(x); });
      case 13:
        if (f.type != wire::Bytes) return false;
        t.external.push_back(entry(bytes(r), depth + 1));
        return true;
      case 14: {  // an enum: a value the schema lacks is an unknown field
        if (f.type != wire::Varint) return false;
        Reader peek = r;
        const int32_t v = readInt32(peek);
        if (v != 0 && v != 1) return false;
        r = peek;
        t.dataLocation = v;
        return true;
      }
      default: return false;
    }
  });
}

// TypeProto.Tensor / TypeProto.SparseTensor: elem_type = 1, shape = 2 (merged when repeated).
struct NegativeDim {
  int64_t value;
};

void parseTensorType(std::string_view b, int depth, TypeInfo& t) {
  forEachField(b, depth, nullptr, [&](const Field& f, Reader& r) {
    if (f.number == 1 && f.type == wire::Varint) {
      t.elem = static_cast<DType>(readInt32(r));
      return true;
    }
    if (f.number != 2 || f.type != wire::Bytes) return false;
    if (!t.shape) t.shape = Shape{};
    forEachField(bytes(r), depth + 1, nullptr, [&](const Field& df, Reader& dr) {
      if (df.number != 1 || df.type != wire::Bytes) return false;
      // Dimension: dim_value = 1 or dim_param = 2 (a oneof: the last one counts).
      Dim dim;
      int last = 0;
      int64_t value = 0;
      std::string param;
      forEachField(bytes(dr), depth + 2, nullptr, [&](const Field& vf, Reader& vr) {
        if (vf.number == 1 && vf.type == wire::Varint) {
          value = readInt64(vr);
          last = 1;
          return true;
        }
        if (vf.number == 2 && vf.type == wire::Bytes) {
          param = string(vr);
          last = 2;
          return true;
        }
        return false;
      });
      // A negative dim_value is no shape: the caller names the value it belongs to.
      if (last == 1 && value < 0) throw NegativeDim{value};
      if (last == 1) dim.value = value;
      else if (last == 2) dim.param = std::move(param);
      t.shape->dims.push_back(std::move(dim));
      return true;
    });
    return true;
  });
}

// TypeProto: value is a oneof (tensor_type 1, sequence_type 4, map_type 5, opaque_type 7,
// sparse_tensor_type 8, optional_type 9; the last one counts), denotation = 6.
TypeInfo parseType(std::string_view b, int depth) {
  TypeInfo t;
  uint32_t which = 0;
  std::vector<std::string_view> parts;  // occurrences of the chosen member, merged in order
  forEachField(b, depth, nullptr, [&](const Field& f, Reader& r) {
    if (f.type != wire::Bytes) return false;
    switch (f.number) {
      case 1: case 4: case 5: case 7: case 8: case 9:
        if (f.number != which) parts.clear();
        which = f.number;
        parts.push_back(bytes(r));
        return true;
      case 6: t.denotation = string(r); return true;
      default: return false;
    }
  });
  if (which == 1 || which == 8) {
    t.kind = which == 1 ? TypeInfo::Kind::Tensor : TypeInfo::Kind::SparseTensor;
    for (std::string_view p : parts) parseTensorType(p, depth + 1, t);
  } else if (which == 4) {
    t.kind = TypeInfo::Kind::Sequence;
  } else if (which == 5) {
    t.kind = TypeInfo::Kind::Map;
  } else if (which == 9) {
    t.kind = TypeInfo::Kind::Optional;
  } else if (which == 7) {
    t.kind = TypeInfo::Kind::Other;
  }
  if (t.kind != TypeInfo::Kind::None && t.kind != TypeInfo::Kind::Tensor) t.raw = std::string(b);
  return t;
}

class Importer {
 public:
  // `file`: the mapping `bytes` lie in (the pages of copied weights are given back as it goes);
  // null for bytes in memory.
  Importer(std::string label, fs::path baseDir, std::shared_ptr<const MappedFile> file = nullptr)
      : m_label(std::move(label)), m_baseDir(std::move(baseDir)), m_file(std::move(file)) {}

  Result<Model> run(std::string_view b) {
    Model m;
    m.irVersion = 0;  // absent from the file: 0, as protobuf reads it
    std::vector<std::string_view> graphs;
    forEachField(b, 0, &m.unknownFields, [&](const Field& f, Reader& r) {
      const bool isBytes = f.type == wire::Bytes, isVarint = f.type == wire::Varint;
      switch (f.number) {
        case 1: if (!isVarint) return false; m.irVersion = readInt64(r); return true;
        case 5: if (!isVarint) return false; m.modelVersion = readInt64(r); return true;
        case 2: if (!isBytes) return false; m.producerName = string(r); return true;
        case 3: if (!isBytes) return false; m.producerVersion = string(r); return true;
        case 4: if (!isBytes) return false; m.domain = string(r); return true;
        case 6: if (!isBytes) return false; m.docString = string(r); return true;
        case 7: if (!isBytes) return false; graphs.push_back(bytes(r)); return true;
        case 8: {
          if (!isBytes) return false;
          OpsetImport o;
          forEachField(bytes(r), 1, nullptr, [&](const Field& of, Reader& orr) {
            if (of.number == 1 && of.type == wire::Bytes) o.domain = string(orr);
            else if (of.number == 2 && of.type == wire::Varint) o.version = readInt64(orr);
            else return false;
            return true;
          });
          m.opsets.push_back(std::move(o));
          return true;
        }
        case 14: if (!isBytes) return false; m.metadata.push_back(entry(bytes(r), 1)); return true;
        case 20: if (!isBytes) return false; m.trainingInfo.push_back(string(r)); return true;
        case 25: if (!isBytes) return false; m.functions.push_back(string(r)); return true;
        default: return false;
      }
    });
    if (graphs.empty()) return fail("the file holds no graph (is it an ONNX model?)");
    importGraph(graphs, 1, m.graph);
    if (m_error) return *m_error;
    return m;
  }

  // A lone TensorProto (test data, input files); external data resolves against the base dir.
  Result<Tensor> runTensor(std::string_view b) {
    TensorFields tf;
    parseTensor(b, 0, tf);
    Tensor t = importTensor(tf, tf.name.empty() ? std::string("tensor") : "tensor '" + tf.name + "'");
    if (m_error) return *m_error;
    return t;
  }

 private:
  Error fail(std::string msg, std::string node = {}) { return Error::model(std::move(msg), m_label, std::move(node)); }
  void setError(std::string msg, std::string node = {}) {
    if (!m_error) m_error = fail(std::move(msg), std::move(node));
  }

  ValueInfo importValueInfo(std::string_view b, int depth) {
    ValueInfo v;
    std::vector<std::string_view> types;
    forEachField(b, depth, &v.unknownFields, [&](const Field& f, Reader& r) {
      if (f.type != wire::Bytes || f.number < 1 || f.number > 3) return false;
      if (f.number == 1) v.name = string(r);
      else if (f.number == 2) types.push_back(bytes(r));
      else v.docString = string(r);
      return true;
    });
    try {
      if (types.size() == 1) {
        v.type = parseType(types[0], depth + 1);
      } else if (types.size() > 1) {  // a message given twice is the merge of both
        std::string merged;
        for (std::string_view t : types) merged += t;
        v.type = parseType(merged, depth + 1);
      }
    } catch (const NegativeDim& d) {
      setError("value '" + v.name + "' declares a negative dimension (" + std::to_string(d.value) + ")");
    }
    return v;
  }

  // One GraphProto, given as the occurrences of its field (merged in order). Parts are taken in
  // a fixed order, so the first error reported does not depend on field order; everything is
  // read even after an error, so malformed bytes anywhere refuse the file as protobuf would.
  void importGraph(const std::vector<std::string_view>& parts, int depth, Graph& g) {
    std::vector<std::string_view> nodes, inputs, outputs, values, initializers;
    for (std::string_view b : parts)
      forEachField(b, depth, &g.unknownFields, [&](const Field& f, Reader& r) {
        if (f.type != wire::Bytes) return false;
        switch (f.number) {
          case 1: nodes.push_back(bytes(r)); return true;
          case 2: g.name = string(r); return true;
          case 5: initializers.push_back(bytes(r)); return true;
          case 10: g.docString = string(r); return true;
          case 11: inputs.push_back(bytes(r)); return true;
          case 12: outputs.push_back(bytes(r)); return true;
          case 13: values.push_back(bytes(r)); return true;
          case 14: g.quantizationAnnotations.push_back(string(r)); return true;
          case 15: g.sparseInitializers.push_back(string(r)); return true;
          default: return false;
        }
      });
    g.inputs.reserve(inputs.size());
    for (std::string_view v : inputs) g.inputs.push_back(importValueInfo(v, depth + 1));
    g.outputs.reserve(outputs.size());
    for (std::string_view v : outputs) g.outputs.push_back(importValueInfo(v, depth + 1));
    g.valueInfo.reserve(values.size());
    for (std::string_view v : values) g.valueInfo.push_back(importValueInfo(v, depth + 1));
    g.initializers.reserve(initializers.size());
    for (std::string_view b : initializers) {
      TensorFields tf;
      parseTensor(b, depth + 1, tf);
      const std::string where = "initializer '" + tf.name + "'";
      g.initializers.push_back(importTensor(tf, where));
    }

    g.nodes.reserve(nodes.size());
    std::unordered_set<std::string> names;
    for (std::string_view b : nodes) {
      Node n;
      n.id = g.nextNodeId++;
      std::vector<std::string_view> attributes;
      forEachField(b, depth + 1, &n.unknownFields, [&](const Field& f, Reader& r) {
        if (f.type != wire::Bytes) return false;
        switch (f.number) {
          case 1: n.inputs.push_back(string(r)); return true;
          case 2: n.outputs.push_back(string(r)); return true;
          case 3: n.name = string(r); return true;
          case 4: n.opType = string(r); return true;
          case 5: attributes.push_back(bytes(r)); return true;
          case 6: n.docString = string(r); return true;
          case 7: n.domain = string(r); return true;
          default: return false;
        }
      });
      if (n.opType.empty()) setError("node has no op_type", n.name);
      n.attributes.reserve(attributes.size());
      for (std::string_view a : attributes)
        n.attributes.push_back(importAttribute(a, depth + 2, n.name.empty() ? n.opType : n.name));
      if (!n.name.empty()) names.insert(n.name);
      g.nodes.push_back(std::move(n));
    }
    // Every node gets a unique name: profiles, findings and selections refer to nodes by name.
    std::unordered_set<std::string> seen;
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      Node& n = g.nodes[i];
      if (!n.name.empty() && seen.insert(n.name).second) continue;
      bool wasEmpty = n.name.empty();
      std::string base = wasEmpty ? n.opType + "_" + std::to_string(i) : n.name + "_dup";
      std::string cand = base;
      for (int k = 1; names.count(cand) || seen.count(cand); ++k) cand = base + "_" + std::to_string(k);
      n.name = cand;
      n.generatedName = wasEmpty;
      names.insert(cand);
      seen.insert(cand);
    }
  }

  Attribute importAttribute(std::string_view b, int depth, const std::string& nodeName) {
    Attribute a;
    int32_t type = 0;
    bool hasF = false, hasI = false, hasS = false;
    std::vector<std::string_view> t, g, tensors, graphs;
    forEachField(b, depth, nullptr, [&](const Field& f, Reader& r) {
      const bool isBytes = f.type == wire::Bytes;
      switch (f.number) {
        case 1: if (!isBytes) return false; a.name = string(r); return true;
        case 21: if (!isBytes) return false; a.refAttrName = string(r); return true;
        case 13: if (!isBytes) return false; a.docString = string(r); return true;
        case 20: {  // an enum: a value the schema lacks is an unknown field
          if (f.type != wire::Varint) return false;
          Reader peek = r;
          const int32_t v = readInt32(peek);
          if (v < 0 || v > static_cast<int>(AttrType::TypeProtos)) return false;
          r = peek;
          type = v;
          return true;
        }
        case 2: if (f.type != wire::Fixed32) return false; a.f = fixedFloat(r); hasF = true; return true;
        case 3: if (f.type != wire::Varint) return false; a.i = readInt64(r); hasI = true; return true;
        case 4: if (!isBytes) return false; a.s = string(r); hasS = true; return true;
        case 5: if (!isBytes) return false; t.push_back(bytes(r)); return true;
        case 6: if (!isBytes) return false; g.push_back(bytes(r)); return true;
        case 7: return repeated(f, r, wire::Fixed32, a.floats, fixedFloat);
        case 8: return repeated(f, r, wire::Varint, a.ints, readInt64);
        case 9: if (!isBytes) return false; a.strings.push_back(string(r)); return true;
        case 10: if (!isBytes) return false; tensors.push_back(bytes(r)); return true;
        case 11: if (!isBytes) return false; graphs.push_back(bytes(r)); return true;
        default: return false;  // sparse tensors, type protos: kept below in `raw`
      }
    });
    auto kind = static_cast<AttrType>(type);
    if (kind == AttrType::Undefined) {  // very old files leave `type` unset
      if (hasF) kind = AttrType::Float;
      else if (hasI) kind = AttrType::Int;
      else if (hasS) kind = AttrType::String;
      else if (!t.empty()) kind = AttrType::Tensor;
      else if (!g.empty()) kind = AttrType::Graph;
      else if (!a.floats.empty()) kind = AttrType::Floats;
      else if (!a.ints.empty()) kind = AttrType::Ints;
      else if (!a.strings.empty()) kind = AttrType::Strings;
      else if (!tensors.empty()) kind = AttrType::Tensors;
      else if (!graphs.empty()) kind = AttrType::Graphs;
    }
    a.type = kind;
    // Only the field of the attribute's type is kept, as protobuf's accessors would read it.
    if (kind != AttrType::Float) a.f = 0;
    if (kind != AttrType::Int) a.i = 0;
    if (kind != AttrType::String) a.s.clear();
    if (kind != AttrType::Floats) a.floats.clear();
    if (kind != AttrType::Ints) a.ints.clear();
    if (kind != AttrType::Strings) a.strings.clear();
    const std::string where = "attribute '" + a.name + "' of node '" + nodeName + "'";
    switch (kind) {
      case AttrType::Float: case AttrType::Int: case AttrType::String:
      case AttrType::Floats: case AttrType::Ints: case AttrType::Strings:
        break;
      case AttrType::Tensor: {
        TensorFields tf;  // a message given twice is the merge of both
        for (std::string_view p : t) parseTensor(p, depth + 1, tf);
        a.tensors.push_back(importTensor(tf, where));
        break;
      }
      case AttrType::Tensors:
        for (std::string_view p : tensors) {
          TensorFields tf;
          parseTensor(p, depth + 1, tf);
          a.tensors.push_back(importTensor(tf, where));
        }
        break;
      case AttrType::Graph:
        a.graphs.emplace_back();
        importGraph(g, depth + 1, a.graphs.back());
        break;
      case AttrType::Graphs:
        for (std::string_view p : graphs) {
          a.graphs.emplace_back();
          importGraph({p}, depth + 1, a.graphs.back());
        }
        break;
      default:
        a.raw = std::string(b);  // sparse tensors, type protos: kept verbatim
        break;
    }
    return a;
  }

  // A copy of the tensor's raw data. Weights stored in the model file are copied, not viewed in
  // the mapping: a file rewritten in place while it is open (a re-export) must not change or
  // fault weights already loaded. The file pages read so far are given back every
  // kReleaseBatch bytes, so the peak stays near the model's size, not twice it. In batches, not
  // per tensor: each madvise is a TLB shootdown, and one per weight cost 10 % of `info` on a
  // 50k-node model (issue 30). Pages given back that are read again fault back in from the file.
  std::shared_ptr<const TensorBytes> rawBytes(std::string_view raw) {
    auto bytes = TensorBytes::owned(std::string(raw));
    const std::string_view file = m_file ? m_file->bytes() : std::string_view();
    if (!file.empty() && raw.data() >= file.data() && raw.data() + raw.size() <= file.data() + file.size()) {
      const auto end = (reinterpret_cast<uintptr_t>(raw.data()) + raw.size()) & ~uintptr_t(kPage - 1);
      if (m_releasedTo == 0) m_releasedTo = reinterpret_cast<uintptr_t>(file.data());  // mappings start on a page
      if (end > m_releasedTo && end - m_releasedTo >= kReleaseBatch) {
        ::madvise(reinterpret_cast<void*>(m_releasedTo), end - m_releasedTo, MADV_DONTNEED);
        m_releasedTo = end;
      }
    }
    return bytes;
  }

  Tensor importTensor(TensorFields& tp, const std::string& where) {
    Tensor t;
    t.name = std::move(tp.name);
    t.docString = std::move(tp.docString);
    t.unknownFields = std::move(tp.unknown);
    if (tp.dataType < 0 || tp.dataType > static_cast<int>(DType::Int4)) {
      setError(where + " has unknown data type " + std::to_string(tp.dataType));
      return t;
    }
    t.dtype = static_cast<DType>(tp.dataType);
    int64_t numel = 1;
    for (int64_t d : tp.dims) {
      if (d < 0 || d > kMaxDim || (d > 0 && numel > kMaxElements / d)) {
        setError(where + " has an invalid shape (dimension " + std::to_string(d) + ")");
        return t;
      }
      numel *= d;
      t.dims.push_back(d);
    }
    const int esize = dtypeSize(t.dtype);
    const int64_t expected = (t.dtype == DType::Int4 || t.dtype == DType::UInt4) ? (numel + 1) / 2 : numel * esize;

    if (tp.dataLocation == 1) {  // EXTERNAL
      importExternal(tp, t, where, expected);
      return t;
    }
    if (t.dtype == DType::String) {
      t.strings = std::move(tp.strings);
      return t;
    }
    if (tp.raw) {
      if (static_cast<int64_t>(tp.raw->size()) != expected) {
        setError(where + " holds " + std::to_string(tp.raw->size()) + " bytes of data, its shape needs " +
                 std::to_string(expected));
        return t;
      }
      t.data = rawBytes(*tp.raw);
      return t;
    }
    std::string bytes;
    auto pack = [&](const auto& field, auto narrow) {
      using Out = decltype(narrow(*field.begin()));
      bytes.resize(field.size() * sizeof(Out));
      char* p = bytes.data();
      for (const auto& v : field) {
        Out o = narrow(v);
        std::memcpy(p, &o, sizeof(Out));
        p += sizeof(Out);
      }
    };
    switch (t.dtype) {
      case DType::Float: case DType::Complex64:
        pack(tp.floats, [](float v) { return v; });
        break;
      case DType::Double: case DType::Complex128:
        pack(tp.doubles, [](double v) { return v; });
        break;
      case DType::Int64:
        pack(tp.int64s, [](int64_t v) { return v; });
        break;
      case DType::UInt32:
        pack(tp.uint64s, [](uint64_t v) { return static_cast<uint32_t>(v); });
        break;
      case DType::UInt64:
        pack(tp.uint64s, [](uint64_t v) { return v; });
        break;
      case DType::Int32:
        pack(tp.int32s, [](int32_t v) { return v; });
        break;
      case DType::Int16:
        pack(tp.int32s, [](int32_t v) { return static_cast<int16_t>(v); });
        break;
      case DType::UInt16: case DType::Float16: case DType::BFloat16:
        pack(tp.int32s, [](int32_t v) { return static_cast<uint16_t>(v); });
        break;
      case DType::Int8:
        pack(tp.int32s, [](int32_t v) { return static_cast<int8_t>(v); });
        break;
      default:  // uint8, bool, float8 and 4-bit types: one int32 per stored byte
        pack(tp.int32s, [](int32_t v) { return static_cast<uint8_t>(v); });
        break;
    }
    if (bytes.empty() && expected > 0) return t;  // declared without data (e.g. a stripped model)
    if (static_cast<int64_t>(bytes.size()) != expected) {
      setError(where + " holds " + std::to_string(bytes.size()) + " bytes of typed data, its shape needs " +
               std::to_string(expected));
      return t;
    }
    t.data = TensorBytes::owned(std::move(bytes));
    return t;
  }

  void importExternal(const TensorFields& tp, Tensor& t, const std::string& where, int64_t expected) {
    ExternalLocation ext;
    bool haveLength = false;
    // The whole value must be a decimal number: "12abc" or " 12" are refused, not read as 12.
    auto number = [](const std::string& v, int64_t& out) {
      auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
      return ec == std::errc() && p == v.data() + v.size() && !v.empty();
    };
    for (const auto& [k, value] : tp.external) {
      bool ok = true;
      if (k == "location") ext.location = value;
      else if (k == "offset") ok = number(value, ext.offset);
      else if (k == "length") ok = haveLength = number(value, ext.length);
      else ext.extra.emplace_back(k, value);
      if (!ok) return setError(where + ": external data field '" + k + "' is not a number: '" + value + "'");
    }
    if (ext.location.empty()) return setError(where + " is stored externally but names no location");
    if (ext.offset < 0 || (haveLength && ext.length < 0)) return setError(where + ": negative external data offset or length");
    auto path = resolveLocation(ext.location, where);
    if (!path) return;
    auto& file = m_mapped[path->string()];
    if (!file) {
      auto mf = MappedFile::open(*path);
      if (!mf) return setError(where + ": " + mf.error().message + " (" + ext.location + ")");
      file = *mf;
    }
    const int64_t fileSize = static_cast<int64_t>(file->size());
    int64_t length = haveLength ? ext.length : fileSize - ext.offset;
    if (ext.offset > fileSize || length > fileSize - ext.offset)
      return setError(where + ": external data [" + std::to_string(ext.offset) + ", +" + std::to_string(length) +
                      ") lies beyond the end of '" + ext.location + "' (" + std::to_string(fileSize) + " bytes)");
    if (t.dtype != DType::String && length != expected)
      return setError(where + ": external data holds " + std::to_string(length) + " bytes, its shape needs " +
                      std::to_string(expected));
    t.data = TensorBytes::mapped(file, static_cast<size_t>(ext.offset), static_cast<size_t>(length));
    t.external = std::move(ext);
  }

  std::optional<fs::path> resolveLocation(const std::string& location, const std::string& where) {
    fs::path loc(location);
    auto refuse = [&](const std::string& why) {
      setError(where + ": external data location '" + location + "' " + why + "; refused");
      return std::nullopt;
    };
    if (m_baseDir.empty()) return refuse("cannot be resolved without the model's folder");
    if (loc.is_absolute() || location.find('\0') != std::string::npos) return refuse("is an absolute path");
    for (const auto& part : loc)
      if (part == "..") return refuse("leaves the model's folder");
    // Resolved once per location: a model's thousands of weights name a few files.
    if (auto known = m_resolved.find(location); known != m_resolved.end()) return known->second;
    std::error_code ec;
    if (m_canonicalBase.empty()) m_canonicalBase = fs::weakly_canonical(m_baseDir, ec);
    fs::path full = fs::weakly_canonical(m_baseDir / loc, ec);
    if (ec || m_canonicalBase.empty()) return refuse("cannot be resolved");
    auto rel = full.lexically_relative(m_canonicalBase);
    if (rel.empty() || *rel.begin() == "..") return refuse("resolves (through a link) outside the model's folder");
    return m_resolved.emplace(location, std::move(full)).first->second;
  }

  std::string m_label;
  fs::path m_baseDir;
  std::shared_ptr<const MappedFile> m_file;
  uintptr_t m_releasedTo = 0;  // m_file's pages below this address were given back
  std::map<std::string, std::shared_ptr<const MappedFile>> m_mapped;
  fs::path m_canonicalBase;
  std::unordered_map<std::string, fs::path> m_resolved;  // external data locations accepted
  std::optional<Error> m_error;
};

const char* const kNotOnnx = "not a valid ONNX model (the protobuf does not parse)";

Result<Model> importBytes(std::string_view bytes, const fs::path& baseDir, const std::string& label,
                          std::shared_ptr<const MappedFile> file) {
  try {
    return Importer(label, baseDir, std::move(file)).run(bytes);
  } catch (const Malformed&) {
    return Error::model(kNotOnnx, label);
  } catch (const std::exception& e) {
    return Error::model(std::string("import failed: ") + e.what(), label);
  }
}

}  // namespace

Result<Tensor> fromProto(onnx::TensorProto& tp, const fs::path& baseDir, const std::string& label) {
  try {
    return Importer(label, baseDir).runTensor(tp.SerializeAsString());
  } catch (const Malformed&) {
    return Error::model("tensor import failed: the protobuf does not parse", label);
  } catch (const std::exception& e) {
    return Error::model(std::string("tensor import failed: ") + e.what(), label);
  }
}

// The same as parseType() over a protobuf object (the types libonnx's inference returns),
// without serializing each one again.
TypeInfo fromProto(const onnx::TypeProto& tp) {
  TypeInfo t;
  t.denotation = tp.denotation();
  if (tp.has_tensor_type() || tp.has_sparse_tensor_type()) {
    t.kind = tp.has_tensor_type() ? TypeInfo::Kind::Tensor : TypeInfo::Kind::SparseTensor;
    const bool dense = tp.has_tensor_type();
    t.elem = static_cast<DType>(dense ? tp.tensor_type().elem_type() : tp.sparse_tensor_type().elem_type());
    if (dense ? tp.tensor_type().has_shape() : tp.sparse_tensor_type().has_shape()) {
      Shape s;
      for (const auto& d : (dense ? tp.tensor_type().shape() : tp.sparse_tensor_type().shape()).dim()) {
        Dim dim;
        if (d.has_dim_value() && d.dim_value() >= 0) dim.value = d.dim_value();
        else if (d.has_dim_param()) dim.param = d.dim_param();
        s.dims.push_back(std::move(dim));
      }
      // An inferred shape no device holds (data-dependent shapes from absurd constants) stays
      // unknown: a model must load again after its shapes were inferred and written out.
      int64_t n = 1;
      for (const Dim& d : s.dims)
        if (d.known() && d.value > 0 && (__builtin_mul_overflow(n, d.value, &n) || n > ModelLimits::kMaxElements)) {
          for (Dim& u : s.dims) u.value = -1;
          break;
        }
      t.shape = std::move(s);
    }
    if (!dense) tp.SerializeToString(&t.raw);
    return t;
  }
  if (tp.has_sequence_type()) t.kind = TypeInfo::Kind::Sequence;
  else if (tp.has_map_type()) t.kind = TypeInfo::Kind::Map;
  else if (tp.has_optional_type()) t.kind = TypeInfo::Kind::Optional;
  else if (tp.value_case() != onnx::TypeProto::VALUE_NOT_SET) t.kind = TypeInfo::Kind::Other;
  if (t.kind != TypeInfo::Kind::None) tp.SerializeToString(&t.raw);
  return t;
}

namespace {

Result<Model> loadFile(const fs::path& path, bool check) {
  const std::string label = path.string();
  std::error_code ec;
  if (fs::is_directory(path, ec)) return Error::model("is a directory, not an ONNX file", label);
  auto file = MappedFile::open(path);  // unmapped at the end: tensors own their bytes
  if (!file) return Error::model(file.error().message, label);
  std::string_view bytes = (*file)->bytes();
  if (bytes.empty()) return Error::model("the file is empty", label);
  if (bytes.size() > static_cast<size_t>(INT_MAX))
    return Error::model("the file is larger than 2 GB, the protobuf limit; large models keep their weights as "
                        "external data",
                        label);
  ::madvise(const_cast<char*>(bytes.data()), bytes.size(), MADV_SEQUENTIAL);
  fs::path base = path.parent_path();
  if (base.empty()) base = ".";
  auto m = importBytes(bytes, base, label, *file);
  // What the import touched is given back (clean file pages; nothing keeps the mapping).
  ::madvise(const_cast<char*>(bytes.data()), bytes.size(), MADV_DONTNEED);
  if (!m) return m;
  if (check)
    if (auto ok = checkModel(*m, label); !ok) return ok.error();
  m->path = path;
  return m;
}

}  // namespace

Result<Model> loadModel(const fs::path& path) { return loadFile(path, true); }

Result<Model> loadRuntimeWrittenModel(const fs::path& path) { return loadFile(path, false); }

Result<Model> loadModelFromBytes(std::string_view bytes, const fs::path& baseDir, const std::string& label) {
  if (bytes.size() > static_cast<size_t>(INT_MAX)) return Error::model("larger than 2 GB", label);
  if (bytes.empty()) return Error::model(kNotOnnx, label);
  auto m = importBytes(bytes, baseDir, label, nullptr);
  if (!m) return m;
  if (auto ok = checkModel(*m, label); !ok) return ok.error();
  return m;
}

}  // namespace msa
