#include "whatif/prediction.h"

#include <algorithm>
#include <numeric>

#include "cost/op_cost.h"
#include "model/graph_index.h"
#include "profile/host_calibration.h"
#include "profile/profile_data.h"

namespace msa {
namespace {

double median(std::vector<double> v) { return Stats::of(std::move(v)).median; }

// A node with this much work (float32 roofline) is split over the intra-op threads; below it the
// runtime runs it on one (its parallel-for does not pay for itself).
constexpr double kParallelSeconds = 10e-6;

}  // namespace

Result<Predictor> Predictor::create(const Model& model, const ProfileData& deployed, const DeviceProfile& device,
                                    const std::map<std::string, double, std::less<>>& int8KernelSpeedup) {
  Predictor p;
  const Graph& g = model.graph;
  const GraphCost cost = computeCosts(g);
  RooflineOptions ro;
  ro.precision = RooflineOptions::Precision::Model;
  const RooflineEstimate est = estimateRoofline(g, cost, device, ro);
  p.m_optimumMs = est.seconds * 1e3;
  p.m_fp32 = device.peak(ComputeUnit::None, DType::Float).value_or(0);
  p.m_int8 = device.peak(ComputeUnit::None, DType::Int8).value_or(p.m_fp32);
  // AVX512-BF16's dot product (VDPBF16PS) does two bf16 products per float32 lane and instruction.
  p.m_bf16 = 2 * p.m_fp32;
  p.m_bandwidth = device.memoryBandwidth.value;
  if (!(p.m_fp32 > 0) || !(p.m_bandwidth > 0)) return Error::usage("the device profile has no float32 rate or bandwidth");
  GraphIndex idx(g);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    const OpCost& c = cost.nodes[i];
    NodeTerms t;
    t.known = c.known;
    t.compute = est.nodes[i].computeSeconds;
    t.memory = est.nodes[i].memorySeconds;
    t.flops = c.flops;
    t.paramBytes = c.paramBytes;
    t.actInBytes = std::max(0.0, c.bytesRead - c.paramBytes);
    t.outBytes = c.bytesWritten;
    if (n.opType == "Conv" && n.inputs.size() > 1)
      if (const Shape* w = idx.shape(n.inputs[1]); w && w->fullyKnown() && w->rank() >= 3) {
        int64_t kernel = 1;
        for (size_t d = 2; d < w->rank(); ++d) kernel *= w->dims[d].value;
        const std::string_view kind = int8ConvKind(w->dims[1].value, n.attrInt("group", 1), kernel);
        if (auto s = int8KernelSpeedup.find(kind); s != int8KernelSpeedup.end()) t.int8Speedup = s->second;
      }
    // The elementwise nodes a static QDQ model runs as QLinear* kernels, and its QLinearConcat.
    static const std::set<std::string, std::less<>> kQLinearElementwise{"Add", "Mul", "Sigmoid", "LeakyRelu"};
    if (n.isDefaultDomain() && (kQLinearElementwise.count(n.opType) || n.opType == "Concat"))
      if (auto s = int8KernelSpeedup.find(n.opType == "Concat" ? "concat" : "elementwise"); s != int8KernelSpeedup.end()) {
        t.int8Speedup = s->second;
        t.elementwise = n.opType != "Concat";
      }
    p.m_terms[n.name] = t;
    for (const auto& o : n.outputs) p.m_producer[o] = n.name;
    for (const auto& in : n.inputs) p.m_consumers[in].push_back(n.name);
    for (const auto& o : n.outputs)
      if (const Shape* s = idx.shape(o); s && s->fullyKnown() && idx.dtype(o) == DType::Float)
        p.m_elements[o] = static_cast<double>(s->numElements());
  }
  for (const auto& in : g.inputs)
    if (const Shape* s = idx.shape(in.name); s && s->fullyKnown()) p.m_elements[in.name] = static_cast<double>(s->numElements());
  std::vector<double> memoryRatios;
  for (const NodeProfile& n : deployed.nodes) {
    if (!n.parent.empty()) continue;
    p.m_nodes.push_back(n);
    p.m_totalMs += n.timeMs.median;
    double mem = 0;
    bool memoryBound = !n.irNodes.empty();
    for (const auto& ir : n.irNodes) {
      auto t = p.m_terms.find(ir);
      if (t == p.m_terms.end() || !t->second.known || t->second.compute > t->second.memory) memoryBound = false;
      else mem += t->second.memory;
    }
    if (memoryBound && mem > 0 && n.timeMs.median > 0) memoryRatios.push_back(n.timeMs.median * 1e-3 / mem);
  }
  if (!(p.m_totalMs > 0)) return Error::usage("the deployed profile times no node");
  p.m_memoryEfficiency = memoryRatios.empty() ? 1.0 : std::max(1.0, median(memoryRatios));
  return p;
}

