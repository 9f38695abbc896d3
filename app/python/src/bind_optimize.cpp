// The optimizer as `msadvisor-cli optimize --verify` runs it: the passes of a level, each verified
// against the original with ONNX Runtime and rolled back when it breaks the outputs; the findings
// of an analysis name what each rewrite resolves; the same JSON contract; --measure's timings.
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "bindings.h"
#include "errors.h"
#include "job.h"
#include "model/onnx_io.h"
#include "optimize/optimize_report.h"
#include "optimize/optimizer.h"

namespace msa::py {
namespace {

namespace py = pybind11;

struct OptimizationHandle {
  std::shared_ptr<const Model> original;
  std::shared_ptr<const OptimizeResult> result;
  std::shared_ptr<const Model> optimized;  // result->model, shared for Python
  OptimizeMeasurement measured;
  OptimizeReportContext context;
  InputOptions inputs;

  // Nothing is shipped that failed: the checker (unless the source fails it too) and the outputs.
  bool passed() const {
    const OptimizeResult& r = *result;
    const bool sourceFails = r.originalChecker.ran && !r.originalChecker.passed;
    bool ok = !r.checker.ran || r.checker.passed || sourceFails;
    if (r.verification) ok = ok && r.verification->passed;
    return ok;
  }
};

OptimizationHandle optimizeModel(const ModelHandle& model, const std::string& level, const AnalysisHandle* analysis,
                                 bool verify, const std::map<std::string, int64_t>& dims, uint64_t seed,
                                 std::optional<double> atol, std::optional<double> rtol, py::object progress,
                                 double timeout) {
  OptimizeOptions o;
  if (!parseLevel(level, o.level))
    throw CoreError{Error::usage("optimization_level is conservative, moderate or aggressive, not '" + level + "'")};
  o.verify = verify;
  for (const auto& [k, v] : dims) o.verification.inputs.dims[k] = v;
  o.verification.inputs.seed = seed;
  o.verification.tolerance = toleranceFor(o.level);
  if (atol) o.verification.tolerance.atol = *atol;
  if (rtol) o.verification.tolerance.rtol = *rtol;
  o.toleranceOverride = true;
  std::shared_ptr<const Report> report = analysis ? analysis->report : nullptr;
  if (report) o.findings = report->findings;
  unwrap(selectPasses(o));
  std::shared_ptr<const Model> original = model.model;
  auto result = runJob<OptimizeResult>(
      std::move(progress), [&](const Progress& p) { return optimize(*original, o, p); }, timeout);
  OptimizationHandle h;
  h.original = original;
  auto shared = std::make_shared<const OptimizeResult>(std::move(result));
  h.optimized = std::shared_ptr<const Model>(shared, &shared->model);
  h.result = std::move(shared);
  h.context.model = original->path.empty() ? std::string("<memory>") : original->path.string();
  std::error_code ec;
  if (!original->path.empty()) h.context.fileBytesBefore = static_cast<int64_t>(std::filesystem::file_size(original->path, ec));
  h.inputs = o.verification.inputs;
  return h;
}

}  // namespace

void bindOptimize(py::module_& m) {
  py::class_<OptimizationHandle>(m, "Optimization", "The core's optimization result (use msadvisor.ModelOptimizer).")
      .def_property_readonly("model", [](const OptimizationHandle& h) { return ModelHandle{h.optimized}; })
      .def_property_readonly("original", [](const OptimizationHandle& h) { return ModelHandle{h.original}; })
      .def_property_readonly("passed", &OptimizationHandle::passed)
      .def("to_json", [](const OptimizationHandle& h) { return jsonText(optimizeReportJson(*h.result, h.measured, h.context)); })
      .def(
          "save",
          [](OptimizationHandle& h, const std::filesystem::path& out) {
            if (!h.passed())
              throw CoreError{{ErrorKind::Verification,
                               "the optimized model did not pass verification; nothing written", out.string(), {}}};
            {
              py::gil_scoped_release nogil;
              SaveOptions save;
              bool external = false;  // weights that were external stay external
              h.original->graph.forEachGraph([&](const Graph& g, int) {
                for (const Tensor& t : g.initializers) external = external || t.external.has_value();
              });
              if (external) save.external = SaveOptions::External::Always;
              unwrap(saveModel(*h.optimized, out, save));
            }
            std::error_code ec;
            h.context.output = out.string();
            h.context.fileBytesAfter = static_cast<int64_t>(std::filesystem::file_size(out, ec));
          },
          py::arg("path"), "Writes the optimized model atomically (never over the original).")
      .def(
          "measure",
          [](OptimizationHandle& h, int iterations, int threads, py::object progress, double timeout) {
            if (!h.passed()) throw CoreError{{ErrorKind::Verification, "the optimized model did not pass verification", {}, {}}};
            MeasureOptimizationOptions mo;
            mo.iterations = iterations;
            mo.threads = threads;
            mo.inputs = h.inputs;
            h.measured = runJob<OptimizeMeasurement>(
                std::move(progress), [&](const Progress& p) { return measureOptimization(*h.original, *h.result, mo, p); },
                timeout);
            return jsonText(optimizeReportJson(*h.result, h.measured, h.context));
          },
          py::arg("iterations") = 30, py::arg("threads") = 0, py::arg("progress") = py::none(),
          py::arg("timeout") = kDefaultTimeoutSeconds,
          "Times original and optimized (ORT disabled and all, taking turns) and estimates the speedup.")
      .def(
          "write",
          [](const OptimizationHandle& h, const std::filesystem::path& out, const std::string& text) {
            writeOutput(out, text, h.original.get(), {});
          },
          py::arg("path"), py::arg("text"), "Writes the report JSON, never over the original model or its data.");
  m.def(
      "tolerance",
      [](const std::string& level) {
        OptLevel l;
        if (!parseLevel(level, l)) throw CoreError{Error::usage("unknown optimization level '" + level + "'")};
        const Tolerance t = toleranceFor(l);
        return std::make_pair(t.atol, t.rtol);
      },
      py::arg("level"), "(atol, rtol) a level's rewrites are verified with (Polygraphy semantics: both exceeded fails).");
  m.def(
      "compare_arrays",
      [](const py::bytes& actual, const py::bytes& expected, const std::vector<int64_t>& shape, double atol, double rtol) {
        // Float64 bytes in C order, compared as the core's verification compares outputs
        // (value_compare.h): Polygraphy's element rule with atol on the output's scale, the
        // output within rtol of its largest magnitude, and whether the reference can tell at all.
        int64_t n = 1;
        for (int64_t d : shape) n = d < 0 ? -1 : n * d;
        auto tensor = [&](const py::bytes& b, const char* what) {
          std::string raw = b;
          if (n < 0 || raw.size() != static_cast<size_t>(n) * sizeof(double))
            throw CoreError{Error::usage(std::string(what) + ": " + std::to_string(raw.size()) + " bytes do not hold the shape's float64 values")};
          Tensor t;
          t.name = what;
          t.dtype = DType::Double;
          t.dims = shape;
          t.data = TensorBytes::owned(std::move(raw));
          return DataValue::of(std::move(t));
        };
        Tolerance t;
        t.atol = atol;
        t.rtol = rtol;
        t.bothExceeded = true;
        t.scaleAtol = true;
        t.relToMagnitude = rtol;
        const Comparison c = compareValues(tensor(actual, "actual"), tensor(expected, "expected"), t);
        py::dict out;
        out["passed"] = c.equal;
        out["max_abs_error"] = c.maxAbsError;
        out["max_rel_error"] = c.maxRelError;
        out["max_error_to_magnitude"] = c.maxErrorToMagnitude;
        out["max_abs_expected"] = c.maxAbsExpected;
        out["cosine"] = c.cosine;
        out["top1_agreement"] = c.top1Agreement >= 0 ? py::object(py::float_(c.top1Agreement)) : py::object(py::none());
        out["mismatches"] = c.mismatches;
        out["degenerate"] = c.degenerate.empty() ? py::object(py::none()) : py::object(py::str(c.degenerate));
        return out;
      },
      py::arg("actual"), py::arg("expected"), py::arg("shape"), py::arg("atol"), py::arg("rtol"),
      "Compares two float64 arrays (bytes, C order) as the core's verification compares outputs.");
  m.def("optimize", &optimizeModel, py::arg("model"), py::arg("level") = "conservative", py::arg("analysis") = nullptr,
        py::arg("verify") = true, py::arg("dims") = std::map<std::string, int64_t>{}, py::arg("seed") = 1234,
        py::arg("atol") = py::none(), py::arg("rtol") = py::none(), py::arg("progress") = py::none(),
        py::arg("timeout") = kDefaultTimeoutSeconds,
        "Rewrites a model at a level, verifying each pass against the original (rolled back when it breaks the outputs).");
}

}  // namespace msa::py
