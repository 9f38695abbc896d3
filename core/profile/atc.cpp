#include "profile/atc.h"

#include <cstdlib>

#include "profile/child_process.h"

namespace msa {

namespace fs = std::filesystem;

namespace {

// The last `n` non-empty lines of a log, for error messages.
std::string tail(const std::string& log, int n) {
  std::vector<std::string> lines;
  size_t b = 0;
  while (b < log.size()) {
    size_t e = log.find('\n', b);
    if (e == std::string::npos) e = log.size();
    std::string line = log.substr(b, e - b);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") != std::string::npos) lines.push_back(line);
    b = e + 1;
  }
  std::string out;
  for (size_t i = lines.size() > size_t(n) ? lines.size() - n : 0; i < lines.size(); ++i)
    out += (out.empty() ? "" : "\n") + lines[i];
  return out;
}

fs::path atcExecutable(const AtcOptions& o) {
  if (!o.atc.empty()) return o.atc;
  if (const char* home = std::getenv("ASCEND_TOOLKIT_HOME"); home && *home) {
    fs::path p = fs::path(home) / "bin" / "atc";
    std::error_code ec;
    if (fs::exists(p, ec)) return p;
  }
  return "atc";
}

}  // namespace

Result<std::string> atcInputShape(const Model& model, const AtcOptions& options) {
  const Graph& g = model.graph;
  std::string out;
  for (const ValueInfo& in : g.inputs) {
    if (g.findInitializer(in.name)) continue;  // old exporters list weights as inputs
    if (!in.type.isTensor() || !in.type.shape)
      return Error::model("input '" + in.name + "' has no known rank: ATC needs a static shape", model.path.string());
    std::string dims;
    const auto& shape = *in.type.shape;
    for (size_t a = 0; a < shape.dims.size(); ++a) {
      const Dim& d = shape.dims[a];
      int64_t v = d.value;
      if (!d.known()) {
        auto byAxis = options.dims.find(in.name + ":" + std::to_string(a));
        auto byName = d.param.empty() ? options.dims.end() : options.dims.find(d.param);
        if (byAxis != options.dims.end()) v = byAxis->second;
        else if (byName != options.dims.end()) v = byName->second;
        else
          return Error::usage("input '" + in.name + "' dim " + std::to_string(a) +
                              (d.param.empty() ? std::string(" is unknown") : " ('" + d.param + "') is symbolic") +
                              ": give --dim " + (d.param.empty() ? in.name + ":" + std::to_string(a) : d.param) +
                              "=N for ATC");
      }
      dims += (a ? "," : "") + std::to_string(v);
    }
    // ATC separates inputs with ';' and name from dims with ':'; a name holding them would be
    // misread, so refuse it rather than convert the wrong input.
    if (in.name.find_first_of(";:") != std::string::npos)
      return Error::model("input name '" + in.name + "' contains ':' or ';', which ATC's --input_shape cannot express",
                          model.path.string());
    out += (out.empty() ? "" : ";") + in.name + ":" + dims;
  }
  if (out.empty()) return Error::model("the model has no inputs to give ATC", model.path.string());
  return out;
}

Result<std::vector<std::string>> atcCommand(const Model& model, const fs::path& onnx, const AtcOptions& options) {
  if (options.socVersion.empty())
    return Error::usage("ATC needs the chip: give --soc-version (e.g. Ascend310P3, the 'Ascend' + name that "
                        "`npu-smi info` shows)");
  if (options.outputDir.empty()) return Error::usage("no output folder for ATC");
  auto shape = atcInputShape(model, options);
  if (!shape) return shape.error();
  std::vector<std::string> argv{atcExecutable(options).string(),
                                "--model=" + onnx.string(),
                                "--framework=5",  // ONNX
                                "--output=" + (options.outputDir / onnx.stem()).string(),
                                "--soc_version=" + options.socVersion,
                                "--input_shape=" + *shape,
                                "--log=error"};
  argv.insert(argv.end(), options.extraArgs.begin(), options.extraArgs.end());
  return argv;
}

Result<AtcResult> convertWithAtc(const Model& model, const fs::path& onnx, const AtcOptions& options,
                                 const Progress& progress) {
  auto argv = atcCommand(model, onnx, options);
  if (!argv) return argv.error();
  std::error_code ec;
  fs::create_directories(options.outputDir, ec);
  if (ec) return Error::device("cannot create " + options.outputDir.string() + ": " + ec.message());
  const fs::path om = options.outputDir / (onnx.stem().string() + ".om");
  fs::remove(om, ec);

  progress.report("converting with ATC", 0.0);
  ChildOptions co;
  co.timeout = options.timeout;
  auto run = runChild(*argv, co, progress);
  if (!run) return Error::device(run.error().message + " (is CANN installed and ASCEND_TOOLKIT_HOME set?)");
  AtcResult out{om, run->output};
  if (run->cancelled) return Error::cancelled();
  const std::string last = tail(run->output, 6);
  if (run->timedOut)
    return Error::device("ATC did not finish within " + std::to_string(options.timeout.count()) + " s" +
                         (last.empty() ? "" : ":\n" + last));
  if (run->signal)
    return Error::device("ATC was killed by signal " + std::to_string(run->signal) + (last.empty() ? "" : ":\n" + last));
  if (run->exitCode != 0)
    return Error::device("ATC failed (exit code " + std::to_string(run->exitCode) + ")" +
                         (last.empty() ? "" : ":\n" + last));
  if (!fs::is_regular_file(om, ec))
    return Error::device("ATC reported success but wrote no " + om.string() + (last.empty() ? "" : ":\n" + last));
  progress.report("converting with ATC", 1.0);
  return out;
}

}  // namespace msa