double Predictor::fp32Seconds(const NodeTerms& t) const { return std::max(t.compute, t.memory); }

double Predictor::int8Seconds(const NodeTerms& t, bool dynamic) const {
  const double compute = t.flops / m_int8;
  // Static: every operand and result in int8. Dynamic: int8 weights; the float activation is
  // read twice (its range, then quantized) and written once in uint8; the result stays float.
  const double bytes = dynamic ? t.paramBytes / 4 + t.actInBytes * 2.25 + t.outBytes
                               : (t.paramBytes + t.actInBytes + t.outBytes) / 4;
  return std::max(compute, bytes / m_bandwidth);
}

Prediction Predictor::quantized(const std::set<std::string, std::less<>>& int8Nodes, bool dynamic,
                                const std::vector<std::string>& quantizedTensors) const {
  Prediction out;
  out.method = dynamic ? "int8_dynamic" : "int8_static";
  out.originalMs = m_totalMs;
  double variant = 0;
  for (const NodeProfile& n : m_nodes) {
    const double t = n.timeMs.median;
    double after = t;
    if (n.irNodes.empty()) {
      // A layout reorder the runtime inserted between int8 nodes moves a quarter of the bytes. In a
      // static model the int8 convolutions run in NHWC, not NCHWc: a reorder beside one becomes a
      // Transpose of the quantized tensor at a float island's edge.
      const auto& around = n.neighbours;
      auto isInt8 = [&](const std::string& x) { return int8Nodes.count(x) > 0; };
      auto int8OrEdge = [&](const std::string& x) { return x.empty() || isInt8(x); };
      const bool quarter = !around.empty() && (dynamic ? std::all_of(around.begin(), around.end(), int8OrEdge)
                                                       : std::any_of(around.begin(), around.end(), isInt8));
      if (quarter) after = t / 4;
      if (!n.neighbours.empty() && !n.neighbours.front().empty()) out.savedMs[n.neighbours.front()] += t - after;
    } else {
      double all = 0, quantizedPart = 0, int8Part = 0, elementwiseSpeedup = 0;
      size_t elementwise = 0;  // int8 IR nodes run by QLinear elementwise kernels
      bool known = true;
      for (const auto& ir : n.irNodes) {
        auto it = m_terms.find(ir);
        if (it == m_terms.end() || !it->second.known) {
          known = false;
          continue;
        }
        const double f = fp32Seconds(it->second);
        all += f;
        if (int8Nodes.count(ir)) {
          quantizedPart += f;
          // A convolution or elementwise node gains what this host's int8 kernel of its kind gains.
          int8Part += !dynamic && it->second.int8Speedup > 0 ? f / it->second.int8Speedup : int8Seconds(it->second, dynamic);
          if (!dynamic && it->second.elementwise) {
            ++elementwise;
            elementwiseSpeedup = it->second.int8Speedup;
          }
        }
      }
      if (all > 0 && known) after = t * (all - quantizedPart + int8Part) / all;
      // A float kernel that fused several elementwise nodes into one pass (x·sigmoid(x) as
      // QuickGelu) comes apart in int8: each runs its own QLinear pass.
      if (elementwise >= 2 && elementwise == n.irNodes.size() && elementwiseSpeedup > 0)
        after = t * static_cast<double>(elementwise) / elementwiseSpeedup;
      for (const auto& ir : n.irNodes) out.savedMs[ir] += (t - after) / static_cast<double>(n.irNodes.size());
    }
    variant += after;
  }
  // The Q/DQ pairs at the edges of the int8 region: a QuantizeLinear where a float node (or the
  // graph input) writes a quantized tensor, a DequantizeLinear where a float node reads one.
  for (const std::string& t : quantizedTensors) {
    auto e = m_elements.find(t);
    if (e == m_elements.end()) continue;
    const double pass = e->second * 5.0 / m_bandwidth * m_memoryEfficiency * 1e3;  // read 4 bytes, write 1 (or back)
    auto p = m_producer.find(t);
    const bool floatProducer = p == m_producer.end() || !int8Nodes.count(p->second);
    bool floatConsumer = false;
    if (auto c = m_consumers.find(t); c != m_consumers.end())
      for (const auto& x : c->second) floatConsumer = floatConsumer || !int8Nodes.count(x);
    const double cost = (floatProducer ? pass : 0) + (floatConsumer ? pass : 0);
    variant += cost;
    if (p != m_producer.end()) out.savedMs[p->second] -= cost;
  }
  out.variantMs = variant;
  out.speedup = variant > 0 ? m_totalMs / variant : 0;
  double optimumSaved = 0;
  for (const auto& name : int8Nodes)
    if (auto it = m_terms.find(name); it != m_terms.end() && it->second.known)
      optimumSaved += fp32Seconds(it->second) - int8Seconds(it->second, dynamic);
  out.optimumMs = std::max(0.0, m_optimumMs - optimumSaved * 1e3);
  return out;
}

