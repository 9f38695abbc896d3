// What if…, as `msadvisor-cli what-if` runs it: core's runWhatIf builds the variants the runtime
// does not make by itself, checks their accuracy against the original and measures them beside
// it; the JSON is the CLI's (whatif_json.h); `save` writes a variant as `what-if --export` does.
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "bindings.h"
#include "errors.h"
#include "job.h"
#include "model/onnx_io.h"
#include "whatif/whatif.h"
#include "whatif/whatif_json.h"

namespace msa::py {
namespace {

namespace py = pybind11;

struct WhatIfHandle {
  std::shared_ptr<const Model> original;
  std::shared_ptr<const WhatIfResult> result;
  std::vector<std::string> reads;  // the inputs folder
};

WhatIfHandle whatIf(const ModelHandle& model, const std::string& device, const std::optional<std::filesystem::path>& inputs,
                    const std::string& bound, const std::string& goal, const std::vector<std::string>& only,
                    const std::vector<int>& batches, int samples, uint64_t seed, double budget,
                    const std::map<std::string, int64_t>& dims, py::object progress, double timeout) {
  WhatIfRequest req;
  req.device = device;
  if (!bound.empty()) req.bound = unwrap(parseBound(bound));
  if (goal != "latency" && goal != "throughput") throw CoreError{Error::usage("goal is latency or throughput, not '" + goal + "'")};
  req.goal = goal == "throughput" ? WhatIfRequest::Goal::Throughput : WhatIfRequest::Goal::Latency;
  if (inputs) req.inputsDir = *inputs;
  for (const auto& [k, v] : dims) req.inputs.dims[k] = v;
  req.inputs.seed = seed;
  if (samples < 1) throw CoreError{Error::usage("samples is at least 1, not " + std::to_string(samples))};
  req.randomSamples = samples;
  if (!(budget > 0)) throw CoreError{Error::usage("budget is a number of seconds above 0")};
  req.timing.budgetSeconds = budget;
  if (!batches.empty()) {
    for (int b : batches)
      if (b < 2 || b > 4096) throw CoreError{Error::usage("batch sizes go from 2 to 4096, not " + std::to_string(b))};
    req.batches = batches;
  }
  for (const auto& o : only) req.only.insert(o);
  std::shared_ptr<const Model> original = model.model;
  auto result = runJob<WhatIfResult>(
      std::move(progress), [&](const Progress& p) { return runWhatIf(*original, req, p); }, timeout);
  WhatIfHandle h;
  h.original = original;
  h.result = std::make_shared<const WhatIfResult>(std::move(result));
  if (inputs) h.reads.push_back(inputs->string());
  return h;
}

}  // namespace

void bindWhatIf(py::module_& m) {
  py::class_<WhatIfHandle>(m, "WhatIf", "The core's what-if result (use msadvisor.ModelAdvisor.what_if).")
      .def("to_json", [](const WhatIfHandle& h, const std::string& lang) {
             return jsonText(whatIfJson(*h.result, lang == "zh" ? Lang::Zh : Lang::En));
           }, py::arg("lang") = "en")
      .def(
          "save",
          [](const WhatIfHandle& h, const std::string& name, const std::filesystem::path& out) {
            const Variant* v = findVariant(*h.result, name);
            if (!v) throw CoreError{Error::usage("no variant '" + name + "' was built for this model")};
            if (!v->measured)
              throw CoreError{Error::device("variant '" + name + "' was not measured: " +
                                            (v->error.empty() ? std::string("the runtime cannot run it") : v->error))};
            if (!v->withinBound)
              throw CoreError{{ErrorKind::Verification, "variant '" + name + "' is outside the accuracy bound; nothing written",
                               out.string(), {}}};
            {
              py::gil_scoped_release nogil;
              unwrap(saveModel(v->model, out));  // refuses the original and its external data
            }
            writeOutput(out.string() + ".session.json", sessionSettingsJson(*v).dump(2) + "\n", h.original.get(), h.reads);
          },
          py::arg("name"), py::arg("path"),
          "Writes a measured variant within the bound (atomically, never over the original) and its session settings "
          "beside it as PATH.session.json.");
  m.def("what_if", &whatIf, py::arg("model"), py::arg("device") = "cpu", py::arg("inputs") = py::none(),
        py::arg("bound") = "", py::arg("goal") = "latency", py::arg("only") = std::vector<std::string>{},
        py::arg("batches") = std::vector<int>{}, py::arg("samples") = 8, py::arg("seed") = 1234, py::arg("budget") = 40.0,
        py::arg("dims") = std::map<std::string, int64_t>{}, py::arg("progress") = py::none(),
        py::arg("timeout") = kDefaultTimeoutSeconds,
        "Builds the variants the runtime does not make by itself, checks their accuracy and measures them (or, on an "
        "Ascend profile, estimates them).");
}

}  // namespace msa::py
