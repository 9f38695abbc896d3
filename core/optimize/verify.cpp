#include "optimize/verify.h"

#include <algorithm>
#include <map>
#include <sstream>

#include <onnx/checker.h>

#include "model/onnx_proto.h"
#include "profile/ort_session.h"

namespace msa {
namespace {

constexpr int64_t kCheckerKnowsOpset = 17;  // libonnx 1.12

std::string firstLines(const std::string& s, size_t lines) {
  size_t end = 0;
  for (size_t k = 0; k < lines && end != std::string::npos; ++k) end = s.find('\n', k == 0 ? 0 : end + 1);
  std::string out = end == std::string::npos ? s : s.substr(0, end);
  if (out.size() > 400) out = out.substr(0, 400) + "…";
  return out;
}

std::string fmt(double v) {
  std::ostringstream s;
  s.precision(3);
  s << v;
  return s.str();
}

}  // namespace

Tolerance toleranceFor(OptLevel level) {
  Tolerance t;
  switch (level) {
    case OptLevel::Conservative: t.atol = 1e-5; t.rtol = 1e-5; break;
    case OptLevel::Moderate: t.atol = 1e-4; t.rtol = 1e-3; break;
    case OptLevel::Aggressive: t.atol = 1e-3; t.rtol = 1e-2; break;
  }
  t.bothExceeded = true;
  t.scaleAtol = true;
  // The whole output within rtol of its largest magnitude too: element tolerances pass anything
  // far below atol (an untrained MobileNetV3's outputs: at most 9.5e-10).
  t.relToMagnitude = t.rtol;
  return t;
}

CheckerResult checkModel(const Model& model) {
  CheckerResult r;
  // Operators libonnx has no schema for: counted per type so the report says what went unchecked.
  std::map<std::string, size_t> foreign;
  model.graph.forEachGraph([&](const Graph& g, int) {
    for (const Node& n : g.nodes)
      if (!n.isDefaultDomain() && n.domain != "ai.onnx.ml") ++foreign[n.opType + " (" + n.domain + ")"];
  });
  for (const auto& [op, count] : foreign)
    r.skipped.push_back(std::to_string(count) + " " + op + " node" + (count == 1 ? "" : "s") +
                        ": no schema in libonnx 1.12, not checked");
  if (int64_t v = model.opset(); v > kCheckerKnowsOpset) {
    r.skipped.insert(r.skipped.begin(), "the whole model: it imports ai.onnx opset " + std::to_string(v) +
                                            ", libonnx 1.12 knows opsets up to " + std::to_string(kCheckerKnowsOpset));
    return r;
  }
  onnx::ModelProto mp;
  ProtoOptions po;
  po.keepGeneratedNames = true;
  po.stripInitializersAbove = 4096;  // structure, not weights: large tensors become typed inputs
  if (auto s = toProto(model, mp, po); !s) {
    r.ran = true;
    r.message = "cannot convert for the checker: " + s.error().describe();
    return r;
  }
  r.ran = true;
  try {
    onnx::checker::check_model(mp);
    r.passed = true;
  } catch (const std::exception& e) {
    r.message = firstLines(e.what(), 1);
  }
  // ONNX Runtime's own graph (ort_offline_optimize) is written with the runtime's operator
  // registrations (LayerNormalization at any opset, nested initializers it shares), not ONNX's
  // schemas: the runtime runs it and verification compares its outputs; the checker's opinion is
  // reported, not enforced.
  if (const std::string rt = model.metadataValue("msadvisor.runtime_specific"); !rt.empty() && !r.passed) {
    r.ran = false;
    r.skipped.insert(r.skipped.begin(), "the whole model: it is ONNX Runtime's own graph (" + rt +
                                            "), not bound to ONNX's schemas; the checker says: " + r.message);
  }
  return r;
}

Result<Verifier> Verifier::create(const Model& original, const VerifyOptions& options, const Progress& progress) {
  Verifier v;
  v.m_options = options;
  progress.report("verification: inputs", 0);
  if (!options.inputsDir.empty()) {
    auto in = loadInputs(original, options.inputsDir, options.inputs);
    if (!in) return in.error();
    v.m_inputs = std::move(*in);
    v.m_inputsSource = options.inputsDir.string();
  } else {
    auto in = makeRandomInputs(original, options.inputs);
    if (!in) return in.error();
    for (auto& t : *in) v.m_inputs.push_back(DataValue::of(std::move(t)));
    v.m_inputsSource = std::string("seeded random (") +
                       (options.inputs.floatFill == InputOptions::FloatFill::Normal ? "N(0,1)" : "U(-1,1)") +
                       ", seed " + std::to_string(options.inputs.seed) + ")";
  }
  for (const auto& o : original.graph.outputs) v.m_outputNames.push_back(o.name);
  if (v.m_options.runtimeLevels.empty()) v.m_options.runtimeLevels = {GraphOptimization::Disabled};
  for (size_t i = 0; i < v.m_options.runtimeLevels.size(); ++i) {
    if (progress.cancelled()) return Error::cancelled();
    progress.report("verification: running the original", static_cast<double>(i) / v.m_options.runtimeLevels.size());
    RuntimeOptions ro;
    ro.optimization = v.m_options.runtimeLevels[i];
    ro.intraOpThreads = options.threads;
    auto session = OrtSession::create(original, ro);
    if (!session) return session.error();
    auto out = session->run(v.m_inputs, v.m_outputNames);
    if (!out) return out.error();
    v.m_reference.push_back(std::move(*out));
  }
  progress.report("verification: running the original", 1);
  return v;
}

VerifyResult Verifier::check(const Model& candidate, bool runChecker) const {
  VerifyResult r;
  r.tolerance = m_options.tolerance;
  if (runChecker) {
    r.checker = checkModel(candidate);
    if (r.checker.ran && !r.checker.passed) {
      r.failure = "ONNX checker: " + r.checker.message;
      return r;
    }
  }
  for (const auto& name : m_outputNames)
    if (!candidate.graph.isGraphOutput(name)) {
      r.failure = "the optimized model has no output '" + name + "'";
      return r;
    }
  r.passed = true;
  for (size_t level = 0; level < m_options.runtimeLevels.size(); ++level) {
    const GraphOptimization opt = m_options.runtimeLevels[level];
    const std::string where = opt == GraphOptimization::Disabled ? "with ONNX Runtime's optimizer disabled"
                                                                 : "at ONNX Runtime's " + std::string(optimizationName(opt)) + " level";
    RuntimeOptions ro;
    ro.optimization = opt;
    ro.intraOpThreads = m_options.threads;
    auto session = OrtSession::create(candidate, ro);
    if (!session) {
      r.passed = false;
      r.failure = where + ": " + firstLines(session.error().message, 2);
      return r;
    }
    auto out = session->run(m_inputs, m_outputNames);
    if (!out) {
      r.passed = false;
      r.failure = where + ": " + firstLines(out.error().message, 2);
      return r;
    }
    for (size_t k = 0; k < m_outputNames.size(); ++k) {
      Comparison c = compareValues((*out)[k], m_reference[level][k], m_options.tolerance);
      OutputError e{m_outputNames[k], std::string(optimizationName(opt)), c.maxAbsError, c.maxRelError, c.mismatches,
                    c.firstMismatch, c.equal, c.worstToleranceRatio, c.maxErrorToMagnitude, c.cosine, c.top1Agreement,
                    c.maxAbsExpected, c.degenerate};
      r.maxAbsError = std::max(r.maxAbsError, c.maxAbsError);
      r.maxRelError = std::max(r.maxRelError, c.maxRelError);
      r.worstToleranceRatio = std::max(r.worstToleranceRatio, c.worstToleranceRatio);
      if (!c.equal && r.passed) {
        r.passed = false;
        r.failure = "output '" + e.name + "' " + where + ": " + std::to_string(c.mismatches) + " element(s) beyond atol " +
                    fmt(m_options.tolerance.atol) + (m_options.tolerance.scaleAtol ? " (× the output's scale)" : "") + " and rtol " + fmt(m_options.tolerance.rtol) + ", first " +
                    c.firstMismatch + "; max abs error " + fmt(c.maxAbsError) + ", max rel error " + fmt(c.maxRelError);
      }
      r.outputs.push_back(std::move(e));
    }
  }
  // Every output degenerate: nothing the comparison saw could have failed a wrong rewrite by its
  // elements (the magnitude check still fails a broken one).
  r.inconclusive = r.passed && !r.outputs.empty() &&
                   std::all_of(r.outputs.begin(), r.outputs.end(), [](const OutputError& e) { return !e.degenerate.empty(); });
  return r;
}

std::string inconclusiveText(const VerifyResult& r, Lang lang) {
  if (!r.inconclusive) return {};
  std::string why;
  const std::string separator = renderValue(phrase("list.separator"), lang);
  for (const OutputError& e : r.outputs) {
    if (e.degenerate.empty() || why.find("'" + e.name + "'") != std::string::npos) continue;
    why += (why.empty() ? "" : separator) +
           uiText("verify.degenerate." + e.degenerate, lang, {{"output", e.name}, {"max", fmt(e.maxAbsReference)}});
  }
  return uiText("verify.inconclusive", lang, {{"why", why}});
}

}  // namespace msa
