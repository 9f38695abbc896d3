#include "profile/model_inputs.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>
#include <random>
#include <set>
#include <unordered_map>

#include "model/graph_index.h"
#include "model/half.h"
#include "profile/npy.h"
#include "profile/npz.h"

namespace fs = std::filesystem;

namespace msa {
namespace {

// --- how the graph uses an integer input -------------------------------------------------------

struct IntRule {
  enum class Mode { Uniform, Mask, Fixed, Iota };
  Mode mode = Mode::Uniform;
  int64_t lo = 0, hi = 8;  // Uniform: [lo, hi)
  int64_t fixed = 0;
  std::string why = "default: integers in [0, 8)";
  int strength = 0;  // higher wins: a bound found in the graph beats a name guess beats the default
};

struct Site {
  const Graph* graph;
  const Node* node;
  size_t operand;
};

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// Ops through which an integer input keeps its meaning (ids stay ids after a Cast or Unsqueeze).
bool passesThrough(const Node& n, size_t operand) {
  if (operand != 0) return false;
  static const std::set<std::string> ops = {"Cast", "Unsqueeze", "Squeeze", "Reshape", "Flatten", "Identity",
                                            "Transpose", "Expand", "Slice", "Tile", "Concat"};
  return n.isDefaultDomain() && ops.count(n.opType);
}

class UseAnalyzer {
 public:
  explicit UseAnalyzer(const Graph& root) : m_root(root) {}

  IntRule ruleFor(const ValueInfo& input, const std::vector<int64_t>& shape) {
    IntRule best;
    std::vector<std::string> frontier{input.name};
    std::set<std::string> seen{input.name};
    for (int depth = 0; depth < 6 && !frontier.empty(); ++depth) {
      std::vector<std::string> next;
      for (const std::string& v : frontier)
        for (const Site& s : uses(v)) {
          consider(best, s, shape);
          if (passesThrough(*s.node, s.operand) && !s.node->outputs.empty() && seen.insert(s.node->outputs[0]).second)
            next.push_back(s.node->outputs[0]);
        }
      frontier = std::move(next);
    }
    if (best.strength < 2) nameGuess(best, input, shape);
    return best;
  }

 private:
  std::vector<Site> uses(const std::string& value) const {
    std::vector<Site> out;
    m_root.forEachGraph([&](const Graph& g, int) {
      for (const Node& n : g.nodes)
        for (size_t k = 0; k < n.inputs.size(); ++k)
          if (n.inputs[k] == value) out.push_back({&g, &n, k});
    });
    return out;
  }

  GraphIndex& index(const Graph* g) {
    auto& p = m_indices[g];
    if (!p) p = std::make_unique<GraphIndex>(*g);
    return *p;
  }

  // Shape of a value in `g`, or of an initializer/constant anywhere up the scopes (root only).
  std::vector<int64_t> shapeOf(const Graph* g, const std::string& v) {
    for (const Graph* scope : {g, &m_root}) {
      GraphIndex& idx = index(scope);
      if (const Tensor* t = idx.constant(v)) return t->dims;
      if (const Shape* s = idx.shape(v)) return s->values();
    }
    return {};
  }

  std::optional<int64_t> constantScalar(const Graph* g, const std::string& v) {
    for (const Graph* scope : {g, &m_root})
      if (const Tensor* t = index(scope).constant(v)) {
        auto vals = t->toInt64();
        if (vals.size() == 1) return vals[0];
        auto d = t->toDouble();
        if (d.size() == 1 && std::isfinite(d[0]) && d[0] == std::floor(d[0])) return static_cast<int64_t>(d[0]);
      }
    return std::nullopt;
  }

  static void offer(IntRule& best, IntRule r) {
    if (r.strength > best.strength ||
        (r.strength == best.strength && r.mode == IntRule::Mode::Uniform && best.mode == IntRule::Mode::Uniform && r.hi < best.hi))
      best = std::move(r);
  }

