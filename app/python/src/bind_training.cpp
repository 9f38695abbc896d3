// The training analysis: a profiler trace (Kineto / torch.profiler Chrome trace, a torch_npu
// folder, an msprof CSV) -> the training report, as the CLI's `training` verb computes it.
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "bindings.h"
#include "cost/device_profile.h"
#include "errors.h"
#include "job.h"
#include "rules/texts.h"
#include "report/training_report.h"

namespace msa::py {
namespace {

namespace py = pybind11;

struct TrainingHandle {
  std::shared_ptr<const training::TrainingReport> report;
  int topN = 10;
};

Lang langOf(const std::string& s) {
  Lang l = Lang::En;
  if (!parseLang(s, l)) throw CoreError{Error::usage("lang is 'en' or 'zh', not '" + s + "'")};
  return l;
}

training::TrainingReportFormat formatOf(const TrainingHandle& h, const std::string& lang) {
  training::TrainingReportFormat f;
  f.lang = langOf(lang);
  f.topN = h.topN;
  f.generator = std::string("msadvisor (Python) ") + MSA_VERSION;
  return f;
}

TrainingHandle analyzeTraining(const std::filesystem::path& trace, const std::optional<std::string>& deviceId,
                               std::optional<double> shortUs, int top, double memoryLimit, bool memoryLimitIsBudget,
                               const std::string& memoryDevice, double memoryPeak, py::object progress,
                               double timeout) {
  if (top < 1) throw CoreError{Error::usage("top must be at least 1")};
  if (memoryLimit < 0 || memoryPeak < 0) throw CoreError{Error::usage("memory figures must not be negative")};
  std::optional<DeviceProfile> device;
  if (deviceId) device = unwrap(loadDevice(*deviceId));
  training::TrainingOptions options;
  options.topN = top;
  options.device = device ? &*device : nullptr;
  // As the CLI: a device profile's launch overhead is the default short-item line.
  options.analysis.shortItemUs =
      shortUs ? *shortUs : device && device->launchOverhead.value > 0 ? device->launchOverhead.value * 1e6 : 10.0;
  if (options.analysis.shortItemUs <= 0) throw CoreError{Error::usage("short_us must be positive")};
  options.rules.memoryLimitBytes = memoryLimit;
  options.rules.memoryLimitIsBudget = memoryLimitIsBudget;
  options.rules.memoryDevice = memoryDevice;
  options.rules.memoryPeakBytes = memoryPeak;
  auto report = runJob<training::TrainingReport>(
      std::move(progress), [&](const Progress& p) { return training::analyzeTraining(trace, options, p); }, timeout);
  return {std::make_shared<const training::TrainingReport>(std::move(report)), top};
}

}  // namespace

void bindTraining(py::module_& m) {
  py::class_<TrainingHandle>(m, "TrainingReport", "The core's training report (use msadvisor.TrainingReport).")
      .def("to_json",
           [](const TrainingHandle& h, const std::string& lang) {
             return jsonText(training::trainingReportToJson(*h.report, formatOf(h, lang)));
           },
           py::arg("lang") = "en")
      .def("to_text",
           [](const TrainingHandle& h, const std::string& lang) {
             return training::trainingReportText(*h.report, formatOf(h, lang));
           },
           py::arg("lang") = "en")
      .def(
          "write",
          [](const TrainingHandle& h, const std::filesystem::path& out, const std::string& text) {
            std::vector<std::string> reads = h.report->files;
            reads.push_back(h.report->path);
            writeOutput(out, text, nullptr, reads);
          },
          py::arg("path"), py::arg("text"), "Writes a rendering of the report, never over a file of the trace.");
  m.def(
      "compare_training",
      [](const TrainingHandle& previous, const TrainingHandle& current, double threshold) {
        return jsonText(training::toJson(training::compareTraining(*previous.report, *current.report, threshold)));
      },
      py::arg("previous"), py::arg("current"), py::arg("threshold") = 0.05,
      "Two training reports side by side (JSON): step time, regression flag, per-operator deltas.");
  m.def(
      "ui_text", [](const std::string& key, const std::string& lang) { return uiText(key, langOf(lang)); }, py::arg("key"),
      py::arg("lang") = "en", "A label from the rule catalogs' _ui sections (the key itself when there is none).");
  m.def("analyze_training", &analyzeTraining, py::arg("trace"), py::arg("device") = py::none(),
        py::arg("short_us") = py::none(), py::arg("top") = 10, py::arg("memory_limit") = 0.0,
        py::arg("memory_limit_is_budget") = false, py::arg("memory_device") = "", py::arg("memory_peak") = 0.0,
        py::arg("progress") = py::none(), py::arg("timeout") = kDefaultTimeoutSeconds,
        "Analyses a training trace as `msadvisor-cli training` does. Gradient checkpointing is proposed only when "
        "memory_peak (bytes; at least the saved activations) reaches 90 % of memory_limit (the user's budget or the "
        "device's capacity; 0: none known).");
}

}  // namespace msa::py
