// The kernel-time model (kernel_predict.h): classes, the fitted figures, the prediction, the
// fit the benchmark runs, and the mapping of ONNX nodes to the kernels they run as.
#include "cost/kernel_predict.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <nlohmann/json.hpp>

#include "model/graph_index.h"
#include "util/embedded.h"

namespace msa {

namespace {

using json = nlohmann::json;

std::string widthClass(DType t) {
  switch (dtypeSize(t)) {
    case 1: return "8-bit";
    case 2: return "16-bit";
    case 4: return "32-bit";
    case 8: return "64-bit";
    default: return "other";
  }
}

// The shape variant that changes how close a family's kernels come to their roofline.
std::string variantOf(const KernelCost& k) {
  const std::string_view op = k.opType;
  if (k.family == "matmul") return k.m > 0 && k.n > 0 && (k.m < 64 || k.n < 64) ? "skinny" : "full";
  if (k.family == "conv") {
    // Channels padded to C0 (a 3-channel first layer: 8 float32 per K block) leave the cube
    // waiting on the image-to-column loads.
    const bool padded = k.k > 0 && static_cast<double>(k.paddedK) > 1.5 * static_cast<double>(k.k);
    return std::string(op.find("Backprop") != std::string_view::npos ? "backprop" : "forward") + (padded ? "-padded" : "");
  }
  if (k.family == "attention") return op.ends_with("Grad") ? "backward" : "forward";
  if (k.family == "data") return op.starts_with("TransData") ? "transdata" : "copy";
  return "";
}

// The SoC family: "Ascend910B2" -> "Ascend910B", "Ascend910" -> "Ascend910".
std::string socFamily(std::string_view soc) {
  while (!soc.empty() && std::isdigit(static_cast<unsigned char>(soc.back())) && soc.size() > 9) soc.remove_suffix(1);
  return std::string(soc);
}

double positive(const json& j, const char* key, const std::string& where) {
  if (!j.contains(key) || !j.at(key).is_number() || !(j.at(key).get<double>() >= 0))
    throw std::runtime_error(where + ": key '" + key + "' must be a number >= 0");
  return j.at(key).get<double>();
}

}  // namespace

std::vector<std::string> kernelClasses(const KernelCost& k, bool mixCore) {
  std::vector<std::string> out;
  const std::string family = k.family.empty() ? "other" : k.family;
  const std::string width = family + "/" + widthClass(k.cost.computeType);
  const std::string variant = variantOf(k);
  if (!variant.empty()) {
    if (mixCore) out.push_back(width + "/" + variant + "/mix");
    out.push_back(width + "/" + variant);
  } else if (mixCore) {
    out.push_back(width + "/mix");
  }
  out.push_back(width);
  out.push_back(family);
  out.push_back("all");
  return out;
}

const EfficiencyFit* EfficiencyModel::find(const std::vector<std::string>& keys, std::string* key) const {
  for (const std::string& k : keys)
    if (auto it = classes.find(k); it != classes.end()) {
      if (key) *key = k;
      return &it->second;
    }
  return nullptr;
}

bool EfficiencyModel::covers(const DeviceProfile& device) const {
  const std::string family = socFamily(device.soc);
  return !family.empty() && std::any_of(socs.begin(), socs.end(), [&](const std::string& s) { return socFamily(s) == family; });
}

Result<EfficiencyModel> parseEfficiencyModel(std::string_view text, const std::string& label) {
  try {
    const json j = json::parse(text);
    if (j.value("schema", "") != "msadvisor-kernel-efficiency/1")
      return Error::device(label + ": schema must be 'msadvisor-kernel-efficiency/1'");
    EfficiencyModel m;
    for (const auto& s : j.value("socs", json::array())) m.socs.push_back(s.get<std::string>());
    const json sources = j.value("sources", json::object());  // items() of a temporary would dangle
    for (const auto& [file, what] : sources.items()) m.sources[file] = what.get<std::string>();
    for (const auto& [key, c] : j.at("classes").items()) {
      const std::string where = label + ": class '" + key + "'";
      EfficiencyFit f;
      f.startSeconds = positive(c, "start_us", where) * 1e-6;
      f.computeFactor = positive(c, "compute_factor", where);
      f.memoryFactor = positive(c, "memory_factor", where);
      f.kernels = c.value("kernels", 0.0);
      f.entries = c.value("entries", 0);
      f.within25 = c.value("within_25", 0.0);
      for (const auto& file : c.value("files", json::array())) f.files.push_back(file.get<std::string>());
      m.classes[key] = std::move(f);
    }
    return m;
  } catch (const std::exception& e) {
    return Error::device(label + ": " + e.what());
  }
}

json toJson(const EfficiencyModel& m) {
  json classes = json::object();
  for (const auto& [key, f] : m.classes)
    classes[key] = {{"start_us", std::round(f.startSeconds * 1e8) / 100},
                    {"compute_factor", std::round(f.computeFactor * 1000) / 1000},
                    {"memory_factor", std::round(f.memoryFactor * 1000) / 1000},
                    {"kernels", f.kernels},
                    {"entries", f.entries},
                    {"within_25", std::round(f.within25 * 1000) / 1000},
                    {"files", f.files}};
  return {{"schema", "msadvisor-kernel-efficiency/1"}, {"socs", m.socs}, {"sources", m.sources}, {"classes", classes}};
}

const EfficiencyModel& builtinEfficiencyModel() {
  static const EfficiencyModel model = [] {
    const std::string_view name = "ascend/kernel_efficiency.json";
    auto m = parseEfficiencyModel(embedded::find(name), std::string(name));
    if (!m) {
      embedded::recordTableError(name, m.error().message);
      return EfficiencyModel{};
    }
    return *m;
  }();
  return model;
}

KernelPrediction predictKernel(const KernelCost& k, const KernelRoofline& r, const DeviceProfile& device, bool mixCore,
                               const EfficiencyModel& model) {
  KernelPrediction p;
  if (!k.cost.known || r.seconds <= 0 || !model.covers(device)) return p;
  const EfficiencyFit* f = model.find(kernelClasses(k, mixCore), &p.classKey);
  if (!f) return p;
  p.seconds = std::max(r.seconds, f->startSeconds + std::max(f->computeFactor * r.computeSeconds, f->memoryFactor * r.hbmSeconds));
  return p;
}

EfficiencyModel fitEfficiencyModel(const std::vector<EfficiencySample>& samples, const EfficiencyFitOptions& options) {
  std::map<std::string, std::vector<const EfficiencySample*>> byClass;
  for (const EfficiencySample& s : samples)
    if (s.cost.cost.known && s.roofline.seconds > 0 && s.measuredSeconds > 0 && s.weight > 0)
      for (const std::string& key : kernelClasses(s.cost, s.mix)) byClass[key].push_back(&s);
  // The grid: the start in quarter microseconds, the factors on log scales (the compute one at
  // least 0.8: the formula may count a little more than the counters show, never much less).
  std::vector<double> starts, computeFactors, memoryFactors;
  for (int i = 0; i <= 16; ++i) starts.push_back(0.25e-6 * i);
  for (int i = 0; i < 40; ++i) computeFactors.push_back(0.8 * std::pow(60.0, i / 39.0));
  for (int i = 0; i < 40; ++i) memoryFactors.push_back(0.2 * std::pow(250.0, i / 39.0));
  EfficiencyModel m;
  for (const auto& [key, list] : byClass) {
    std::set<std::string> files;
    for (const auto* s : list) files.insert(s->file);
    if (static_cast<int>(list.size()) < options.minEntries) continue;
    if (key != "all" && static_cast<int>(files.size()) < options.minFiles) continue;
    double total = 0;
    for (const auto* s : list) total += s->weight;
    EfficiencyFit best;
    double bestWithin = -1, bestError = 0;
    for (double start : starts)
      for (double cf : computeFactors)
        for (double mf : memoryFactors) {
          double within = 0, error = 0;
          for (const auto* s : list) {
            const double p =
                std::max(s->roofline.seconds, start + std::max(cf * s->roofline.computeSeconds, mf * s->roofline.hbmSeconds));
            within += std::abs(p / s->measuredSeconds - 1) <= 0.25 ? s->weight : 0;
            error += std::abs(std::log(p / s->measuredSeconds)) * s->weight;
          }
          const bool better = options.logError ? bestWithin < 0 || error < bestError
                                               : within > bestWithin + 1e-9 || (std::abs(within - bestWithin) <= 1e-9 && error < bestError);
          if (better) {
            bestWithin = within, bestError = error;
            best.startSeconds = start, best.computeFactor = cf, best.memoryFactor = mf;
          }
        }
    best.kernels = total;
    best.entries = static_cast<int>(list.size());
    best.files.assign(files.begin(), files.end());
    best.within25 = total > 0 ? bestWithin / total : 0;
    m.classes[key] = std::move(best);
  }
  return m;
}

// ---- the graph estimate ----------------------------------------------------------------------

namespace {

std::string dimsText(const Shape* s) {
  if (!s || !s->fullyKnown()) return {};
  std::string t = "[";
  for (size_t i = 0; i < s->dims.size(); ++i) t += (i ? "," : "") + std::to_string(s->dims[i].value);
  return t + "]";
}

// The family of a node that is not a matrix product, by its ONNX op type and unit.
std::string familyOf(const Node& n, const OpCost& c) {
  static const std::set<std::string, std::less<>> norm{"BatchNormalization", "LayerNormalization", "InstanceNormalization",
                                                       "GroupNormalization", "RMSNormalization", "LpNormalization",
                                                       "MeanVarianceNormalization", "SimplifiedLayerNormalization",
                                                       "SkipLayerNormalization", "LRN"};
  static const std::set<std::string, std::less<>> softmax{"Softmax", "LogSoftmax", "Hardmax"};
  static const std::set<std::string, std::less<>> gather{"Gather", "GatherElements", "GatherND", "ScatterND",
                                                         "ScatterElements", "Scatter"};
  const std::string_view op = n.opType;
  if (norm.count(op)) return "norm";
  if (softmax.count(op)) return "softmax";
  if (gather.count(op)) return "gather";
  if (op.find("Pool") != std::string_view::npos) return "pool";
  if (op.starts_with("Reduce") || op == "ArgMax" || op == "ArgMin" || op == "TopK" || op == "CumSum") return "reduction";
  if (op == "ConstantOfShape" || op == "Range" || op == "EyeLike") return "fill";
  return c.unit == ComputeUnit::Memory ? "data" : "elementwise";
}

}  // namespace

KernelCost kernelCostOfNode(const Node& n, const GraphIndex& index, const OpCost& c, DType type) {
  auto shape = [&](std::string_view v) { return v.empty() ? std::string() : dimsText(index.shape(v)); };
  const std::string t(dtypeName(type));
  const bool conv2d = n.is("Conv") && index.shape(n.input(0)) && index.shape(n.input(0))->rank() == 4;
  if (c.known && (conv2d || n.is("MatMul") || n.is("Gemm"))) {
    std::vector<std::string> inShapes, inTypes, inFormats;
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      inShapes.push_back(shape(n.input(i)));
      inTypes.push_back(n.input(i).empty() ? std::string() : t);
      // The convolution's feature maps in 5HD (the 4-D origin shape is padded to C0), its filter OIHW.
      inFormats.push_back(conv2d && i == 0 ? "NC1HWC0" : conv2d && i == 1 ? "NCHW" : "ND");
    }
    const std::string y = shape(n.output(0));
    std::string op = conv2d ? (n.attrInt("group", 1) > 1 ? "DepthwiseConv2D" : "Conv2D") : "MatMulV2";
    if (n.is("MatMul") && index.shape(n.output(0)) && index.shape(n.output(0))->rank() > 2) op = "BatchMatMulV2";
    KernelCost k = kernelCost(parseKernelSignature(op, inShapes, inTypes, inFormats, {y}, {t},
                                                   {conv2d ? "NC1HWC0" : "ND"}));
    if (k.cost.known) return k;
  }
  KernelCost k;
  k.opType = n.opType;
  k.family = familyOf(n, c);
  k.cost = c;
  k.cost.computeType = type;
  const double bytes = bytesAtType(c, type);
  k.cost.bytesRead = c.bytes() > 0 ? c.bytesRead * bytes / c.bytes() : 0;
  k.cost.bytesWritten = c.bytes() > 0 ? c.bytesWritten * bytes / c.bytes() : 0;
  k.logicalFlops = c.flops;
  return k;
}

std::vector<double> predictGraphKernels(const Graph& g, const GraphIndex& index, const GraphCost& cost,
                                        const RooflineEstimate& est, const DeviceProfile& device,
                                        const EfficiencyModel& model) {
  if (!model.covers(device)) return {};
  std::vector<double> out(g.nodes.size(), 0.0);
  for (size_t i = 0; i < g.nodes.size() && i < est.nodes.size() && i < cost.nodes.size(); ++i) {
    const NodeEstimate& e = est.nodes[i];
    if (e.elided || e.seconds <= 0) continue;
    if (e.kernelAnchor >= 0 && static_cast<size_t>(e.kernelAnchor) != i) continue;  // inside another node's kernel
    const Node& n = g.nodes[i];
    out[i] = e.seconds - e.overheadSeconds;  // what the model cannot price keeps its roofline
    if (!e.known || n.hasSubgraphs() || (!cost.nodes[i].movesData && cost.nodes[i].flops == 0)) continue;
    const KernelCost k = kernelCostOfNode(n, index, cost.nodes[i], e.computeType);
    const KernelPrediction p = predictKernel(k, kernelRoofline(k.cost, device), device, false, model);
    if (p.seconds > 0) out[i] = p.seconds;
  }
  return out;
}

}  // namespace msa
