// Ascend msprof / torch_npu importers against hand-built fixtures shaped as CANN documents them
// (tests/data/msprof/README.md), name matching against real corpus models, malformed files.
#include <QtTest>

#include <algorithm>
#include <fstream>
#include <set>

#include "model/onnx_io.h"
#include "profile/ascend_ops.h"
#include "profile/msprof_import.h"
#include "profile/name_match.h"
#include "test_paths.h"

using namespace msa;
namespace fs = std::filesystem;

namespace {

fs::path data() { return test::sourceDir() / "tests" / "data" / "msprof"; }
fs::path resnetProf() { return data() / "resnet18_cann8" / "PROF_000001_20240611083015123_ABCDEFGHIJKLMNOP"; }
fs::path mobilenetProf() { return data() / "mobilenet_v2_cann6" / "PROF_000001_20230131172437_KLMNOPQRSTUVWXYZ"; }

const NodeProfile* entry(const ProfileData& p, const std::string& name) {
  const NodeProfile* n = p.find(name);
  if (!n) qWarning("no entry '%s'", name.c_str());
  return n;
}

using Names = std::vector<std::string>;

// IR node name -> number of profile entries that claim it.
std::map<std::string, int> coverage(const ProfileData& p) {
  std::map<std::string, int> c;
  for (const auto& n : p.nodes)
    for (const auto& ir : n.irNodes) ++c[ir];
  return c;
}

Model tinyModel(const std::vector<std::pair<std::string, std::string>>& chain) {
  // A straight chain x -> n0 -> n1 -> … -> y of the given (name, op type) nodes.
  Model m;
  m.opsets.push_back({"", 17});
  std::string prev = "x";
  m.graph.inputs.push_back({"x", TypeInfo::tensor(DType::Float, Shape{1, 8}), {}, {}});
  for (size_t i = 0; i < chain.size(); ++i) {
    Node n;
    n.name = chain[i].first;
    n.opType = chain[i].second;
    n.inputs = {prev};
    prev = i + 1 == chain.size() ? "y" : "v" + std::to_string(i);
    n.outputs = {prev};
    m.graph.addNode(n);
  }
  m.graph.outputs.push_back({"y", TypeInfo::tensor(DType::Float, Shape{1, 8}), {}, {}});
  return m;
}

}  // namespace