  void consider(IntRule& best, const Site& s, const std::vector<int64_t>& shape) {
    const Node& n = *s.node;
    const std::string& op = n.opType;
    auto bounded = [&](int64_t hi, std::string why) {
      if (hi <= 0) return;
      IntRule r;
      r.lo = 0;
      r.hi = hi;
      r.why = std::move(why);
      r.strength = 3;
      offer(best, r);
    };
    auto fixed = [&](int64_t v, std::string why, int strength = 3) {
      IntRule r;
      r.mode = IntRule::Mode::Fixed;
      r.fixed = v;
      r.why = std::move(why);
      r.strength = strength;
      offer(best, r);
    };
    if ((op == "Gather" || op == "GatherElements") && s.operand == 1 && !n.inputs.empty()) {
      auto dims = shapeOf(s.graph, n.inputs[0]);
      int64_t axis = n.attrInt("axis", 0);
      if (axis < 0) axis += static_cast<int64_t>(dims.size());
      if (axis >= 0 && axis < static_cast<int64_t>(dims.size()) && dims[static_cast<size_t>(axis)] > 0)
        bounded(dims[static_cast<size_t>(axis)], "indices in [0, " + std::to_string(dims[static_cast<size_t>(axis)]) +
                                                    "): " + op + " '" + n.name + "' on '" + n.inputs[0] + "' axis " +
                                                    std::to_string(axis));
    } else if ((op == "GatherND" || op == "ScatterND" || op == "ScatterElements" || op == "Scatter") && s.operand == 1) {
      auto dims = shapeOf(s.graph, n.inputs[0]);
      if (!dims.empty()) {
        int64_t lim = *std::min_element(dims.begin(), dims.end());
        bounded(lim, "indices in [0, " + std::to_string(lim) + "): " + op + " '" + n.name + "'");
      }
    } else if (op == "OneHot" && s.operand == 0 && n.inputs.size() > 1) {
      if (auto depth = constantScalar(s.graph, n.inputs[1]))
        bounded(*depth, "indices in [0, " + std::to_string(*depth) + "): OneHot '" + n.name + "' depth");
    } else if (op == "Slice" && s.operand >= 1) {
      if (s.operand == 3) {
        IntRule r;
        r.mode = IntRule::Mode::Iota;
        r.why = "axes 0, 1, …: Slice '" + n.name + "'";
        r.strength = 3;
        offer(best, r);
      } else {
        int64_t v = s.operand == 1 ? 0 : s.operand == 2 ? std::numeric_limits<int32_t>::max() : 1;
        fixed(v, std::string(s.operand == 1 ? "starts" : s.operand == 2 ? "ends" : "steps") + " of Slice '" + n.name +
                     "': the whole axis");
      }
    } else if ((op == "Tile" || op == "Expand") && s.operand == 1) {
      fixed(1, std::string(op == "Tile" ? "repeats" : "shape") + " of " + op + " '" + n.name + "': ones");
    } else if (op == "TopK" && s.operand == 1) {
      fixed(1, "k of TopK '" + n.name + "'");
    } else if (op == "Loop" && s.operand == 0) {
      fixed(2, "trip count of Loop '" + n.name + "'");
    } else if ((op == "RNN" || op == "GRU" || op == "LSTM") && s.operand == 4 && !n.inputs.empty()) {
      auto dims = shapeOf(s.graph, n.inputs[0]);
      size_t seqAxis = n.attrInt("layout", 0) == 0 ? 0 : 1;
      if (dims.size() > seqAxis && dims[seqAxis] > 0)
        fixed(dims[seqAxis], "sequence_lens of " + op + " '" + n.name + "': the full length");
    } else if ((op == "Equal" || op == "Less" || op == "Greater" || op == "LessOrEqual" || op == "GreaterOrEqual") &&
               n.inputs.size() == 2 && s.operand < 2) {
      auto c = constantScalar(s.graph, n.inputs[1 - s.operand]);
      if (!c) return;
      int64_t elems = 1;
      for (int64_t d : shape) elems *= d;
      if ((*c == 0 || *c == 1) && shape.size() >= 2) {
        IntRule r;
        r.mode = IntRule::Mode::Mask;
        r.why = "mask {0,1} (compared with " + std::to_string(*c) + " in '" + n.name + "')";
        r.strength = 3;
        offer(best, r);
      } else if (elems == 1) {
        // A scalar the model tests against a constant (a sample rate): take the value it expects.
        fixed(*c, "the value " + n.opType + " '" + n.name + "' compares it with", 2);
      }
    } else if (op == "Where" && s.operand == 0) {
      IntRule r;
      r.mode = IntRule::Mode::Mask;
      r.why = "mask {0,1}: condition of Where '" + n.name + "'";
      r.strength = 2;
      offer(best, r);
    }
  }

