// A compiled-in table that fails to load stops every analysis with an error naming it: an
// analysis that quietly ran without its Ascend tables looked like a clean bill of health.
// A test binary of its own: the failure is recorded for the life of the process.
#include <QtTest>

#include "advisor/profile_analysis.h"
#include "advisor/run_analysis.h"
#include "model_builder.h"
#include "test_paths.h"
#include "util/embedded.h"

using namespace msa;

class TestTableErrors : public QObject {
  Q_OBJECT
 private slots:
  void aBrokenTableStopsEveryAnalysis() {
    test::ModelBuilder b("m", 17, 3);
    b.output(b.relu(b.linear(b.input("x", {1, 64}), 64)), "y");
    auto model = std::make_shared<const Model>(b.build());
    AnalysisRequest request;
    request.device = "ascend910b";
    QVERIFY(runAnalysis(model, request));  // every table loads in a sound build
    QVERIFY(embedded::tableStatus());

    embedded::recordTableError("ascend/aicpu_ops.json", "syntax error at byte 12");
    auto broken = runAnalysis(model, request);
    QVERIFY(!broken);
    QCOMPARE(broken.error().kind, ErrorKind::Device);
    QVERIFY2(broken.error().message.find("ascend/aicpu_ops.json") != std::string::npos, broken.error().message.c_str());
    // The profile analysis too (a real torch_npu rank).
    const auto rank = test::realProfilesDir() / "ascend" / "torch_npu_alexnet_train_level1" / "rank0_ascend_pt";
    if (!std::filesystem::exists(rank)) QSKIP("no ../shared/real-profiles here");
    auto profile = analyzeProfileFile(rank, "", {});
    QVERIFY(!profile);
    QVERIFY(profile.error().message.find("ascend/aicpu_ops.json") != std::string::npos);
  }
};

QTEST_GUILESS_MAIN(TestTableErrors)
#include "tst_table_errors.moc"
