// The model analysis: runAnalysis (core/advisor/run_analysis.h), the one entry point the CLI and
// the GUI call, and the report writers the CLI uses (JSON contract, text, HTML, Markdown).
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "advisor/run_analysis.h"
#include "bindings.h"
#include "cost/device_profile.h"
#include "errors.h"
#include "job.h"
#include "report/report_html.h"
#include "report/report_json.h"
#include "report/report_text.h"
#include "rules/family_registry.h"
#include "rules/texts.h"

namespace msa::py {
namespace {

namespace py = pybind11;

ReportOptions reportOptions(const std::string& lang, int topN) {
  ReportOptions o;
  if (!parseLang(lang, o.lang)) throw CoreError{Error::usage("lang is 'en' or 'zh', not '" + lang + "'")};
  o.generator = std::string("msadvisor (Python) ") + MSA_VERSION;
  o.topN = topN;
  return o;
}

Category categoryOf(const std::string& name) {
  for (const CategoryInfo& c : categoryInfos())
    if (categoryName(c.category) == name) return c.category;
  throw CoreError{Error::usage("unknown finding category '" + name + "'")};
}

CalibrationPolicy calibrationOf(const std::string& s) {
  if (s == "auto") return CalibrationPolicy::Auto;
  if (s == "cached") return CalibrationPolicy::Cached;
  if (s == "refresh") return CalibrationPolicy::Refresh;
  if (s == "off") return CalibrationPolicy::Off;
  throw CoreError{Error::usage("calibration is auto, cached, refresh or off, not '" + s + "'")};
}

AnalysisHandle analyzeModel(std::optional<ModelHandle> model, const std::string& device,
                            const std::optional<std::filesystem::path>& profile,
                            const std::map<std::string, int64_t>& dims, const std::string& goal, const std::string& scenario,
                            int top, int iterations, int warmup, int threads, const std::string& calibration,
                            const std::vector<std::string>& families, const std::string& label, py::object progress,
                            double timeout) {
  AnalysisRequest request;
  request.device = device;
  if (profile) request.profilePath = *profile;
  for (const auto& [k, v] : dims) request.dims[k] = v;
  if (!parseGoal(goal, request.options.goal)) throw CoreError{Error::usage("goal is latency or throughput, not '" + goal + "'")};
  if (!parseScenario(scenario, request.options.scenario))
    throw CoreError{Error::usage("scenario is edge or datacenter, not '" + scenario + "'")};
  if (top < 1 || iterations < 1 || warmup < 0 || threads < 0)
    throw CoreError{Error::usage("top and iterations must be at least 1, warmup and threads at least 0")};
  request.options.topN = top;
  request.measure.iterations = iterations;
  request.measure.warmup = warmup;
  request.measure.threads = threads;
  request.calibration = calibrationOf(calibration);
  for (const std::string& f : families) request.options.families.push_back(f);  // views into `families`, alive for the call
  if (!model && !profile) throw CoreError{Error::usage("analyze needs a model, a profile, or both")};
  std::shared_ptr<const Model> m = model ? model->model : nullptr;
  auto outcome = runJob<AnalysisOutcome>(
      std::move(progress), [&](const Progress& p) { return runAnalysis(m, request, p); }, timeout);
  // A PyTorch module is exported to a temporary file: the report names the module's class instead.
  if (!label.empty()) outcome.report.model = label;
  std::vector<std::string> reads;
  if (profile) reads.push_back(profile->string());
  return {outcome.model, std::make_shared<const Report>(std::move(outcome.report)), std::move(outcome.warnings), std::move(reads)};
}

// What the deployed run ran (ORT's optimized graph as its profile names it; an imported profile's
// kernels otherwise), for KernelAdvisor to name the kernel: runtime name, op type, provider and the
// op's domain in the runtime graph, the IR nodes it did the work of, and whether one of those reads
// a constant weight (an initializer beyond the first input: ORT's CPU MatMul/Gemm prepack such a
// weight at load).
py::list runtimeNodes(const AnalysisHandle& h) {
  py::list out;
  const Report& r = *h.report;
  const ProfileData* p = r.runtimeProfile ? &*r.runtimeProfile : r.profile ? &*r.profile : nullptr;
  if (!p) return out;
  std::map<std::string, const Node*> byName;
  if (h.model)
    for (const Node& n : h.model->graph.nodes) byName.emplace(n.name, &n);
  for (const NodeProfile& n : p->nodes) {
    bool constantWeight = false;
    for (const std::string& ir : n.irNodes)
      if (auto it = byName.find(ir); it != byName.end())
        for (size_t k = 1; k < it->second->inputs.size(); ++k)
          constantWeight = constantWeight || h.model->graph.findInitializer(it->second->inputs[k]) != nullptr;
    // ORT's node mapping writes "CPUExecutionProvider:com.microsoft.nchwc" for a node of a
    // contrib domain of the optimized graph: the provider and the operator's domain.
    const size_t colon = n.kernel.find(':');
    py::dict d;
    d["name"] = n.name;
    d["op_type"] = n.opType;
    d["provider"] = n.kernel.substr(0, colon);
    d["domain"] = colon == std::string::npos ? std::string() : n.kernel.substr(colon + 1);
    d["ir_nodes"] = n.irNodes;
    d["inserted"] = n.inserted;
    d["median_ms"] = n.timeMs.median;
    d["constant_weight"] = constantWeight;
    out.append(d);
  }
  return out;
}

}  // namespace

void bindAnalysis(py::module_& m) {
  py::class_<AnalysisHandle>(m, "Analysis", "The core's analysis report (use msadvisor.Report).")
      .def_property_readonly("model", [](const AnalysisHandle& h) { return ModelHandle{h.model}; })
      .def_readonly("warnings", &AnalysisHandle::warnings)
      .def("runtime_nodes", &runtimeNodes, "What the deployed run ran, per runtime node (see Report.runtime_nodes).")
      .def("to_json",
           [](const AnalysisHandle& h, const std::string& lang, int top) {
             return jsonText(reportToJson(*h.report, reportOptions(lang, top)));
           },
           py::arg("lang") = "en", py::arg("top") = 10)
      .def("to_text",
           [](const AnalysisHandle& h, const std::string& lang, int top) { return reportToText(*h.report, reportOptions(lang, top)); },
           py::arg("lang") = "en", py::arg("top") = 10)
      .def("category_text",
           [](const AnalysisHandle& h, const std::string& category, const std::string& lang, int top) {
             return categoryToText(*h.report, categoryOf(category), reportOptions(lang, top));
           },
           py::arg("category"), py::arg("lang") = "en", py::arg("top") = 10)
      .def("to_html",
           [](const AnalysisHandle& h, const std::string& lang, int top) { return reportToHtml(*h.report, reportOptions(lang, top)); },
           py::arg("lang") = "en", py::arg("top") = 10)
      .def("to_markdown",
           [](const AnalysisHandle& h, const std::string& lang, int top) {
             return reportToMarkdown(*h.report, reportOptions(lang, top));
           },
           py::arg("lang") = "en", py::arg("top") = 10)
      .def(
          "write",
          [](const AnalysisHandle& h, const std::filesystem::path& out, const std::string& text) {
            writeOutput(out, text, h.model.get(), h.reads);
          },
          py::arg("path"), py::arg("text"), "Writes a rendering of the report, never over a file the analysis read.");
  m.def("analyze", &analyzeModel, py::arg("model"), py::arg("device") = "cpu", py::arg("profile") = py::none(),
        py::arg("dims") = std::map<std::string, int64_t>{}, py::arg("goal") = "latency", py::arg("scenario") = "edge",
        py::arg("top") = 10, py::arg("iterations") = 10, py::arg("warmup") = 2, py::arg("threads") = 0,
        py::arg("calibration") = "auto", py::arg("families") = std::vector<std::string>{}, py::arg("label") = "",
        py::arg("progress") = py::none(), py::arg("timeout") = kDefaultTimeoutSeconds,
        "runAnalysis: measure on the CPU (device='cpu') or estimate on a device profile, or analyse an imported profile. "
        "`label` names the model in the report instead of its path.");
  m.def("device_ids", &builtinDevices, "The built-in device profile ids (sorted).");
}

}  // namespace msa::py