  static void nameGuess(IntRule& best, const ValueInfo& input, const std::vector<int64_t>& shape) {
    const std::string n = lower(input.name);
    int64_t elems = 1;
    for (int64_t d : shape) elems *= d;
    IntRule r;
    r.strength = 1;
    if (n.find("mask") != std::string::npos) {
      r.mode = IntRule::Mode::Mask;
      r.why = "mask {0,1} (by its name)";
    } else if (n.find("token_type") != std::string::npos || n.find("segment") != std::string::npos) {
      r.hi = 2;
      r.why = "segment ids in [0, 2) (by its name)";
    } else if (elems == 1 && (n == "sr" || n.find("sample_rate") != std::string::npos || n.find("sampling_rate") != std::string::npos)) {
      r.mode = IntRule::Mode::Fixed;
      r.fixed = 16000;
      r.why = "sample rate 16000 (by its name)";
    } else {
      return;
    }
    offer(best, r);
  }

  const Graph& m_root;
  std::unordered_map<const Graph*, std::unique_ptr<GraphIndex>> m_indices;
};

// --- generation ----------------------------------------------------------------------------------

uint64_t fnv1a(std::string_view s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

template <typename T>
void put(std::string& bytes, size_t i, T v) {
  std::memcpy(bytes.data() + i * sizeof(T), &v, sizeof(T));
}

void storeInt(std::string& b, DType t, size_t i, int64_t v) {
  switch (t) {
    case DType::Int64: put<int64_t>(b, i, v); break;
    case DType::Int32: put<int32_t>(b, i, static_cast<int32_t>(v)); break;
    case DType::Int16: put<int16_t>(b, i, static_cast<int16_t>(v)); break;
    case DType::Int8: put<int8_t>(b, i, static_cast<int8_t>(v)); break;
    case DType::UInt64: put<uint64_t>(b, i, static_cast<uint64_t>(v)); break;
    case DType::UInt32: put<uint32_t>(b, i, static_cast<uint32_t>(v)); break;
    case DType::UInt16: put<uint16_t>(b, i, static_cast<uint16_t>(v)); break;
    case DType::UInt8: case DType::Bool: put<uint8_t>(b, i, static_cast<uint8_t>(v)); break;
    default: break;
  }
}

int64_t maxOf(DType t) {
  switch (t) {
    case DType::Int8: return 127;
    case DType::UInt8: return 255;
    case DType::Int16: return 32767;
    case DType::UInt16: return 65535;
    case DType::Int32: case DType::UInt32: return std::numeric_limits<int32_t>::max();
    case DType::Bool: return 1;
    default: return std::numeric_limits<int64_t>::max();
  }
}

Tensor generate(const ValueInfo& in, const std::vector<int64_t>& shape, const IntRule& rule, const InputOptions& o,
                std::string& why) {
  Tensor t;
  t.name = in.name;
  t.dtype = in.type.elem;
  t.dims = shape;
  const size_t n = static_cast<size_t>(t.numElements());
  std::string b(n * static_cast<size_t>(dtypeSize(t.dtype)), '\0');
  std::mt19937_64 rng(o.seed ^ fnv1a(in.name));
  if (isFloating(t.dtype)) {
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    const bool isNormal = o.floatFill == InputOptions::FloatFill::Normal;
    why = isNormal ? "N(0,1)" : "U(-1,1)";
    for (size_t i = 0; i < n; ++i) {
      float v = isNormal ? normal(rng) : uniform(rng);
      switch (t.dtype) {
        case DType::Float: put<float>(b, i, v); break;
        case DType::Double: put<double>(b, i, v); break;
        case DType::Float16: put<uint16_t>(b, i, floatToHalf(v)); break;
        case DType::BFloat16: {
          uint32_t x;
          std::memcpy(&x, &v, 4);
          x += 0x7fffu + ((x >> 16) & 1u);  // round to nearest even
          put<uint16_t>(b, i, static_cast<uint16_t>(x >> 16));
          break;
        }
        default: break;
      }
    }
    t.data = TensorBytes::owned(std::move(b));
    return t;
  }
  IntRule r = rule;
  if (t.dtype == DType::Bool && r.mode == IntRule::Mode::Uniform) {
    r.lo = 0;
    r.hi = 2;
    if (r.strength == 0) r.why = "random {0,1}";
  }
  why = r.why;
  const int64_t top = maxOf(t.dtype);
  switch (r.mode) {
    case IntRule::Mode::Uniform: {
      const int64_t lo = std::max<int64_t>(r.lo, 0);
      const int64_t hi = std::max(lo, std::min(r.hi - 1, top));  // inclusive
      std::uniform_int_distribution<int64_t> d(lo, hi);
      for (size_t i = 0; i < n; ++i) storeInt(b, t.dtype, i, d(rng));
      break;
    }
    case IntRule::Mode::Fixed:
      for (size_t i = 0; i < n; ++i) storeInt(b, t.dtype, i, std::min(r.fixed, top));
      break;
    case IntRule::Mode::Iota:
      for (size_t i = 0; i < n; ++i) storeInt(b, t.dtype, i, static_cast<int64_t>(i));
      break;
    case IntRule::Mode::Mask: {
      // Padding-style: each row is ones then zeros, at least half ones, never all zeros (an
      // all-masked attention row would only produce NaN).
      const size_t row = shape.empty() ? 1 : static_cast<size_t>(std::max<int64_t>(shape.back(), 1));
      for (size_t start = 0; start < n; start += row) {
        std::uniform_int_distribution<size_t> len((row + 1) / 2, row);
        size_t ones = len(rng);
        for (size_t k = 0; k < row && start + k < n; ++k) storeInt(b, t.dtype, start + k, k < ones ? 1 : 0);
      }
      break;
    }
  }
  t.data = TensorBytes::owned(std::move(b));
  return t;
}

std::string sanitized(std::string s) {
  for (char& c : s)
    if (c == '/' || c == ':' || c == '\\') c = '_';
  return s;
}

}  // namespace

std::vector<const ValueInfo*> runtimeInputs(const Graph& g) {
  std::set<std::string_view> inits;
  for (const Tensor& t : g.initializers) inits.insert(t.name);
  std::vector<const ValueInfo*> out;
  for (const ValueInfo& v : g.inputs)
    if (!inits.count(v.name)) out.push_back(&v);
  return out;
}

Result<std::vector<int64_t>> concreteShape(const ValueInfo& in, const InputOptions& o) {
  if (!in.type.shape) return Error::model("input '" + in.name + "' declares no shape; give its values with --inputs DIR");
  std::vector<int64_t> out;
  std::vector<std::string> unbound;
  const auto& dims = in.type.shape->dims;
  for (size_t a = 0; a < dims.size(); ++a) {
    const Dim& d = dims[a];
    if (d.known()) {
      out.push_back(d.value);
      continue;
    }
    auto byAxis = o.dims.find(in.name + ":" + std::to_string(a));
    auto byName = d.param.empty() ? o.dims.end() : o.dims.find(d.param);
    if (byAxis != o.dims.end()) out.push_back(byAxis->second);
    else if (byName != o.dims.end()) out.push_back(byName->second);
    else {
      out.push_back(-1);
      unbound.push_back(d.param.empty() ? in.name + ":" + std::to_string(a) : d.param);
    }
  }
  if (!unbound.empty()) {
    std::string list;
    for (const auto& u : unbound) list += (list.empty() ? "" : ", ") + u;
    return Error::usage("input '" + in.name + "' " + in.type.shape->str() + " has unbound dims (" + list +
                        "): give each with --dim NAME=VALUE, e.g. --dim " + unbound[0] + "=1");
  }
  // Bound dims can ask for more than any machine holds; the runtime would fail deep inside.
  constexpr int64_t kMaxInputBytes = int64_t(1) << 36;
  int64_t bytes = std::max(1, dtypeSize(in.type.elem));
  for (int64_t d : out)
    if (d < 0 || __builtin_mul_overflow(bytes, d, &bytes) || bytes > kMaxInputBytes)
      return Error::model("input '" + in.name + "' bound to " + Shape::of(out).str() +
                          " would need more than 64 GiB of elements; bind smaller dims with --dim");
  return out;
}

Result<std::vector<Tensor>> makeRandomInputs(const Model& model, const InputOptions& o, std::vector<InputPlan>* plan) {
  std::vector<Tensor> out;
  UseAnalyzer uses(model.graph);
  // Errors name the model: an input is a value of that file.
  const auto named = [&](Error e) {
    if (e.file.empty()) e.file = model.path.string();
    return e;
  };
  for (const ValueInfo* in : runtimeInputs(model.graph)) {
    if (in->type.kind != TypeInfo::Kind::Tensor)
      return named(Error::model("input '" + in->name +
                                "' is not a tensor (a sequence, optional or map); give it with --inputs DIR"));
    if (in->type.elem == DType::String || dtypeSize(in->type.elem) == 0 || in->type.elem == DType::Complex64 ||
        in->type.elem == DType::Complex128 || static_cast<int>(in->type.elem) >= static_cast<int>(DType::Float8E4M3FN))
      return named(Error::model("input '" + in->name + "' is " + std::string(dtypeName(in->type.elem)) +
                                ", which has no random fill; give it with --inputs DIR"));
    auto shape = concreteShape(*in, o);
    if (!shape) return named(shape.error());
    IntRule rule;
    if (!isFloating(in->type.elem)) rule = uses.ruleFor(*in, *shape);
    std::string why;
    out.push_back(generate(*in, *shape, rule, o, why));
    if (plan) plan->push_back({in->name, std::string(dtypeName(in->type.elem)), *shape, why});
  }
  return out;
}

namespace {

// Names the loaded value after its input and checks its dtype and known dims against the input's
// declaration (when asked).
Status checkLoaded(const ValueInfo& in, DataValue& v, const InputOptions& o, const fs::path& file) {
  v.name = in.name;
  if (v.kind == DataValue::Kind::Tensor) {
    v.tensor.name = in.name;
    // ONNX up to 1.13 stored bfloat16 test data as its uint16 bit patterns.
    if (in.type.elem == DType::BFloat16 && v.tensor.dtype == DType::UInt16) v.tensor.dtype = DType::BFloat16;
    const Tensor& t = v.tensor;
    bool dtypeOk = in.type.elem == DType::Undefined || in.type.elem == t.dtype;
    bool shapeOk = true;
    if (in.type.shape) {
      const auto& dims = in.type.shape->dims;
      shapeOk = dims.size() == t.dims.size();
      for (size_t a = 0; shapeOk && a < dims.size(); ++a) {
        int64_t want = dims[a].known() ? dims[a].value : -1;
        if (want < 0) {
          auto byAxis = o.dims.find(in.name + ":" + std::to_string(a));
          auto byName = dims[a].param.empty() ? o.dims.end() : o.dims.find(dims[a].param);
          if (byAxis != o.dims.end()) want = byAxis->second;
          else if (byName != o.dims.end()) want = byName->second;
        }
        if (want >= 0 && want != t.dims[a]) shapeOk = false;
      }
    }
    if (o.checkShapes && (!dtypeOk || !shapeOk))
      return Error::model("input '" + in.name + "' is " + std::string(dtypeName(in.type.elem)) +
                              (in.type.shape ? in.type.shape->str() : std::string("[?]")) + " but the file holds " +
                              v.describe(),
                          file.string());
  }
  return Ok{};
}

}  // namespace

Result<std::vector<DataValue>> loadInputs(const Model& model, const fs::path& dir, const InputOptions& o) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return Error::model("not a folder of input files", dir.string());
  std::vector<DataValue> out;
  const auto inputs = runtimeInputs(model.graph);
  for (size_t k = 0; k < inputs.size(); ++k) {
    const ValueInfo& in = *inputs[k];
    std::vector<fs::path> candidates;
    for (const std::string& stem : {in.name, sanitized(in.name), "input_" + std::to_string(k)})
      for (const char* ext : {".pb", ".npy"}) {
        fs::path p = dir / (stem + ext);
        if (std::find(candidates.begin(), candidates.end(), p) == candidates.end()) candidates.push_back(p);
      }
    auto found = std::find_if(candidates.begin(), candidates.end(), [&](const fs::path& p) { return fs::is_regular_file(p, ec); });
    if (found == candidates.end()) {
      std::string looked;
      for (const auto& c : candidates) looked += (looked.empty() ? "" : ", ") + c.filename().string();
      return Error::model("no file for input '" + in.name + "' (looked for " + looked + ")", dir.string());
    }
    const fs::path file = *found;
    DataValue v;
    if (file.extension() == ".npy") {
      if (in.type.kind != TypeInfo::Kind::Tensor && in.type.kind != TypeInfo::Kind::None)
        return Error::model("input '" + in.name + "' is a sequence or optional: a .npy file cannot hold it", file.string());
      auto t = loadNpy(file);
      if (!t) return t.error();
      v = DataValue::of(std::move(*t));
    } else {
      auto d = loadDataValue(file, in.type.kind);
      if (!d) return d.error();
      v = std::move(*d);
    }
    if (auto checked = checkLoaded(in, v, o, file); !checked) return checked.error();
    out.push_back(std::move(v));
  }
  return out;
}

Result<std::vector<std::vector<DataValue>>> loadInputSamples(const Model& model, const fs::path& dir, const InputOptions& o,
                                                            size_t maxSamples) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return Error::model("not a folder of input files", dir.string());
  std::vector<fs::path> archives, folders;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.is_regular_file(ec) && e.path().extension() == ".npz") archives.push_back(e.path());
    else if (e.is_directory(ec)) folders.push_back(e.path());
  }
  std::sort(archives.begin(), archives.end());
  std::sort(folders.begin(), folders.end());
  std::vector<std::vector<DataValue>> out;
  const auto inputs = runtimeInputs(model.graph);
  for (const fs::path& file : archives) {
    if (out.size() >= maxSamples) break;
    auto arrays = loadNpz(file);
    if (!arrays) return arrays.error();
    std::vector<DataValue> sample;
    for (size_t k = 0; k < inputs.size(); ++k) {
      const ValueInfo& in = *inputs[k];
      // By the input's name, then by position (np.savez(f, x) names its arrays arr_0, arr_1…).
      const std::string names[] = {in.name, sanitized(in.name), "input_" + std::to_string(k), "arr_" + std::to_string(k)};
      auto found = std::find_if(arrays->begin(), arrays->end(), [&](const auto& a) {
        return std::find(std::begin(names), std::end(names), a.first) != std::end(names);
      });
      if (found == arrays->end())
        return Error::model("no array for input '" + in.name + "' (looked for " + in.name + ", input_" + std::to_string(k) +
                                ", arr_" + std::to_string(k) + ")",
                            file.string());
      DataValue v = DataValue::of(found->second);
      if (auto checked = checkLoaded(in, v, o, file); !checked) return checked.error();
      sample.push_back(std::move(v));
    }
    out.push_back(std::move(sample));
  }
  for (const fs::path& folder : folders) {
    if (out.size() >= maxSamples) break;
    auto sample = loadInputs(model, folder, o);
    if (!sample) return sample.error();
    out.push_back(std::move(*sample));
  }
  if (out.empty()) {
    auto sample = loadInputs(model, dir, o);
    if (!sample) return sample.error();
    out.push_back(std::move(*sample));
  }
  return out;
}

