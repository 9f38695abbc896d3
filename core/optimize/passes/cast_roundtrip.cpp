// Cast(A→B) → Cast(B→A) where every value of type A survives the trip: widening then narrowing
// back (f32→f64→f32, f16→f32→f16, int32→int64→int32, uint8→float→uint8…), or a narrowing whose
// values are known to fit (int64→int32→int64 of a shape). Never f32→f16→f32: that one rounds.
#include <cmath>
#include <optional>

#include "model/rewrite.h"
#include "model/shape_values.h"
#include "optimize/passes/pass_util.h"

namespace msa {
namespace {

// Bits of integer precision a type holds exactly (floats: mantissa + 1), with sign.
struct Range {
  bool isFloat;
  double lo, hi;  // integers: the range; floats: ±2^digits, exact integers up to there
  int digits;     // floats: significand bits
};

std::optional<Range> rangeOf(DType t) {
  switch (t) {
    case DType::Bool: return Range{false, 0, 1, 0};
    case DType::Int8: return Range{false, -128, 127, 0};
    case DType::UInt8: return Range{false, 0, 255, 0};
    case DType::Int16: return Range{false, -32768, 32767, 0};
    case DType::UInt16: return Range{false, 0, 65535, 0};
    case DType::Int32: return Range{false, -2147483648.0, 2147483647.0, 0};
    case DType::UInt32: return Range{false, 0, 4294967295.0, 0};
    case DType::Int64: return Range{false, -9223372036854775808.0, 9223372036854775807.0, 0};
    case DType::UInt64: return Range{false, 0, 18446744073709551615.0, 0};
    case DType::BFloat16: return Range{true, -3.39e38, 3.39e38, 8};
    case DType::Float16: return Range{true, -65504, 65504, 11};
    case DType::Float: return Range{true, -3.4e38, 3.4e38, 24};
    case DType::Double: return Range{true, -1.79e308, 1.79e308, 53};
    default: return std::nullopt;
  }
}

// Does A→B keep every value of A, so that B→A gives it back?
bool lossless(DType a, DType b) {
  auto ra = rangeOf(a), rb = rangeOf(b);
  if (!ra || !rb || a == b) return false;
  if (ra->isFloat) {
    // A float type into a wider float type (f16/bf16 → f32 → f64): same values, NaN and ±inf.
    if (!rb->isFloat) return false;
    if (a == DType::Float16) return b == DType::Float || b == DType::Double;
    if (a == DType::BFloat16) return b == DType::Float || b == DType::Double;
    if (a == DType::Float) return b == DType::Double;
    return false;
  }
  if (a == DType::Bool) return true;  // 0/1 in any numeric type, and back to false/true
  if (rb->isFloat) return std::max(-ra->lo, ra->hi) <= std::ldexp(1.0, rb->digits);
  if (b == DType::Bool) return false;
  return rb->lo <= ra->lo && ra->hi <= rb->hi;
}

// Can B hold each of these values (integers of type A) exactly?
bool fits(const std::vector<double>& values, DType b) {
  auto rb = rangeOf(b);
  if (!rb || b == DType::Bool) return false;
  for (double v : values) {
    if (rb->isFloat ? std::fabs(v) > std::ldexp(1.0, rb->digits) : (v < rb->lo || v > rb->hi)) return false;
  }
  return true;
}

class EliminateCastRoundtrip final : public Pass {
 public:
  const PassInfo& info() const override { return m_info; }

  std::vector<Rewrite> run(Model& model, const PassContext& ctx) const override {
    std::vector<Rewrite> done;
    Graph& g = model.graph;
    struct Target {
      NodeId second;
      std::string source;
      std::vector<std::string> names;
      std::string note;
    };
    std::vector<Target> targets;
    {
      GraphIndex idx(g);
      std::optional<std::unordered_map<std::string, KnownValue>> known;  // computed on first need
      for (size_t i = 0; i < g.nodes.size(); ++i) {
        const Node& c2 = g.nodes[i];
        if (!c2.is("Cast") || c2.inputs.size() != 1 || c2.outputs.size() != 1) continue;
        long p = idx.producer(c2.inputs[0]);
        if (p < 0 || !g.nodes[static_cast<size_t>(p)].is("Cast")) continue;
        const Node& c1 = g.nodes[static_cast<size_t>(p)];
        const DType a = idx.dtype(c1.inputs[0]);
        const DType b = static_cast<DType>(c1.attrInt("to", 0));
        if (a == DType::Undefined || static_cast<DType>(c2.attrInt("to", 0)) != a || a == b) continue;
        size_t members[] = {static_cast<size_t>(p), i};
        if (!anyAnchored(ctx, g, members)) continue;
        std::string note;
        if (lossless(a, b)) {
          note = std::string(dtypeName(a)) + "→" + std::string(dtypeName(b)) + "→" + std::string(dtypeName(a)) + " is exact";
        } else if (isInteger(a)) {
          // A narrowing trip is exact only for values known to fit.
          if (!known) known = evaluateShapeValues(g, 1 << 16);
          auto it = known->find(c1.inputs[0]);
          if (it == known->end() || !fits(it->second.values, b)) continue;
          note = "the values of " + c1.inputs[0] + " fit in " + std::string(dtypeName(b));
        } else {
          continue;
        }
        targets.push_back({c2.id, c1.inputs[0], nodeNames(g, members), std::move(note)});
      }
    }
    for (auto& t : targets)
      if (forwardOutput(g, t.second, t.source)) {
        Rewrite r{std::string(m_info.id), {}, t.names, {}, false, std::move(t.note)};
        // The first Cast stays when something else reads it.
        if (g.findNodeByName(t.names[0]) && isUsed(g, g.findNodeByName(t.names[0])->outputs[0])) r.nodesAfter.push_back(t.names[0]);
        done.push_back(std::move(r));
      }
    if (!done.empty()) removeDeadCode(g);
    for (auto& r : done)  // what removeDeadCode dropped is gone too
      std::erase_if(r.nodesAfter, [&](const std::string& n) { return !g.findNodeByName(n); });
    return done;
  }

 private:
  PassInfo m_info{"eliminate_cast_roundtrip", OptLevel::Conservative, false,
                  "remove Cast pairs that convert a value to a wider type and back (exact round trips only)"};
};

}  // namespace

std::unique_ptr<Pass> makeEliminateCastRoundtrip() { return std::make_unique<EliminateCastRoundtrip>(); }

}  // namespace msa
