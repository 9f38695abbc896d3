// runAnalysis, the one analysis entry point: what it measures, imports and prices for each kind
// of request, and that it never touches the caller's model.
#include <QtTest>

#include "advisor/run_analysis.h"
#include "model/onnx_io.h"
#include "model_builder.h"
#include "model_presets.h"

using namespace msa;

namespace {

std::shared_ptr<const Model> symbolicBatchModel() {
  test::ModelBuilder b("symbolic_batch", 17, 7);
  auto x = b.input("images", {-1, 3, 16, 16}, DType::Float, {"batch"});
  auto c = b.conv(x, 8, 3, {.stride = 1, .pads = 1, .bias = true});
  b.output(b.relu(c), "y");
  return std::make_shared<const Model>(b.build());
}

// A profile as a measurer would return it: every IR node, the same time each.
ProfileData flatProfile(const Model& m, double nodeMs, const std::string& optimization) {
  ProfileData p;
  p.device = "cpu";
  p.runtime = "test";
  p.source = "measured";
  p.optimization = optimization;
  p.iterations = 3;
  for (const Node& n : m.graph.nodes) {
    NodeProfile e;
    e.name = n.name;
    e.opType = n.opType;
    e.irNodes = {n.name};
    e.timeMs = Stats::of({nodeMs, nodeMs, nodeMs});
    p.nodes.push_back(std::move(e));
  }
  const double total = nodeMs * static_cast<double>(m.graph.nodes.size());
  p.latencyMs = Stats::of({total, total, total});
  return p;
}

}  // namespace

class TestRunAnalysis : public QObject {
  Q_OBJECT

 private slots:
  void estimateOnADeviceProfileMeasuresNothing() {
    auto model = std::make_shared<const Model>(test::presets::convBnRelu().model);
    AnalysisRequest r;
    r.device = "ascend910b";
    r.measurer = [](const Model&, const MeasureOptions&, const Progress&) -> Result<MeasuredProfiles> {
      return Error::device("the measurer must not run for an estimate");
    };
    auto out = runAnalysis(model, r);
    QVERIFY2(out, out ? "" : out.error().describe().c_str());
    QCOMPARE(out->report.latencySource, std::string("estimated"));
    QCOMPARE(out->report.device, std::string("ascend910b"));
    QVERIFY(out->report.latencyMs > 0);
    QVERIFY(!out->report.findings.empty());
    QVERIFY(out->model != model);  // shapes were inferred on a copy
  }

  void unboundDimsAreAUsageErrorNamingThem() {
    AnalysisRequest r;  // device cpu: it would measure
    bool measured = false;
    r.measurer = [&](const Model&, const MeasureOptions&, const Progress&) -> Result<MeasuredProfiles> {
      measured = true;
      return MeasuredProfiles{};
    };
    auto out = runAnalysis(symbolicBatchModel(), r);
    QVERIFY(!out);
    QCOMPARE(out.error().kind, ErrorKind::Usage);
    QVERIFY2(out.error().message.find("batch") != std::string::npos, out.error().message.c_str());
    QVERIFY(!measured);
  }

  void theMeasurerGetsTheModelWithItsDimsBound() {
    AnalysisRequest r;
    r.dims["batch"] = 4;
    r.calibration = CalibrationPolicy::Off;
    r.measure.iterations = 7;
    std::string seenShape;
    int seenIterations = 0;
    r.measurer = [&](const Model& m, const MeasureOptions& o, const Progress& p) -> Result<MeasuredProfiles> {
      seenShape = m.graph.inputs.front().type.shape->str();
      seenIterations = o.iterations;
      p.report("profiling", 1.0);
      return MeasuredProfiles{flatProfile(m, 0.5, "disabled"), flatProfile(m, 0.25, "all")};
    };
    const auto model = symbolicBatchModel();
    const std::string before = model->graph.inputs.front().type.shape->str();
    auto out = runAnalysis(model, r);
    QVERIFY2(out, out ? "" : out.error().describe().c_str());
    QCOMPARE(seenShape.substr(0, 2), std::string("[4"));
    QCOMPARE(seenIterations, 7);
    QCOMPARE(out->report.latencySource, std::string("measured"));
    QVERIFY(out->report.runtimeLatencyMs > 0);
    QCOMPARE(model->graph.inputs.front().type.shape->str(), before);  // the caller's model is untouched
    QCOMPARE(out->report.device, std::string("cpu-host"));
    QVERIFY(!out->report.deviceCalibrated);  // CalibrationPolicy::Off
  }