namespace {

// `n` elements of `x` in the input's own dtype (Silero's `sr` is int64: 16000, not 16000.0f).
Tensor filledTensor(const std::string& name, DType dt, std::vector<int64_t> dims, size_t n, double x) {
  auto ints = [&](auto zero) {
    using T = decltype(zero);
    return Tensor::fromValues(name, dt, std::move(dims), std::vector<T>(n, static_cast<T>(std::llround(x))));
  };
  switch (dt) {
    case DType::Int64: return ints(int64_t{});
    case DType::Int32: return ints(int32_t{});
    case DType::Int16: return ints(int16_t{});
    case DType::Int8: return ints(int8_t{});
    case DType::UInt8: return ints(uint8_t{});
    case DType::UInt16: return ints(uint16_t{});
    case DType::UInt32: return ints(uint32_t{});
    case DType::UInt64: return ints(uint64_t{});
    case DType::Bool: return Tensor::fromValues(name, dt, std::move(dims), std::vector<uint8_t>(n, x != 0 ? 1 : 0));
    default: return Tensor::fromDoubles(name, dt, std::move(dims), std::vector<double>(n, x));
  }
}

}  // namespace

Status writeInputFolder(const Model& model, const std::map<std::string, GivenInput, std::less<>>& given,
                        const InputOptions& o, const fs::path& dir) {
  const auto inputs = runtimeInputs(model.graph);
  for (const auto& entry : given) {
    const std::string& name = entry.first;  // not a structured binding: clang 14 cannot capture one
    if (std::none_of(inputs.begin(), inputs.end(), [&](const ValueInfo* in) { return in->name == name; }))
      return Error::usage("the model has no input '" + name + "'");
  }
  const bool needRandom = std::any_of(inputs.begin(), inputs.end(), [&](const ValueInfo* in) { return !given.count(in->name); });
  std::vector<Tensor> random;
  if (needRandom) {
    auto r = makeRandomInputs(model, o);
    if (!r) return r.error();
    random = std::move(*r);
  }
  std::error_code ec;
  fs::create_directories(dir, ec);
  for (size_t k = 0; k < inputs.size(); ++k) {
    const ValueInfo& in = *inputs[k];
    const std::string stem = sanitized(in.name);
    auto it = given.find(in.name);
    if (it != given.end() && !it->second.file.empty()) {
      const fs::path& src = it->second.file;
      const std::string ext = src.extension().string();
      if (ext != ".npy" && ext != ".pb")
        return Error::usage("input '" + in.name + "': " + src.string() + " is neither a .npy nor a .pb file");
      if (!fs::copy_file(src, dir / (stem + ext), fs::copy_options::overwrite_existing, ec))
        return Error::model("cannot read the file for input '" + in.name + "': " + ec.message(), src.string());
      continue;
    }
    Tensor t;
    if (it != given.end() && it->second.fill) {
      if (in.type.kind != TypeInfo::Kind::Tensor || dtypeSize(in.type.elem) == 0 || in.type.elem == DType::String)
        return Error::usage("input '" + in.name + "' is not a numeric tensor: give it as a file");
      auto shape = concreteShape(in, o);
      if (!shape) return shape.error();
      size_t n = 1;
      for (int64_t d : *shape) n *= static_cast<size_t>(std::max<int64_t>(d, 0));
      t = filledTensor(in.name, in.type.elem, *shape, n, *it->second.fill);
    } else {
      t = random[k];
    }
    auto bytes = toNpy(t);
    if (!bytes) return bytes.error();
    const fs::path file = dir / (stem + ".npy");
    std::ofstream out(file, std::ios::binary);
    out.write(bytes->data(), static_cast<std::streamsize>(bytes->size()));
    if (!out) return Error::model("cannot write an input file", file.string());
  }
  return Ok{};
}

