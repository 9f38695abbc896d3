// msadvisor-cli info: what a model is made of.
#include <cstdio>
#include <map>

#include "cli.h"
#include "model/graph_index.h"
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
  auto model = loadModel(args.positional[0]);
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

  nlohmann::json j;
  j["model"] = args.positional[0];
  j["nodes"] = g.nodes.size();
  j["nodes_including_subgraphs"] = g.totalNodeCount();
  j["op_histogram"] = histogram;
  if (histogramAll != histogram) j["op_histogram_including_subgraphs"] = histogramAll;
  j["parameters"] = parameters;
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
  j["unbound_dims"] = shapes->unboundDims;
  j["shape_warnings"] = shapes->warnings;

  if (auto path = args.value("json")) return writeJson(j, *path);
  std::printf("%s\n  nodes %zu (%zu with subgraphs), parameters %lld\n", args.positional[0].c_str(), g.nodes.size(),
              g.totalNodeCount(), static_cast<long long>(parameters));
  for (const auto& [op, n] : histogram) std::printf("  %-24s %d\n", op.c_str(), n);
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
