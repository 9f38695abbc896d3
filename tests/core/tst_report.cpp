// Report writers: JSON against the documented schema (docs/report-schema.json) with our own
// validator (tested first), the text check-up sheet, Markdown and the self-contained HTML, in
// English and Chinese.
#include <QtTest>

#include <QRegularExpression>
#include <QXmlStreamReader>
#include <fstream>
#include <set>

#include "advisor/advisor.h"
#include "cost/device_profile.h"
#include "model/onnx_io.h"
#include "model/shape_inference.h"
#include "report/json_schema.h"
#include "report/report_format.h"
#include "report/report_html.h"
#include "report/report_json.h"
#include "report/report_text.h"
#include "test_paths.h"

using namespace msa;
using json = nlohmann::json;

namespace {

json reportSchema() {
  std::ifstream in(test::sourceDir() / "docs" / "report-schema.json");
  if (!in) qFatal("docs/report-schema.json missing");
  return json::parse(in);
}

Report corpusReport(const std::string& model, const std::string& device, Goal goal = Goal::Latency,
                    Scenario scenario = Scenario::Edge) {
  auto m = loadModel(test::corpusModel(model));
  if (!m) qFatal("%s", m.error().describe().c_str());
  (void)inferShapes(*m);
  auto dev = loadDevice(device);
  AnalyzeOptions o;
  o.goal = goal;
  o.scenario = scenario;
  auto r = analyze(*m, *dev, {}, o);
  if (!r) qFatal("%s", r.error().describe().c_str());
  return std::move(*r);
}

std::string describe(const std::vector<SchemaError>& errors) {
  std::string s;
  for (size_t i = 0; i < errors.size() && i < 8; ++i) s += errors[i].path + ": " + errors[i].message + "\n";
  return s;
}

// Catalog keys that reached the output unrendered.
const QRegularExpression kRawKey(QStringLiteral(
    "\\b(report|col|bound|category|priority|finding|note|chart|source|goal|scenario)\\.[a-z_0-9]{3,}\\b"));

}  // namespace

class TestReport : public QObject {
  Q_OBJECT
 private slots:
  // One typography for every writer (util/units.h): three significant digits, never an exponent,
  // one style of percentage. The headline read "165.0 ms (fastest run 81.78 ms)" and the
  // findings "22%" beside the GUI's "22.3 %".
  void figures_data() {
    QTest::addColumn<double>("value");
    QTest::addColumn<QString>("significant");
    QTest::addColumn<QString>("percent");  // of value as a fraction
    QTest::newRow("hundreds") << 165.04 << "165" << "16504%";
    QTest::newRow("tens") << 81.78 << "81.8" << "8178%";
    QTest::newRow("units") << 1.2345 << "1.23" << "123%";
    QTest::newRow("rounds to the next decade") << 9.996 << "10.0" << "1000%";
    QTest::newRow("below one") << 0.04567 << "0.0457" << "4.6%";
    QTest::newRow("a share") << 0.223 << "0.223" << "22.3%";
    QTest::newRow("a small share") << 0.0004 << "0.000400" << "0.04%";
    QTest::newRow("rounds up to one percent") << 0.0096 << "0.00960" << "1.0%";
    QTest::newRow("under one percent") << 0.0094 << "0.00940" << "0.9%";
    QTest::newRow("a whole share") << 1.0 << "1.00" << "100%";
    QTest::newRow("negative") << -0.0004 << "-0.000400" << "−0.04%";
    QTest::newRow("too small to show") << 3e-5 << "0.0000300" << "<0.01%";
    QTest::newRow("zero") << 0.0 << "0" << "0%";
    QTest::newRow("thousands stay whole") << 1234.6 << "1235" << "123460%";
    QTest::newRow("absurd") << 3e20 << "3e+20" << "3e+22%";
    QTest::newRow("not finite") << std::numeric_limits<double>::infinity() << "–" << "–";
  }
  void figures() {
    QFETCH(double, value);
    QFETCH(QString, significant);
    QFETCH(QString, percent);
    QCOMPARE(QString::fromStdString(formatSignificant(value)), significant);
    QCOMPARE(QString::fromStdString(formatPercent(value)), percent);
    const std::string column = percentColumn(value);
    QVERIFY(QString::fromStdString(column).size() >= 6);
    QCOMPARE(QString::fromStdString(column).trimmed(), percent);
  }

