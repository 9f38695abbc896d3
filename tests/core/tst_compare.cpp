// compare: timing deltas with a noise threshold, and structural model diffs.
#include <QtTest>

#include <nlohmann/json.hpp>

#include "model_presets.h"
#include "report/compare.h"

using namespace msa;

class TestCompare : public QObject {
  Q_OBJECT
 private slots:
  void profilesAndReportsAreRead() {
    auto profile = nlohmann::json::parse(R"({"latency_ms":{"median":10,"p10":9,"p90":11},
      "nodes":[{"name":"a","median_ms":4},{"name":"b","median_ms":1}]})");
    auto t = timingTableFromJson(profile, "p");
    QVERIFY(t.ok());
    QCOMPARE(t->totalMs, 10.0);
    QCOMPARE(t->nodes.size(), size_t(2));
    // A report row without a measurement falls back to the estimate; totals are summed when absent.
    auto report = nlohmann::json::parse(R"({"nodes":[{"name":"a","measured_ms":-1,"estimated_ms":2},{"name":"c","measured_ms":3}]})");
    auto r = timingTableFromJson(report, "r");
    QVERIFY(r.ok());
    QCOMPARE(r->nodes[0].second, 2.0);
    QCOMPARE(r->totalMs, 5.0);
    auto bad = timingTableFromJson(nlohmann::json::parse(R"({"nodes":[{"median_ms":1}]})"), "bad.json");
    QVERIFY(!bad.ok());
    QVERIFY(bad.error().message.find("nodes[0]") != std::string::npos);
  }

  void thresholdsSeparateNoiseFromChange() {
    TimingTable a{"a", 10, {{"conv", 5.0}, {"relu", 0.5}, {"gone", 1.0}, {"tiny", 0.001}}};
    TimingTable b{"b", 8, {{"conv", 5.2}, {"relu", 0.8}, {"new", 0.3}, {"tiny", 0.004}}};
    auto c = compareTimings(a, b, 0.10, 0.01);
    // conv +4% is noise; relu +60% regresses; gone improves; new regresses; tiny stays under 0.01 ms.
    QCOMPARE(c.regressions, (std::vector<std::string>{"new", "relu"}));
    QCOMPARE(c.improvements, (std::vector<std::string>{"gone"}));
    QCOMPARE(c.nodes.front().name, std::string("gone"));  // largest |delta| first
    auto j = toJson(c);
    QCOMPARE(j["total_ms"]["b"].get<double>(), 8.0);
    QVERIFY(j["nodes"][0]["b_ms"].is_null());
  }

  void modelDiffFindsStructuralChanges() {
    Model a = test::presets::convBnRelu().model;
    Model b = a;
    b.graph.nodes.erase(b.graph.nodes.begin() + 1);  // drop the BN
    b.graph.nodes[0].setAttr(Attribute::makeInts("strides", {2, 2}));
    Node extra;
    extra.opType = "Identity";
    extra.name = "extra";
    extra.inputs = {a.graph.outputs[0].name};
    extra.outputs = {"y2"};
    b.graph.addNode(extra);
    auto d = diffModels(a, b);
    QCOMPARE(d.removed.size(), size_t(1));
    QCOMPARE(d.added, std::vector<std::string>{"extra"});
    QVERIFY(std::find(d.changed.begin(), d.changed.end(), a.graph.nodes[0].name) != d.changed.end());
  }
};

QTEST_GUILESS_MAIN(TestCompare)
#include "tst_compare.moc"