Prediction Predictor::threads(int threads, int baseThreads) const {
  Prediction out;
  out.method = "threads";
  out.originalMs = m_totalMs;
  const double stretch = static_cast<double>(baseThreads) / std::max(1, threads);
  double variant = 0;
  for (const NodeProfile& n : m_nodes) {
    double work = 0;
    for (const auto& ir : n.irNodes)
      if (auto it = m_terms.find(ir); it != m_terms.end()) work += fp32Seconds(it->second);
    const double after = work >= kParallelSeconds ? n.timeMs.median * stretch : n.timeMs.median;
    variant += after;
    for (const auto& ir : n.irNodes) out.savedMs[ir] += (n.timeMs.median - after) / static_cast<double>(n.irNodes.size());
  }
  out.variantMs = variant;
  out.speedup = variant > 0 ? m_totalMs / variant : 0;
  out.optimumMs = m_optimumMs;
  return out;
}

Prediction Predictor::batch(int b) const {
  Prediction out;
  out.method = "batch";
  out.originalMs = m_totalMs;
  double variant = 0;
  for (const NodeProfile& n : m_nodes) {
    double one = 0, many = 0;
    bool known = !n.irNodes.empty();
    for (const auto& ir : n.irNodes) {
      auto it = m_terms.find(ir);
      if (it == m_terms.end() || !it->second.known) {
        known = false;
        break;
      }
      const NodeTerms& t = it->second;
      one += fp32Seconds(t);
      // b items of work against the same weights.
      many += std::max(b * t.flops / m_fp32, (t.paramBytes + b * (t.actInBytes + t.outBytes)) / m_bandwidth);
    }
    variant += known && one > 0 ? n.timeMs.median * many / one : n.timeMs.median * b;
  }
  out.variantMs = variant;
  out.speedup = variant > 0 ? b * m_totalMs / variant : 0;
  out.optimumMs = m_optimumMs * b;
  return out;
}

Prediction Predictor::bf16(const std::set<std::string, std::less<>>& bf16Nodes) const {
  Prediction out;
  out.method = "bf16";
  out.originalMs = m_totalMs;
  double variant = 0, optimumSaved = 0;
  for (const NodeProfile& n : m_nodes) {
    double all = 0, part = 0, bf = 0;
    for (const auto& ir : n.irNodes) {
      auto it = m_terms.find(ir);
      if (it == m_terms.end() || !it->second.known) continue;
      const NodeTerms& t = it->second;
      all += fp32Seconds(t);
      if (bf16Nodes.count(ir)) {
        part += fp32Seconds(t);
        // Half the bytes, and the Casts around it read and write its activations once more.
        const double b = std::max(t.flops / m_bf16, (t.paramBytes + t.actInBytes + t.outBytes) / 2 / m_bandwidth) +
                         (t.actInBytes + t.outBytes) * 1.5 / m_bandwidth;
        bf += b;
        optimumSaved += fp32Seconds(t) - b;
      }
    }
    const double after = all > 0 ? n.timeMs.median * (all - part + bf) / all : n.timeMs.median;
    variant += after;
    for (const auto& ir : n.irNodes) out.savedMs[ir] += (n.timeMs.median - after) / static_cast<double>(n.irNodes.size());
  }
  out.variantMs = variant;
  out.speedup = variant > 0 ? m_totalMs / variant : 0;
  out.optimumMs = std::max(0.0, m_optimumMs - optimumSaved * 1e3);
  return out;
}

Prediction Predictor::unchanged(std::string method) const {
  Prediction out;
  out.method = std::move(method);
  out.originalMs = out.variantMs = m_totalMs;
  out.speedup = 1;
  out.optimumMs = m_optimumMs;
  return out;
}

}  // namespace msa