  void givenProfilesAreUsedAsTheyAre() {
    auto model = std::make_shared<const Model>(test::presets::convBnRelu().model);
    AnalysisRequest r;
    r.device = "cpu-host";
    r.calibration = CalibrationPolicy::Off;
    r.inferShapes = false;
    r.measurer = [](const Model&, const MeasureOptions&, const Progress&) -> Result<MeasuredProfiles> {
      return Error::device("the measurer must not run when profiles are given");
    };
    r.profiles = MeasuredProfiles{flatProfile(*model, 1.0, "disabled"), std::nullopt};
    auto out = runAnalysis(model, r);
    QVERIFY2(out, out ? "" : out.error().describe().c_str());
    QCOMPARE(out->model, model);  // inferShapes = false: analysed as it is
    QCOMPARE(out->report.latencySource, std::string("measured"));
    QCOMPARE(out->report.latencyMs, static_cast<double>(model->graph.nodes.size()));
  }

  void aFailingMeasurementIsTheError() {
    AnalysisRequest r;
    r.calibration = CalibrationPolicy::Off;
    r.measurer = [](const Model&, const MeasureOptions&, const Progress&) -> Result<MeasuredProfiles> {
      return Error::device("runtime fell over");
    };
    auto out = runAnalysis(std::make_shared<const Model>(test::presets::convBnRelu().model), r);
    QVERIFY(!out);
    QCOMPARE(out.error().kind, ErrorKind::Device);
    QCOMPARE(out.error().message, std::string("runtime fell over"));
  }

  void cancelledBeforeItStarts() {
    std::atomic<bool> cancel{true};
    Progress p({}, &cancel);
    AnalysisRequest r;
    r.device = "ascend910b";
    auto out = runAnalysis(std::make_shared<const Model>(test::presets::convBnRelu().model), r, p);
    QVERIFY(!out);
    QCOMPARE(out.error().kind, ErrorKind::Cancelled);
  }

  void progressOnlyMovesForward() {
    AnalysisRequest r;
    r.calibration = CalibrationPolicy::Off;
    r.measurer = [](const Model& m, const MeasureOptions&, const Progress& p) -> Result<MeasuredProfiles> {
      for (double f : {0.0, 0.5, 1.0}) p.report("profiling", f);
      return MeasuredProfiles{flatProfile(m, 0.5, "disabled"), std::nullopt};
    };
    std::vector<double> seen;
    Progress p([&](std::string_view, double f) { seen.push_back(f); });
    auto out = runAnalysis(std::make_shared<const Model>(test::presets::convBnRelu().model), r, p);
    QVERIFY2(out, out ? "" : out.error().describe().c_str());
    QVERIFY(!seen.empty());
    for (size_t i = 1; i < seen.size(); ++i) QVERIFY2(seen[i] >= seen[i - 1] - 1e-12, std::to_string(i).c_str());
    QVERIFY(seen.back() <= 1.0 + 1e-12);
  }

  void aMissingFileNamesIt() {
    AnalysisRequest r;
    r.device = "ascend910b";
    auto out = runAnalysis(std::filesystem::path("/nonexistent/model.onnx"), r);
    QVERIFY(!out);
    QCOMPARE(out.error().kind, ErrorKind::Model);
    QVERIFY2(out.error().describe().find("/nonexistent/model.onnx") != std::string::npos, out.error().describe().c_str());
  }
};

QTEST_GUILESS_MAIN(TestRunAnalysis)
#include "tst_run_analysis.moc"