  // A cosine that five decimals round to 1 is shown with the digits that tell it from 1: an int8
  // what-if read "1.00000", as if its outputs were the original's.
  void similarity_data() {
    QTest::addColumn<double>("value");
    QTest::addColumn<QString>("text");
    QTest::newRow("five decimals suffice") << 0.998713 << "0.99871";
    QTest::newRow("rounds to one in five") << 0.9999963 << "0.9999963";
    QTest::newRow("just below the fifth") << 0.999991 << "0.9999910";
    QTest::newRow("exact") << 1.0 << "1";
    QTest::newRow("opposite") << -0.5 << "-0.50000";
    QTest::newRow("not finite") << std::nan("") << "–";
  }
  void similarity() {
    QFETCH(double, value);
    QFETCH(QString, text);
    QCOMPARE(QString::fromStdString(formatSimilarity(value)), text);
  }

  // A zero in a table's duration column reads in the column's unit: the example's text report
  // printed "0 ms" under "30.4 µs" for BatchNormalization (folded away).
  void aZeroInTheColumnsUnit() {
    Report r;
    r.latencyMs = 0.183;
    r.timeByOpType = {{"Concat", 15, 0.0304, 0.166}, {"Mul", 44, 0.00228, 0.012}, {"BatchNormalization", 43, 0.0, 0.0}};
    const std::string text = reportToText(r);
    const size_t row = text.find("BatchNormalization");
    QVERIFY(row != std::string::npos);
    const std::string line = text.substr(row, text.find('\n', row) - row);
    QVERIFY2(line.find("0\u202fµs") != std::string::npos && line.find("ms") == std::string::npos, line.c_str());
    QVERIFY(text.find("30.4\u202fµs") != std::string::npos && text.find("2.28\u202fµs") != std::string::npos);
  }