Error explainRunFailure(const Error& e, const Model& model, const std::vector<DataValue>& inputs, const InputOptions& o) {
  if (e.kind != ErrorKind::Device) return e;
  std::string lower = e.message;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  bool shape = false;
  for (const char* w : {"shape", "dimension", "rank", "broadcast", "reshape", "size mismatch"})
    shape = shape || lower.find(w) != std::string::npos;
  if (!shape) return e;
  // The inputs it ran on, those with symbolic dims first: their sizes are the ones chosen.
  const auto declared = runtimeInputs(model.graph);
  std::string given, all;
  for (size_t k = 0; k < declared.size() && k < inputs.size(); ++k) {
    const ValueInfo& in = *declared[k];
    const std::string shapeText =
        inputs[k].kind == DataValue::Kind::Tensor ? Shape::of(inputs[k].tensor.dims).str() : inputs[k].describe();
    all += (all.empty() ? "'" : ", '") + in.name + "' " + shapeText;
    if (!in.type.shape) continue;
    for (size_t a = 0; a < in.type.shape->dims.size(); ++a) {
      const Dim& d = in.type.shape->dims[a];
      if (d.known()) continue;
      const std::string byAxis = in.name + ":" + std::to_string(a);
      auto it = o.dims.find(d.param.empty() ? byAxis : d.param);
      if (it == o.dims.end()) it = o.dims.find(byAxis);
      if (it == o.dims.end()) continue;
      given += (given.empty() ? "" : ", ") + it->first + " = " + std::to_string(it->second) + " ('" + in.name + "' axis " +
               std::to_string(a) + ")";
    }
  }
  std::string msg = "the model does not run on input " + all + ": the runtime rejected a shape (" + e.message + "). ";
  msg += given.empty() ? "It needs inputs of other sizes: give values of the sizes it was exported for (--inputs DIR, or "
                         "the input values in Analyze)."
                       : "It needs other sizes for the symbolic dims given (" + given +
                             "): set the sizes it was exported for (--dim, or Input shapes in Analyze).";
  return Error::device(msg);
}

}  // namespace msa
