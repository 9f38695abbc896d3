// msadvisor-cli info: what a model is made of.
#include <cstdio>
#include <map>

#include "cli.h"
#include "cost/op_cost.h"
#include "model/graph_index.h"
#include "model/model_check.h"
#include "model/onnx_io.h"
#include "model/shape_inference.h"

namespace msa::cli {
namespace {

nlohmann::json valueJson(const ValueInfo& v) {
  nlohmann::json shape = nullptr;
  if (v.type.shape) {
    shape = nlohmann::json::array();
    for (const Dim& d : v.type.shape->dims) {
      if (d.known()) shape.push_back(d.value);
      else shape.push_back(d.param.empty() ? nlohmann::json(nullptr) : nlohmann::json(d.param));
    }
  }
  return {{"name", v.name}, {"dtype", std::string(dtypeName(v.type.elem))}, {"shape", shape}};
}

int runInfo(const Args& args) {
  if (args.positional.size() != 1) return fail(Error::usage("info expects one MODEL"));
  ShapeOptions so;
  for (const auto& d : args.values("dim"))
    if (auto s = parseDimBinding(d, so); !s) return fail(s.error());
  auto model = loadInput(args.positional[0]);
  if (!model) return fail(model.error());
  auto shapes = inferShapes(*model, so);
  if (!shapes) return fail(shapes.error());
  const Graph& g = model->graph;

  std::map<std::string, int> histogram, histogramAll;
  for (const Node& n : g.nodes) ++histogram[n.opType];
  g.forEachGraph([&](const Graph& sub, int) {
    for (const Node& n : sub.nodes) ++histogramAll[n.opType];
  });
  int64_t parameters = 0;
  for (const Tensor& t : g.initializers) parameters += t.numElements();
  const GraphCost cost = computeCosts(g);

  nlohmann::json j;
  j["model"] = args.positional[0];
  j["nodes"] = g.nodes.size();
  j["nodes_including_subgraphs"] = g.totalNodeCount();
  j["op_histogram"] = histogram;
  if (histogramAll != histogram) j["op_histogram_including_subgraphs"] = histogramAll;
  j["parameters"] = parameters;
  j["parameters_including_subgraphs"] = cost.parameters;
  j["macs"] = cost.macs;
  j["flops"] = cost.flops;
  j["flops_per_mac"] = 2;  // a multiply-add counts 2 FLOPs
  j["bytes"] = cost.bytes();
  j["bytes_read"] = cost.bytesRead;
  j["bytes_written"] = cost.bytesWritten;
  j["param_bytes"] = cost.paramBytes;
  j["foldable_nodes"] = cost.foldableNodes;  // computed from constants and static shapes only
  j["unknown_cost_ops"] = nlohmann::json::array();
  for (const UnknownCost& u : cost.unknown)
    j["unknown_cost_ops"].push_back({{"name", u.path}, {"op_type", u.opType}, {"domain", u.domain}, {"reason", u.reason}});
  j["unknown_cost_op_types"] = cost.unknownByOp;
  nlohmann::json opsets = nlohmann::json::object();
  for (const auto& o : model->opsets) opsets[o.domain == "ai.onnx" ? "" : o.domain] = o.version;
  j["opsets"] = opsets;
  j["ir_version"] = model->irVersion;
  j["producer"] = model->producerName + (model->producerVersion.empty() ? "" : " " + model->producerVersion);
  j["inputs"] = nlohmann::json::array();
  for (const auto& v : g.inputs)
    if (!g.findInitializer(v.name)) j["inputs"].push_back(valueJson(v));
  j["outputs"] = nlohmann::json::array();
  for (const auto& v : g.outputs) j["outputs"].push_back(valueJson(v));
  j["costs_saturated"] = cost.totalsSaturated || !cost.saturated.empty();
  j["saturated_nodes"] = cost.saturated;
  const auto notRunnable = runtimeCannotRun(*model);
  j["runtime_refusal"] = notRunnable ? nlohmann::json(*notRunnable) : nlohmann::json(nullptr);
  j["unbound_dims"] = shapes->unboundDims;
  j["shape_warnings"] = shapes->warnings;

  if (auto path = args.value("json")) return writeJson(j, *path);
  std::printf("%s\n  nodes %zu (%zu with subgraphs), parameters %lld\n", shown(args.positional[0]).c_str(), g.nodes.size(),
              g.totalNodeCount(), static_cast<long long>(parameters));
  std::printf("  compute %.4f GMACs = %.4f GFLOPs (a multiply-add counts 2 FLOPs)\n", cost.macs / 1e9, cost.flops / 1e9);
  std::printf("  memory  %.2f MB moved (%.2f MB read incl. %.2f MB weights, %.2f MB written)\n", cost.bytes() / 1e6,
              cost.bytesRead / 1e6, cost.paramBytes / 1e6, cost.bytesWritten / 1e6);
  if (cost.totalsSaturated || !cost.saturated.empty())
    std::printf("  saturated: figures held at 2^63 (%zu node(s) with shapes whose product overflows, e.g. %s)\n",
                cost.saturated.size(), cost.saturated.empty() ? "-" : shown(cost.saturated.front()).c_str());
  if (notRunnable) std::printf("  runtime: %s\n", shown(*notRunnable).c_str());
  if (cost.foldableNodes)
    std::printf("  foldable %zu node(s) compute from constants and static shapes only\n", cost.foldableNodes);
  if (!cost.unknown.empty()) {
    std::printf("  unknown cost: %zu node(s)\n", cost.unknown.size());
    for (const auto& [op, n] : cost.unknownByOp) std::printf("    %-22s %d\n", shown(op).c_str(), n);
    const UnknownCost& u = cost.unknown.front();
    std::printf("    e.g. %s (%s): %s\n", shown(u.path).c_str(), shown(u.opType).c_str(), shown(u.reason).c_str());
  }
  std::printf("  operators:\n");
  for (const auto& [op, n] : histogram) std::printf("    %-22s %d\n", shown(op).c_str(), n);
  return kOk;
}

}  // namespace

extern const Verb kInfoVerb{
    "info",
    "info MODEL [--dim NAME=VALUE]... [--json PATH]",
    "what a model is made of: nodes, operators, parameters, FLOPs, bytes, inputs and outputs",
    {kJsonOption, kDimOption},
    runInfo,
};

}  // namespace msa::cli
