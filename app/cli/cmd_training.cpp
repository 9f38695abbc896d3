// msadvisor-cli training: findings from a PyTorch / torch_npu training trace.
#include <cstdio>

#include "cli.h"
#include "cost/device_profile.h"
#include "model/onnx_io.h"
#include "rules/texts.h"
#include "report/training_report.h"

namespace msa::cli {
namespace {

int runTraining(const Args& args) {
  if (args.positional.size() != 1) return fail(Error::usage("training expects one TRACE (a trace file or a torch_npu folder)"));
  Lang lang = Lang::En;
  if (auto l = args.value("lang"); l && !parseLang(*l, lang)) return fail(Error::usage("--lang takes en or zh, not '" + *l + "'"));
  auto top = args.intValue("top", 10, 1, 1000);
  if (!top) return fail(top.error());
  // --device: a device profile names the report's device and its launch overhead is the default
  // short-item threshold (a kernel shorter than a launch is launch-bound).
  std::optional<DeviceProfile> device;
  if (auto id = args.value("device")) {
    auto d = loadDevice(*id);
    if (!d) return fail(d.error());
    device = std::move(*d);
  }
  const double defaultShortUs = device && device->launchOverhead.value > 0 ? device->launchOverhead.value * 1e6 : 10.0;
  auto shortUs = args.doubleValue("short-us", defaultShortUs);
  if (!shortUs) return fail(shortUs.error());
  if (*shortUs <= 0) return fail(Error::usage("--short-us must be positive"));
  // --model: the ONNX model the run trains (named in the report with its nodes and inputs).
  std::optional<Model> model;
  if (auto path = args.value("model")) {
    auto m = loadInput(*path);
    if (!m) return fail(m.error());
    model = std::move(*m);
  }

  auto timeout = timeoutSeconds(args);
  if (!timeout) return fail(timeout.error());
  std::atomic<bool> cancel{false};
  Watchdog watchdog(*timeout, cancel, args.positional[0], [&args](const Error& e, const std::string& kind) {
    if (auto path = args.value("json"); path && *path != "-") writeJson({{"error", {{"kind", kind}, {"message", e.describe()}}}}, *path);
    fail(e);
  });
  Progress progress = makeProgress(args, &cancel);
  training::TrainingOptions options;
  options.topN = static_cast<int>(*top);
  options.analysis.shortItemUs = *shortUs;
  options.device = device ? &*device : nullptr;
  if (model) {
    options.modelPath = model->path.string();
    options.modelNodes = model->graph.nodes.size();
    for (const auto& in : model->graph.inputs)
      if (!model->graph.findInitializer(in.name)) options.modelInputs[in.name] = in.type.shape ? in.type.shape->str() : "?";
  }
  auto report = training::analyzeTraining(args.positional[0], options, progress);
  if (!report && watchdog.timedOut()) report = watchdog.timeoutError();
  if (!report) {
    if (auto path = args.value("json"); path && *path != "-" && report.error().kind != ErrorKind::Cancelled)
      writeJson({{"error", {{"kind", watchdog.timedOut() ? "timeout" : "model"}, {"message", report.error().describe()}}}}, *path);
    return fail(report.error());
  }
  training::TrainingReportFormat fmt;
  fmt.lang = lang;
  fmt.topN = options.topN;
  fmt.generator = std::string("msadvisor-cli ") + MSA_VERSION;
  if (auto path = args.value("json")) {
    int rc = writeJson(training::trainingReportToJson(*report, fmt), *path);
    if (rc != kOk || *path == "-") return rc;
  }
  std::fputs(training::trainingReportText(*report, fmt).c_str(), stdout);
  return kOk;
}

}  // namespace

extern const Verb kTrainingVerb{
    "training",
    "training TRACE [--model MODEL] [--device ID|PATH] [--json PATH] [--lang en|zh] [--top N] [--short-us US] [--timeout SECONDS] [--max-events N] [--max-names N]",
    "findings from a training trace (PyTorch/Kineto Chrome trace .json[.gz], torch_npu profiler folder, msprof "
    "op_summary CSV) in the analyze report format",
    {kJsonOption,
     {"model", 0, true, false, "the ONNX model the run trains: named in the report with its node count and inputs", PathUse::Reads},
     {"device", 0, true, false,
      "a device profile id (ascend910b, … see 'estimate --device list') or file: the report's device, and its launch "
      "overhead is the default --short-us", PathUse::Reads},
     {"lang", 0, true, false, "language of the texts: en (default) or zh"},
     {"top", 0, true, false, "findings in the TOP-N and rows of the text tables (default 10)"},
     {"short-us", 0, true, false,
      "work items shorter than this are launch-dominated (default: the --device launch overhead, else 10 µs)"},
     kProgressOption, kTimeoutOption, kMaxEventsOption, kMaxNamesOption},
    runTraining,
};

}  // namespace msa::cli