  void validator_data() {
    QTest::addColumn<QString>("schema");
    QTest::addColumn<QString>("document");
    QTest::addColumn<QString>("error");  // fragment of the first error; empty: valid
    const QString obj = R"({"type":"object","required":["a"],"additionalProperties":false,
        "properties":{"a":{"type":"integer","minimum":1},"b":{"enum":["x","y"]},"c":{"type":["number","null"]},
        "d":{"type":"array","minItems":1,"items":{"$ref":"#/$defs/s"}},"e":{"anyOf":[{"type":"null"},{"$ref":"#/$defs/s"}]}},
        "$defs":{"s":{"type":"string","pattern":"^[a-z]+$"}}})";
    QTest::newRow("valid") << obj << R"({"a":2,"b":"x","c":null,"d":["ok"],"e":"fine"})" << "";
    QTest::newRow("missing key") << obj << R"({"b":"x"})" << "missing required key 'a'";
    QTest::newRow("wrong type") << obj << R"({"a":"2"})" << "expected integer, got string";
    QTest::newRow("float is no integer") << obj << R"({"a":2.5})" << "expected integer";
    QTest::newRow("below minimum") << obj << R"({"a":0})" << "below the minimum";
    QTest::newRow("enum") << obj << R"({"a":1,"b":"z"})" << "expected one of \"x\", \"y\"";
    QTest::newRow("extra key") << obj << R"({"a":1,"zz":1})" << "key 'zz' is not allowed";
    QTest::newRow("ref and pattern") << obj << R"({"a":1,"d":["Bad"]})" << "does not match";
    QTest::newRow("min items") << obj << R"({"a":1,"d":[]})" << "fewer than 1 items";
    QTest::newRow("anyOf") << obj << R"({"a":1,"e":3})" << "none of the anyOf";
    QTest::newRow("nullable number") << obj << R"({"a":1,"c":true})" << "expected number or null";
    QTest::newRow("unsupported keyword") << R"({"type":"object","patternProperties":{}})" << "{}" << "unsupported keyword 'patternProperties'";
    QTest::newRow("unresolved ref") << R"({"$ref":"#/$defs/nope"})" << "1" << "unresolved $ref";
  }
  void validator() {
    QFETCH(QString, schema);
    QFETCH(QString, document);
    QFETCH(QString, error);
    const auto errors = validateJson(json::parse(document.toStdString()), json::parse(schema.toStdString()));
    if (error.isEmpty()) QVERIFY2(errors.empty(), describe(errors).c_str());
    else {
      QVERIFY(!errors.empty());
      QVERIFY2(QString::fromStdString(errors[0].message).contains(error), errors[0].message.c_str());
    }
  }

  // The schema itself uses only what the validator checks.
  void schemaIsWellFormed() {
    const json schema = reportSchema();
    QCOMPARE(schema["properties"]["schema_version"]["const"].get<int>(), Report::kSchemaVersion);
    // Validating any object walks every keyword of the top-level schema.
    const auto errors = validateJson(json::object(), schema);
    for (const auto& e : errors) QVERIFY2(e.message.find("schema error") == std::string::npos, e.message.c_str());
  }

  void realReportsValidate_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("device");
    QTest::addColumn<QString>("lang");
    QTest::newRow("resnet18 ascend910b en") << "resnet18.onnx" << "ascend910b" << "en";
    QTest::newRow("vit cpu-host zh") << "vit_ti_16.onnx" << "cpu-host" << "zh";
    QTest::newRow("bert ascend310p en") << "bert_like_encoder.onnx" << "ascend310p" << "en";
    QTest::newRow("silero (subgraphs) ascend910b zh") << "silero_vad_v6.onnx" << "ascend910b" << "zh";
    QTest::newRow("ocr rec cpu-host en") << "ch_PP-OCRv4_rec_infer.onnx" << "cpu-host" << "en";
  }
  void realReportsValidate() {
    if (!test::hasCorpus()) QSKIP("no model corpus");
    QFETCH(QString, model);
    QFETCH(QString, device);
    QFETCH(QString, lang);
    const Report r = corpusReport(model.toStdString(), device.toStdString());
    ReportOptions o;
    QVERIFY(parseLang(lang.toStdString(), o.lang));
    // Through text, as a consumer reads it.
    const json j = json::parse(reportToJson(r, o).dump());
    const json schema = reportSchema();
    const auto errors = validateJson(j, schema);
    QVERIFY2(errors.empty(), describe(errors).c_str());
    // The contract's keys (DESIGN.md), spelled out.
    for (const char* k : {"schema_version", "model", "device", "latency_ms", "latency_source", "optimum_ms", "gap_ratio",
                          "estimated_optimized_ms", "findings", "bottlenecks"})
      QVERIFY2(j.contains(k), k);
    for (const auto& f : j["findings"])
      for (const char* k : {"id", "rule", "category", "priority", "impact_ms", "speedup_local", "speedup_global", "nodes", "legal",
                            "fix", "title", "suggestion"})
        QVERIFY2(f.contains(k), k);
    std::set<std::string> ids;
    for (const auto& f : j["findings"]) ids.insert(f["id"].get<std::string>());
    for (const auto& b : j["bottlenecks"]) QVERIFY(ids.count(b.get<std::string>()));
    QVERIFY(!kRawKey.match(QString::fromStdString(j.dump())).hasMatch());

    // A broken report is caught: the validator is not a rubber stamp.
    json bad = j;
    if (!bad["findings"].empty()) {
      bad["findings"][0]["priority"] = "P3";
      QVERIFY(!validateJson(bad, schema).empty());
    }
    bad = j;
    bad.erase("latency_source");
    QVERIFY(!validateJson(bad, schema).empty());
    bad = j;
    bad["nodes"][0]["bound"] = "cache";
    QVERIFY(!validateJson(bad, schema).empty());
  }

  void textCheckUpSheet() {
    if (!test::hasCorpus()) QSKIP("no model corpus");
    const Report r = corpusReport("mobilenet_v2.onnx", "ascend910b");
    for (Lang lang : {Lang::En, Lang::Zh}) {
      ReportOptions o;
      o.lang = lang;
      const QString text = QString::fromStdString(reportToText(r, o));
      QVERIFY2(!kRawKey.match(text).hasMatch(), qPrintable(kRawKey.match(text).captured(0)));
      QVERIFY(text.contains(lang == Lang::Zh ? u"性能体检报告"_qs : u"Performance check-up"_qs));
      // The device by its name in the sheet's language (the Chinese sheet named it in English).
      QVERIFY2(text.contains(lang == Lang::Zh ? u"华为昇腾 910B"_qs : u"Huawei Ascend 910B"_qs), qPrintable(text.left(600)));
      if (lang == Lang::Zh) QVERIFY(!text.contains(u"Huawei"_qs));
      // Every bottleneck appears with its rendered title.
      for (const auto& id : r.bottlenecks) {
        const QString title = QString::fromStdString(renderFinding(*r.finding(id), lang).title).left(30);
        QVERIFY2(text.contains(title), qPrintable(title));
      }
      // No line is wider than the sheet (CJK characters count two columns).
      for (const QString& line : text.split(u'\n')) {
        size_t w = 0;
        for (QChar c : line) w += (c.unicode() >= 0x2e80 && c.unicode() <= 0xffe6) ? 2 : 1;
        QVERIFY2(w <= 100, qPrintable(line));
      }
    }
  }

  // A priority its median decided says so under its row, in both languages, and only there.
  void textSaysWhenAPriorityIsBorderline() {
    if (!test::hasCorpus()) QSKIP("no model corpus");
    Report r = corpusReport("mobilenet_v2.onnx", "ascend910b");
    QVERIFY(r.bottlenecks.size() >= 2);
    for (Assessment& a : r.assessments) a.priorityBorderline = false;
    for (size_t k = 0; k < r.findings.size(); ++k)
      if (r.findings[k].id == r.bottlenecks[1]) r.assessments[k].priorityBorderline = true;
    for (Lang lang : {Lang::En, Lang::Zh}) {
      ReportOptions o;
      o.lang = lang;
      const QString text = QString::fromStdString(reportToText(r, o));
      const QString marker = lang == Lang::Zh ? u"的判定处于临界"_qs : u"by a narrow margin"_qs;
      QCOMPARE(text.count(marker), 1);
      const QString priority = QString::fromStdString(std::string(priorityName(r.finding(r.bottlenecks[1])->priority)));
      QVERIFY2(text.contains(priority + (lang == Lang::Zh ? u" 的判定处于临界"_qs : u" by a narrow margin"_qs)), qPrintable(text));
    }
  }

  void markdownTablesAreRectangular() {
    if (!test::hasCorpus()) QSKIP("no model corpus");
    const Report r = corpusReport("vit_ti_16.onnx", "ascend910b");
    const QString md = QString::fromStdString(reportToMarkdown(r, {}));
    QVERIFY(md.startsWith(u"# msadvisor"_qs));
    int columns = -1;
    for (const QString& line : md.split(u'\n')) {
      if (!line.startsWith(u'|')) {
        columns = -1;
        continue;
      }
      QString unescaped = line;
      unescaped.replace(u"\\|"_qs, u""_qs);
      const int n = static_cast<int>(unescaped.count(u'|'));
      if (columns < 0) columns = n;
      QVERIFY2(n == columns, qPrintable(line));
    }
  }

  void htmlIsSelfContained_data() {
    QTest::addColumn<QString>("lang");
    QTest::newRow("en") << "en";
    QTest::newRow("zh") << "zh";
  }
  void htmlIsSelfContained() {
    if (!test::hasCorpus()) QSKIP("no model corpus");
    QFETCH(QString, lang);
    const Report r = corpusReport("resnet18.onnx", "ascend910b");
    ReportOptions o;
    QVERIFY(parseLang(lang.toStdString(), o.lang));
    const QString html = QString::fromStdString(reportToHtml(r, o));
    QVERIFY(html.startsWith(u"<!DOCTYPE html>"_qs));
    for (const char* external : {"http://", "https://", "<script", "<link", " src=", "url(", "@import"})
      QVERIFY2(!html.contains(QLatin1String(external)), external);
    QVERIFY(!kRawKey.match(html).hasMatch());
    QCOMPARE(html.count(u"<details"_qs), html.count(u"</details>"_qs));
    // Charts: the latency bar, the TOP-N, time by op type, the roofline; each is well-formed XML.
    const QRegularExpression svg(QStringLiteral("<svg[^>]*>.*?</svg>"), QRegularExpression::DotMatchesEverythingOption);
    int charts = 0, circles = 0;
    for (auto it = svg.globalMatch(html); it.hasNext();) {
      const QString fragment = it.next().captured(0);
      QXmlStreamReader xml(fragment);
      while (!xml.atEnd()) {
        xml.readNext();
        if (xml.isStartElement() && xml.name() == u"circle"_qs) ++circles;
      }
      QVERIFY2(!xml.hasError(), qPrintable(xml.errorString() + u": "_qs + fragment.left(200)));
      ++charts;
    }
    QCOMPARE(charts, 4);
    int nodesWithWork = 0;
    for (const NodeReport& n : r.nodes) nodesWithWork += n.flops > 0 && n.bytes > 0;
    QVERIFY(circles >= nodesWithWork);  // every operator that computes is a point on the roofline
    for (const auto& id : r.bottlenecks) {
      QString title = QString::fromStdString(renderFinding(*r.finding(id), o.lang).title).toHtmlEscaped();
      title.replace(u"&quot;"_qs, u"\""_qs);
      QVERIFY2(html.contains(title.left(20)) || html.contains(QString::fromStdString(id)), qPrintable(title));
    }
    if (o.lang == Lang::Zh) QVERIFY(html.contains(u"lang=\"zh-CN\""_qs) && html.contains(u"理论最优"_qs));
  }

  void focusedView() {
    if (!test::hasCorpus()) QSKIP("no model corpus");
    const Report r = corpusReport("resnet18.onnx", "ascend910b");
    const QString text = QString::fromStdString(categoryToText(r, Category::Fusion, {}));
    int fusion = 0;
    for (const Finding& f : r.findings) fusion += f.category == Category::Fusion;
    QVERIFY(fusion > 0);
    // One row per fusion finding: numbered lines.
    const QRegularExpression row(QStringLiteral("^  (\\d+) +P[012] "), QRegularExpression::MultilineOption);
    for (const Finding& f : r.findings)  // titles are whole, node names included
      if (f.category == Category::Fusion) QVERIFY2(text.contains(QString::fromStdString(f.nodes.front())), f.nodes.front().c_str());
    int rows = 0;
    for (auto it = row.globalMatch(text); it.hasNext(); it.next()) ++rows;
    QCOMPARE(rows, fusion);
  }

  // Why no gap is given: an optimum above the measured run is not an unknown cost (ResNet-18 at
  // 640×640 on this host: "gap not computed: 0 operators of unknown cost hold most of the run").
  void gapTextSaysWhyThereIsNone() {
    Report r;
    r.latencyMs = 80.9;
    r.optimumMs = 84.3;
    r.optimumAboveLatency = true;
    for (Lang lang : {Lang::En, Lang::Zh}) {
      const std::string text = report::gapText(r, lang);
      QVERIFY2(text.find("--dim") == std::string::npos, text.c_str());
      QVERIFY2(text.find("84.3") != std::string::npos, text.c_str());
    }
    r.optimumAboveLatency = false;
    r.optimum.unknownNodes = 7;
    QVERIFY2(report::gapText(r, Lang::En).find("7 operators of unknown cost") != std::string::npos, report::gapText(r, Lang::En).c_str());
  }

  void wrapKeepsWidth_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("width");
    QTest::newRow("ascii") << "Fold the BatchNormalization into the convolution's weights and bias (exact)." << 20;
    QTest::newRow("cjk") << "将 BatchNormalization 折叠进卷积的权重与偏置（精确变换；pass fold_bn_into_conv）。" << 16;
  }
  void wrapKeepsWidth() {
    QFETCH(QString, text);
    QFETCH(int, width);
    const QString out = QString::fromStdString(wrapText(text.toStdString(), static_cast<size_t>(width), "  "));
    QString joined;
    for (const QString& line : out.split(u'\n', Qt::SkipEmptyParts)) {
      size_t w = 0;
      for (QChar c : line.mid(2)) w += (c.unicode() >= 0x2e80 && c.unicode() <= 0xffe6) ? 2 : 1;
      QVERIFY2(w <= static_cast<size_t>(width) || !line.mid(2).contains(u' '), qPrintable(line));
      joined += line.mid(2);
    }
    QString squeezed = text;
    squeezed.remove(u' ');
    joined.remove(u' ');
    QCOMPARE(joined, squeezed);  // nothing lost
  }
};

QTEST_GUILESS_MAIN(TestReport)
#include "tst_report.moc"