class TestMsprofImport : public QObject {
  Q_OBJECT
 private slots:
  void readsBothHeaderGenerations_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("rows");
    QTest::addColumn<QString>("firstName");
    QTest::addColumn<QString>("firstType");
    QTest::addColumn<QString>("firstTask");
    QTest::addColumn<double>("firstDurationUs");
    QTest::addColumn<double>("firstBlockDim");
    QTest::addColumn<QString>("firstOutShape");
    QTest::addColumn<QString>("firstOutFormat");
    QTest::addColumn<QString>("firstInDtype");
    // CANN >= 8: "Block Num", "Task Start Time(us)" with a trailing tab, Infer ID.
    QTest::newRow("cann8 op_summary")
        << QString::fromStdString((resnetProf() / "mindstudio_profiler_output" / "op_summary_20240611083021.csv").string())
        << 90 << "trans_Cast_0"
        << "Cast"
        << "AI_CORE" << 9.8 << 8.0 << "[1,3,224,224]"
        << "NCHW"
        << "float";
    // CANN 6/7: "Block Dim", "Task Start Time", CRLF line ends, no Infer ID.
    QTest::newRow("cann6 op_summary")
        << QString::fromStdString((mobilenetProf() / "device_0" / "summary" / "op_summary_0_1_1.csv").string()) << 61
        << "trans_Cast_0"
        << "Cast"
        << "AI_CORE" << 9.6 << 2.0 << "[1,3,224,224]"
        << "NCHW"
        << "float";
    // torch_npu: Name/Type/Accelerator Core/Duration(us), a UTF-8 BOM, FORMAT_ prefixes.
    QTest::newRow("kernel_details")
        << QString::fromStdString(
               (data() / "linear_relu_ascend_pt" / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv").string())
        << 8 << "trans_TransData_0"
        << "TransData"
        << "AI_VECTOR_CORE" << 6.32 << 20.0 << "[48,192,16,16]"
        << "FRACTAL_NZ"
        << "float";
  }
  void readsBothHeaderGenerations() {
    QFETCH(QString, file);
    QFETCH(int, rows);
    auto recs = readOpSummary(file.toStdString());
    QVERIFY2(recs.ok(), recs.ok() ? "" : recs.error().describe().c_str());
    QCOMPARE(int(recs->size()), rows);
    const AscendOpRecord& r = recs->front();
    QFETCH(QString, firstName);
    QFETCH(QString, firstType);
    QFETCH(QString, firstTask);
    QFETCH(double, firstDurationUs);
    QFETCH(double, firstBlockDim);
    QFETCH(QString, firstOutShape);
    QFETCH(QString, firstOutFormat);
    QFETCH(QString, firstInDtype);
    QCOMPARE(QString::fromStdString(r.name), firstName);
    QCOMPARE(QString::fromStdString(r.opType), firstType);
    QCOMPARE(QString::fromStdString(r.taskType), firstTask);
    QCOMPARE(r.durationUs, firstDurationUs);
    QVERIFY(r.startUs > 1e15);  // absolute device timestamps, tab suffix stripped
    QCOMPARE(r.metric("block_dim").value_or(-1), firstBlockDim);
    QCOMPARE(QString::fromStdString(r.outputShapes.at(0)), firstOutShape);
    QCOMPARE(QString::fromStdString(r.outputFormats.at(0)), firstOutFormat);
    QCOMPARE(QString::fromStdString(r.inputDtypes.at(0)), firstInDtype);
    // Identifier columns are not metrics; "N/A" cells are missing values, not zeros.
    QVERIFY(!r.metric("Task ID") && !r.metric("Stream ID") && !r.metric("Model ID"));
    QVERIFY(!r.metric("Context ID"));  // "N/A" throughout
  }

  void resnet18FromCann8Folder() {
    if (!test::hasCorpus()) QSKIP("no model corpus");
    auto model = loadModel(test::corpusModel("resnet18.onnx"));
    QVERIFY(model.ok());
    auto p = importMsprof(resnetProf(), *model);
    QVERIFY2(p.ok(), p.ok() ? "" : p.error().describe().c_str());
    QCOMPARE(p->iterations, 3);
    QCOMPARE(int(p->nodes.size()), 30);
    QCOMPARE(p->runtime, std::string("msprof"));
    QCOMPARE(p->unmatched, Names{"MemcpyAsync_0"});
    // info.json.0 sits in device_0/ beside mindstudio_profiler_output/.
    QCOMPARE(p->deviceInfo.at("ai_core_num"), 8.0);
    QCOMPARE(p->deviceInfo.at("aic_frequency_mhz"), 1060.0);

    // UB-fused names are concatenations; the BatchNormalization folded before the fusion joins.
    const NodeProfile* c1 = entry(*p, "/conv1/Conv/relu/Relu");
    QVERIFY(c1);
    QCOMPARE(c1->irNodes, (Names{"/conv1/Conv", "/relu/Relu", "/bn1/BatchNormalization"}));
    QCOMPARE(c1->kernel, std::string("AI_CORE"));
    const std::string blk = "/layer1/layer1.0";
    const NodeProfile* c2 = entry(*p, blk + "/conv2/Conv" + blk + "/Add" + blk + "/relu_1/Relu");
    QVERIFY(c2);
    QCOMPARE(c2->irNodes, (Names{blk + "/conv2/Conv", blk + "/Add", blk + "/relu_1/Relu", blk + "/bn2/BatchNormalization"}));
    // A name too long to concatenate: "<first>_ub_fusion", only the first member is known.
    const NodeProfile* longName = entry(*p, "/layer4/layer4.1/conv2/Conv_ub_fusion");
    QVERIFY(longName);
    QCOMPARE(longName->irNodes, Names{"/layer4/layer4.1/conv2/Conv"});

    // Every IR node is claimed at most once; what nobody claims is exactly what the run hides:
    // the Flatten (no task), the downsample BNs folded into exactly-named Convs, and the
    // members of the fusion only known by its first name.
    std::set<std::string> unclaimed;
    auto cov = coverage(*p);
    for (const Node& n : model->graph.nodes) {
      QVERIFY2(cov[n.name] <= 1, n.name.c_str());
      if (!cov[n.name]) unclaimed.insert(n.name);
    }
    QCOMPARE(std::set<std::string>(p->irNodesNotRun.begin(), p->irNodesNotRun.end()), unclaimed);
    QCOMPARE(unclaimed, (std::set<std::string>{"/Flatten",
                                               "/layer2/layer2.0/downsample/downsample.1/BatchNormalization",
                                               "/layer3/layer3.0/downsample/downsample.1/BatchNormalization",
                                               "/layer4/layer4.0/downsample/downsample.1/BatchNormalization",
                                               "/layer4/layer4.1/bn2/BatchNormalization", "/layer4/layer4.1/Add",
                                               "/layer4/layer4.1/relu_1/Relu"}));

    // Inserted conversions: formats kept, the IR nodes they serve recorded.
    struct Ins {
      const char *name, *producer, *consumer, *inFormat, *outFormat;
    };
    for (const Ins& e : {Ins{"trans_Cast_0", "", "/conv1/Conv", "NCHW", "NCHW"},
                         Ins{"trans_TransData_1", "", "/conv1/Conv", "NCHW", "NC1HWC0"},
                         Ins{"trans_TransData_2", "/avgpool/GlobalAveragePool", "/Flatten", "NC1HWC0", "NCHW"},
                         Ins{"trans_TransData_3", "/Flatten", "/fc/Gemm", "ND", "FRACTAL_NZ"},
                         Ins{"trans_TransData_4", "/fc/Gemm", "", "FRACTAL_NZ", "ND"},
                         Ins{"trans_Cast_5", "/fc/Gemm", "", "ND", "ND"}}) {
      const NodeProfile* n = entry(*p, e.name);
      QVERIFY(n);
      QVERIFY2(n->inserted && n->irNodes.empty(), e.name);
      QCOMPARE(n->producerIrNode, std::string(e.producer));
      QCOMPARE(n->consumerIrNode, std::string(e.consumer));
      QCOMPARE(n->inputFormats.at(0), std::string(e.inFormat));
      Names undirected;  // the same neighbours, undirected, as the ORT mapping reports them
      for (const char* s : {e.producer, e.consumer})
        if (*s) undirected.push_back(s);
      QCOMPARE(n->neighbours, undirected);
      QCOMPARE(n->outputFormats.at(0), std::string(e.outFormat));
    }
    const NodeProfile* td = entry(*p, "trans_TransData_1");
    QCOMPARE(td->outputShapes, Names{"[1,1,224,224,16]"});
    QCOMPARE(td->opType, std::string("TransData"));

    // Statistics over the three iterations (durations 22.353, 20.849, 21.514 us in the file).
    QCOMPARE(td->timeMs.count, 3);
    QCOMPARE(td->timeMs.median, 0.021514);
    QCOMPARE(td->timeMs.min, 0.020849);
    QCOMPARE(td->timeMs.max, 0.022353);
    QVERIFY(qAbs(td->timeMs.p90 - 0.0221852) < 1e-9);
    // End to end: first start to last end of each Infer ID (493.75, 494.25, 492.75 us).
    QCOMPARE(p->latencyMs.count, 3);
    QVERIFY(qAbs(p->latencyMs.median - 0.49375) < 1e-9);
    QVERIFY(qAbs(p->latencyMs.min - 0.49275) < 1e-9);
    QVERIFY(p->latencyMs.median > p->sumNodeMedians());  // the waits between tasks are in the span

    // Metric columns, under their header names; cube_utilization(%) came from the file.
    QCOMPARE(c1->metrics.at("block_dim"), 8.0);
    QVERIFY(c1->metrics.count("mac_ratio") && c1->metrics.count("aicore_time(us)") &&
            c1->metrics.count("cube_utilization(%)"));
    QVERIFY(!entry(*p, "MemcpyAsync_0")->metrics.count("mac_ratio"));  // N/A on AI_CPU rows
  }

  void mobilenetV2FromCann6Layout() {
    if (!test::hasCorpus()) QSKIP("no model corpus");
    auto model = loadModel(test::corpusModel("mobilenet_v2.onnx"));
    QVERIFY(model.ok());
    // The folder above PROF_*: the importer finds the one run, its device_0/summary/, both
    // iteration files, fusion_op_0_1_1.csv and device_0/info.json.0.
    auto p = importMsprof(data() / "mobilenet_v2_cann6", *model);
    QVERIFY2(p.ok(), p.ok() ? "" : p.error().describe().c_str());
    QCOMPARE(p->iterations, 2);
    QCOMPARE(p->unmatched, Names{"MemcpyAsync_0"});
    for (const auto& n : p->nodes) QCOMPARE(n.timeMs.count, 2);

    // fusion_op csv "Original Ops" wins, also for a kernel that kept one member's exact name.
    const std::string f0 = "/features/features.0/features.0";
    const NodeProfile* first = entry(*p, f0 + ".0/Conv" + f0 + ".2/Clip");
    QVERIFY(first);
    QCOMPARE(first->irNodes, (Names{f0 + ".0/Conv", f0 + ".1/BatchNormalization", f0 + ".2/Clip"}));
    const NodeProfile* proj = entry(*p, "/features/features.7/conv/conv.2/Conv");
    QVERIFY(proj);
    QCOMPARE(proj->irNodes,
             (Names{"/features/features.7/conv/conv.2/Conv", "/features/features.7/conv/conv.3/BatchNormalization"}));
    // A compiler-derived suffix after an IR name and a separator.
    const NodeProfile* scoped = entry(*p, "/features/features.18/features.18.0/Conv_fused_Clip");
    QVERIFY(scoped);
    QCOMPARE(scoped->irNodes, Names{"/features/features.18/features.18.0/Conv"});

    // Every Conv ran in exactly one kernel; nothing is claimed twice; Constants ran no task.
    auto cov = coverage(*p);
    int convs = 0;
    for (const Node& n : model->graph.nodes) {
      QVERIFY2(cov[n.name] <= 1, n.name.c_str());
      if (n.opType == "Conv") {
        ++convs;
        QVERIFY2(cov[n.name] == 1, n.name.c_str());
      }
      if (n.opType == "Constant") QVERIFY2(cov[n.name] == 0, n.name.c_str());
    }
    QCOMPARE(convs, 52);

    // Without a cube_utilization(%) column it is derived from total_cycles and info.json.0:
    // cycles / (aic_frequency MHz * ai_core_num * duration us) * 100.
    const double* cycles = ascendMetric(*first, "total_cycles");
    QVERIFY(cycles);
    const double expected = *cycles / (1060.0 * 8.0 * first->timeMs.median * 1000.0) * 100.0;
    QVERIFY(qAbs(first->metrics.at("cube_utilization(%)") - expected) < 1e-9);
    QVERIFY(expected > 1 && expected < 100);
    // Executed in stream order across both files: the entries start with the input conversions.
    QCOMPARE(p->nodes.front().name, std::string("trans_Cast_0"));
    QCOMPARE(p->nodes.at(1).name, std::string("trans_TransData_1"));
  }

  void kernelDetailsFromTorchNpu() {
    Model m = tinyModel({{"fc", "Gemm"}, {"act", "Relu"}});
    auto p = importMsprof(data() / "linear_relu_ascend_pt", m);
    QVERIFY2(p.ok(), p.ok() ? "" : p.error().describe().c_str());
    QCOMPARE(p->runtime, std::string("torch_npu profiler (kernel_details)"));
    QCOMPARE(p->iterations, 2);  // Step Id 1 and 2
    // Eager kernels carry aclnn names, not ONNX names: listed, not dropped.
    QCOMPARE(p->unmatched,
             (Names{"aclnnMm_MatMulCommon_MatMulV2", "aclnnAdd_AddAiCore_Add", "aclnnRelu_ReluAiCore_Relu"}));
    QCOMPARE(int(p->nodes.size()), 4);
    QVERIFY(entry(*p, "trans_TransData_0")->inserted);
    const NodeProfile* mm = entry(*p, "aclnnMm_MatMulCommon_MatMulV2");
    QCOMPARE(mm->kernel, std::string("MIX_AIC"));
    QCOMPARE(mm->timeMs.median, (0.12051 + 0.11877) / 2);
    QCOMPARE(mm->metrics.at("mix_block_dim"), 40.0);
    QCOMPARE(*ascendMetric(*mm, "mac_ratio"), 0.742);  // found as aic_mac_ratio
    QCOMPARE(*ascendMetric(*mm, "vec_ratio"), 0.088);  // found as aiv_vec_ratio
    QCOMPARE(mm->inputDtypes, (Names{"float16", "float16"}));
    QCOMPARE(mm->inputFormats, (Names{"ND", "ND"}));
    QCOMPARE(mm->inputShapes, (Names{"[8,3072]", "[3072,768]"}));
  }

  void malformedFilesNameTheLine_data() {
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("fragment1");
    QTest::addColumn<QString>("fragment2");
    QTest::newRow("missing column") << "missing_duration.csv"
                                    << "line 1"
                                    << "Task Duration(us)";
    QTest::newRow("bad number") << "bad_number.csv"
                                << "line 4"
                                << "'12.3.4' in column 'Task Duration(us)'";
    QTest::newRow("unterminated quote") << "unterminated_quote.csv"
                                        << "line 5"
                                        << "unterminated quoted field";
    QTest::newRow("stray quote") << "stray_quote.csv"
                                 << "line 5"
                                 << "after a quoted field";
    QTest::newRow("bad ratio") << "bad_ratio.csv"
                               << "line 2"
                               << "'high' in column 'mac_ratio'";
    QTest::newRow("negative duration") << "negative_duration.csv"
                                       << "line 3"
                                       << "negative duration";
    // An iteration id beyond any integer (fuzz_profile_msprof: the cast was undefined behaviour).
    QTest::newRow("iteration id out of range") << "huge_iteration.csv"
                                               << "line 3"
                                               << "'5.5e98' in column 'Infer ID' is not an iteration number";
    QTest::newRow("header only") << "header_only.csv"
                                 << "header_only.csv"
                                 << "no op rows";
    // A quoted field spanning two lines: the next row starts on line 4.
    QTest::newRow("line count after a multi-line field") << "multiline_then_bad.csv"
                                                         << "line 4"
                                                         << "'N/A' in column 'Task Duration(us)'";
    QTest::newRow("broken info.json") << "broken_info"
                                      << "info.json.0"
                                      << "malformed JSON";
    QTest::newRow("fusion_op without Original Ops") << "broken_fusion"
                                                    << "fusion_op_20240101000000.csv"
                                                    << "'Original Ops'";
  }
  void malformedFilesNameTheLine() {
    QFETCH(QString, path);
    QFETCH(QString, fragment1);
    QFETCH(QString, fragment2);
    Model m = tinyModel({{"/conv1/Conv", "Conv"}});
    auto p = importMsprof(data() / "malformed" / path.toStdString(), m);
    QVERIFY(!p.ok());
    const QString msg = QString::fromStdString(p.error().describe());
    QVERIFY2(msg.contains(fragment1), qPrintable(msg));
    QVERIFY2(msg.contains(fragment2), qPrintable(msg));
    QCOMPARE(p.error().kind, ErrorKind::Model);
  }

  // A row with more fields than the header (shapes without quotes) is read, not refused.
  void raggedRowIsReadAndReported() {
    Model m = tinyModel({{"/conv1/Conv", "Conv"}, {"/maxpool/MaxPool", "MaxPool"}});
    auto p = importMsprof(data() / "malformed" / "field_count.csv", m);
    QVERIFY2(p.ok(), p.ok() ? "" : p.error().describe().c_str());
    QCOMPARE(p->warnings.size(), size_t(1));
    QVERIFY2(p->warnings.front().find("line 3: 13 fields, the header has 9: read in full") != std::string::npos,
             p->warnings.front().c_str());
    const NodeProfile* pool = entry(*p, "/maxpool/MaxPool");
    QVERIFY(pool);
    QCOMPARE(pool->inputShapes, Names{"[1,4,112,112,16]"});
  }

  // Layouts that used to be refused as ambiguous: runs of one program are merged, several
  // devices or models analyse the first and say so; only an empty folder is refused.
  void ambiguousLayouts() {
    test::TempDir dir("msprof-layouts");
    const fs::path src = mobilenetProf() / "device_0";
    // Two runs side by side: the same program, so two iterations of one profile.
    for (const char* run : {"PROF_a", "PROF_b"}) {
      fs::create_directories(dir / "two" / run / "device_0" / "summary");
      fs::copy_file(src / "summary" / "op_summary_0_1_1.csv", dir / "two" / run / "device_0" / "summary" / "op_summary_0_1_1.csv");
    }
    auto two = locateMsprofRuns(dir / "two");
    QVERIFY(two.ok());
    QCOMPARE(two->runs.size(), size_t(2));
    QVERIFY(two->group);
    auto merged = importMsprof(dir / "two", nullptr);
    QVERIFY(merged.ok());
    QCOMPARE(merged->iterations, 2);
    // Two devices of one run: ranks.
    for (const char* dev : {"device_0", "device_1"}) {
      fs::create_directories(dir / "devs" / dev / "summary");
      fs::copy_file(src / "summary" / "op_summary_0_1_1.csv", dir / "devs" / dev / "summary" / "op_summary_0_1_1.csv");
    }
    auto devs = locateMsprofRuns(dir / "devs");
    QVERIFY(devs.ok());
    QCOMPARE(devs->ranks, 2);
    QCOMPARE(devs->runs.size(), size_t(1));
    QVERIFY(QString::fromStdString(devs->warnings.at(0)).contains(QLatin1String("2 ranks or devices")));
    // Two models in one summary folder: the first, said.
    fs::create_directories(dir / "models");
    fs::copy_file(src / "summary" / "op_summary_0_1_1.csv", dir / "models" / "op_summary_0_1_1.csv");
    fs::copy_file(src / "summary" / "op_summary_0_1_1.csv", dir / "models" / "op_summary_0_2_1.csv");
    auto models = locateMsprofRuns(dir / "models");
    QVERIFY(models.ok());
    QCOMPARE(models->runs.front().opSummaries.size(), size_t(1));
    QVERIFY(QString::fromStdString(models->warnings.at(0)).contains(QLatin1String("pass a file for another")));
    // Nothing at all.
    fs::create_directories(dir / "empty");
    auto none = locateMsprof(dir / "empty");
    QVERIFY(!none.ok());
    QVERIFY(QString::fromStdString(none.error().message).contains(QLatin1String("no Ascend profile found")));
    // A single file: its fusion_op and info.json are still found (old layout).
    auto one = locateMsprof(src / "summary" / "op_summary_0_1_2.csv");
    QVERIFY(one.ok());
    QCOMPARE(one->opSummaries.size(), size_t(1));
    QCOMPARE(one->fusionOps.filename().string(), std::string("fusion_op_0_1_1.csv"));
    QCOMPARE(one->info.filename().string(), std::string("info.json.0"));
  }

  void fieldSplitting() {
    // Some exporters keep the quotes of the database value inside the field.
    QCOMPARE(splitAscendShapes("\"1,64,56,56;64,64,1,1\""), (Names{"[1,64,56,56]", "[64,64,1,1]"}));
    QCOMPARE(splitAscendShapes("1,64,56,56;64,64,1,1"), (Names{"[1,64,56,56]", "[64,64,1,1]"}));
    QCOMPARE(splitAscendShapes("1,8; ;"), (Names{"[1,8]", "", ""}));  // scalar inputs leave empty slots
    QCOMPARE(splitAscendShapes("N/A"), Names{});
    QCOMPARE(splitAscendDtypes("DT_FLOAT16;INT64"), (Names{"float16", "int64"}));
    QCOMPARE(splitAscendFormats("FORMAT_ND;NC1HWC0"), (Names{"ND", "NC1HWC0"}));
  }

  void nameMatcherConventions_data() {
    QTest::addColumn<QString>("runtime");
    QTest::addColumn<QString>("opType");
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QStringList>("irNodes");
    QTest::newRow("exact") << "Conv_1" << "Conv2D" << "exact" << QStringList{"Conv_1"};
    // "Conv_12Relu_13" must not split as "Conv_1" + "2Relu_13".
    QTest::newRow("concatenated, longer name") << "Conv_12Relu_13" << "Conv2D" << "concatenated"
                                               << QStringList{"Conv_12", "Relu_13"};
    QTest::newRow("concatenation of unconnected nodes") << "Conv_1Relu_13" << "Conv2D" << "none" << QStringList{};
    QTest::newRow("ub_fusion suffix") << "Conv_12_ub_fusion" << "Conv2D" << "fused-prefix" << QStringList{"Conv_12"};
    QTest::newRow("inserted by name") << "trans_Cast_7" << "Cast" << "inserted" << QStringList{};
    QTest::newRow("TransData of any name") << "MyTransData" << "TransData" << "inserted" << QStringList{};
    QTest::newRow("trans_ without a counter") << "trans_Cast" << "Cast" << "none" << QStringList{};
    QTest::newRow("scoped suffix") << "Relu_13/fp16" << "Relu" << "scoped" << QStringList{"Relu_13"};
    QTest::newRow("no separator") << "Relu_134" << "Relu" << "none" << QStringList{};
  }
  void nameMatcherConventions() {
    QFETCH(QString, runtime);
    QFETCH(QString, opType);
    QFETCH(QString, kind);
    QFETCH(QStringList, irNodes);
    Model m = tinyModel({{"Conv_1", "Conv"}, {"Relu_2", "Relu"}, {"Conv_12", "Conv"}, {"Relu_13", "Relu"}});
    IrNameMatcher matcher(m.graph);
    NameMatch r = matcher.match(runtime.toStdString(), opType.toStdString());
    QCOMPARE(QString::fromLatin1(matchKindName(r.kind)), kind);
    QStringList got;
    for (const auto& n : r.irNodes) got << QString::fromStdString(n);
    QCOMPARE(got, irNodes);
  }
};

QTEST_GUILESS_MAIN(TestMsprofImport)
#include "tst_msprof_import.moc"
