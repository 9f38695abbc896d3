// Rule families describe themselves (rules/family_registry.h): every category's title, colour and
// dock come from resources/rules/<family>.json, a family registered from data alone reaches the
// report writers, and no rule builds a sentence in C++.
#include <QtTest>

#include <fstream>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "advisor/advisor.h"
#include "report/report_charts.h"
#include "report/report_html.h"
#include "report/report_json.h"
#include "report/report_text.h"
#include "rules/family_registry.h"
#include "rules/texts.h"
#include "test_paths.h"

using namespace msa;

namespace {

std::string readFile(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A family that exists only as data: a category of its own, in a dock of its own.
constexpr const char* kMemoryFamily = R"({
  "_family": {"id": "memory_test", "kind": "graph",
              "categories": {"memory_test": {"order": 95, "colour": "#123456", "dock": "memory_test",
                                             "title": {"en": "Memory spills", "zh": "内存溢出"},
                                             "short": {"en": "Spills", "zh": "溢出"}}}},
  "_docks": {"memory_test": {"order": 40, "title": {"en": "Memory", "zh": "内存"},
                             "empty": {"en": "Spills appear here after Analyze.", "zh": "运行分析后，此处显示内存溢出。"}}},
  "memory_test.spill": {
    "en": {"title": "{tensor} spills to device memory", "suggestion": "Keep {tensor} in {where}.", "hazard": "h", "mitigation": "m", "help": "x"},
    "zh": {"title": "{tensor} 溢出到设备内存", "suggestion": "让 {tensor} 留在{where}。", "hazard": "h", "mitigation": "m", "help": "x"}},
  "_texts": {"memory_test.where": {"en": "the on-chip buffer", "zh": "片上缓存"}}
})";

Report reportWith(Category c) {
  Report r;
  r.model = "m.onnx";
  r.device = "ascend910b";
  r.latencyMs = 2;
  r.latencySource = "estimated";
  Finding f;
  f.id = "memory_test.spill@x";
  f.rule = "memory_test.spill";
  f.category = c;
  f.nodes = {"x"};
  f.params["tensor"] = "x";
  f.params["where"] = phrase("memory_test.where");
  f.impact.ms = f.impact.rawMs = f.impact.currentMs = 1;
  f.speedupGlobal = 0.5;
  r.findings.push_back(f);
  r.assessments.push_back(Assessment{});
  r.bottlenecks.push_back(f.id);
  summarizeFindings(r);
  return r;
}

}  // namespace

class TestRuleFamilies : public QObject {
  Q_OBJECT

 private slots:
  // Every category's title, short title, colour, order and dock is what its family's file says,
  // and every built-in category constant is declared by one.
  // A list with a Location column shows titles without the place: every title that names its
  // anchor in the catalog's form (" at {node}", "{node} 处") reads whole without it; others keep it.
  void titlesWithoutTheirPlace() {
    const std::string place = "/blocks.3/conv/Conv";
    int dropped = 0;
    for (const auto& entry : std::filesystem::directory_iterator(test::sourceDir() / "resources/rules")) {
      const auto j = nlohmann::json::parse(readFile(entry.path()));
      for (const auto& [rule, texts] : j.items()) {
        if (rule.starts_with("_") || !texts.is_object() || !texts.contains("en") || !texts["en"].is_object()) continue;
        Finding f;
        f.rule = rule;
        f.nodes = {place, "/blocks.3/bn/BatchNormalization"};
        for (Lang lang : {Lang::En, Lang::Zh}) {
          const std::string tmpl = texts[lang == Lang::En ? "en" : "zh"].value("title", "");
          const std::string shown = titleWithoutPlace(f, lang);
          const bool namesPlace = lang == Lang::En ? tmpl.find(" at {node}") != std::string::npos
                                                   : tmpl.find("{node} 处") != std::string::npos || tmpl.find("，首处在 {node}") != std::string::npos;
          const std::string where = rule + (lang == Lang::En ? " en: " : " zh: ") + shown;
          QVERIFY2(!shown.empty() && shown.find("  ") == std::string::npos && shown.front() != ' ' && shown.back() != ' ', where.c_str());
          if (namesPlace) ++dropped;
          QVERIFY2((shown.find(place) == std::string::npos) == namesPlace || tmpl.find("{node}") == std::string::npos, where.c_str());
          if (!namesPlace) QCOMPARE(shown, renderFinding(f, lang).title);
        }
      }
    }
    QVERIFY2(dropped > 60, std::to_string(dropped).c_str());
    Finding fusion;
    fusion.rule = "fusion.conv_bn_act";
    fusion.nodes = {place};
    fusion.params = {{"pattern", "Conv→BatchNormalization→HardSwish"}};
    QCOMPARE(titleWithoutPlace(fusion, Lang::En), std::string("Fuse Conv→BatchNormalization→HardSwish"));
    QCOMPARE(titleWithoutPlace(fusion, Lang::Zh), std::string("融合 Conv→BatchNormalization→HardSwish"));
    Finding reorders;
    reorders.rule = "format.nchwc_reorder";
    reorders.nodes = {place};
    reorders.params = {{"boundary_ops", "HardSigmoid"}, {"reorder_count", "50"}, {"places", "17"}};
    QCOMPARE(titleWithoutPlace(reorders, Lang::En), std::string("NCHWc reorders around HardSigmoid: 50 in all (sites: 17)"));
    QCOMPARE(titleWithoutPlace(reorders, Lang::Zh), std::string("HardSigmoid 周围的 50 个 NCHWc 重排（17 处）"));
  }

  void everyCategoryComesFromItsFile() {
    QVERIFY2(validateRuleFamilies(), validateRuleFamilies() ? "" : validateRuleFamilies().error().describe().c_str());
    std::map<std::string, nlohmann::json> declared;
    for (const auto& entry : std::filesystem::directory_iterator(test::sourceDir() / "resources/rules")) {
      const auto j = nlohmann::json::parse(readFile(entry.path()));
      if (!j.contains("_family")) continue;
      for (const auto& [id, c] : j["_family"]["categories"].items()) {
        QVERIFY2(!declared.count(id), id.c_str());
        declared[id] = c;
      }
    }
    QVERIFY(declared.size() >= 8);
    for (Category c : {Category::Fusion, Category::Format, Category::Kernel, Category::Alignment, Category::SmallOps,
                       Category::Precision, Category::Graph, Category::Host})
      QVERIFY2(declared.count(std::string(c.id())), std::string(c.id()).c_str());
    const auto docks = findingDocks();
    for (const CategoryInfo& info : categoryInfos()) {
      const std::string id(info.category.id());
      if (!declared.count(id)) continue;  // one registered by another test
      const auto& c = declared[id];
      QCOMPARE(info.colour, c["colour"].get<std::string>());
      QCOMPARE(info.dock, c["dock"].get<std::string>());
      QCOMPARE(info.order, c["order"].get<int>());
      QCOMPARE(categoryTitle(info.category, Lang::En), c["title"]["en"].get<std::string>());
      QCOMPARE(categoryTitle(info.category, Lang::Zh), c["title"]["zh"].get<std::string>());
      QCOMPARE(categoryShortTitle(info.category, Lang::Zh), c["short"]["zh"].get<std::string>());
      QCOMPARE(report::categoryColor(info.category), c["colour"].get<std::string>());  // what the charts draw
      QVERIFY(std::any_of(docks.begin(), docks.end(), [&](const FindingDock& d) { return d.id == info.dock; }));
    }
    // Categories are listed in their families' order.
    const auto infos = categoryInfos();
    for (size_t k = 1; k < infos.size(); ++k) QVERIFY(infos[k - 1].order <= infos[k].order);
    // The training family is in the same registry.
    const auto families = ruleFamilies();
    QVERIFY(std::any_of(families.begin(), families.end(),
                        [](const RuleFamilyInfo& f) { return f.id == "training" && f.kind == "trace"; }));
  }

  // A family registered from data alone: its category has its title and colour in every report
  // writer, its phrases render in both languages.
  void familyFromDataReachesTheReports() {
    QVERIFY2(registerRuleFamily(kMemoryFamily, "memory_test.json"), "registration refused");
    const Category memory = Category::named("memory_test");
    QCOMPARE(categoryTitle(memory, Lang::Zh), std::string("内存溢出"));
    const auto docks = findingDocks();
    QVERIFY(std::any_of(docks.begin(), docks.end(), [](const FindingDock& d) { return d.id == "memory_test"; }));
    const Report r = reportWith(memory);
    QCOMPARE(r.categories.size(), size_t(1));
    QCOMPARE(renderFinding(r.findings[0], Lang::En).suggestion, std::string("Keep x in the on-chip buffer."));
    QCOMPARE(renderFinding(r.findings[0], Lang::Zh).suggestion, std::string("让 x 留在片上缓存。"));
    for (Lang lang : {Lang::En, Lang::Zh}) {
      ReportOptions o;
      o.lang = lang;
      const std::string title = categoryTitle(memory, lang);
      const std::string text = reportToText(r, o), html = reportToHtml(r, o), md = reportToMarkdown(r, o);
      for (const std::string* s : {&text, &html, &md}) QVERIFY2(s->find(title) != std::string::npos, title.c_str());
      QVERIFY(html.find("#123456") != std::string::npos);  // the category's colour in the charts
      const auto j = reportToJson(r, o);
      QCOMPARE(j["categories"][0]["category"], nlohmann::json("memory_test"));
      QCOMPARE(j["categories"][0]["label"], nlohmann::json(title));
      QCOMPARE(j["findings"][0]["params"]["where"],
               nlohmann::json(lang == Lang::Zh ? "片上缓存" : "the on-chip buffer"));
    }
    QVERIFY(!registerRuleFamily(kMemoryFamily, "again.json"));  // the same family twice
  }

  void refusesIncompleteFamilies_data() {
    QTest::addColumn<QString>("json");
    QTest::addColumn<QString>("fragment");
    QTest::newRow("not json") << "{"
                              << "malformed JSON";
    QTest::newRow("no family") << R"({"x.rule": {}})"
                               << "_family";
    QTest::newRow("no colour")
        << R"({"_family": {"id": "a1", "categories": {"a1": {"dock": "kernel", "title": {"en": "A", "zh": "甲"}}}}})"
        << "category a1: needs a colour";
    QTest::newRow("unknown dock")
        << R"({"_family": {"id": "a2", "categories": {"a2": {"colour": "#000000", "dock": "nowhere", "title": {"en": "A", "zh": "甲"}}}}})"
        << "names the dock 'nowhere'";
    QTest::newRow("no chinese title")
        << R"({"_family": {"id": "a3", "categories": {"a3": {"colour": "#000000", "dock": "kernel", "title": {"en": "A"}}}}})"
        << "needs a title in en and zh";
    QTest::newRow("category twice")
        << R"({"_family": {"id": "a4", "categories": {"fusion": {"colour": "#000000", "dock": "kernel", "title": {"en": "A", "zh": "甲"}}}}})"
        << "declared by two families";
  }
  void refusesIncompleteFamilies() {
    QFETCH(QString, json);
    QFETCH(QString, fragment);
    auto s = registerRuleFamily(json.toStdString(), "bad_family.json");
    QVERIFY(!s);
    const std::string msg = s.error().describe();
    QVERIFY2(msg.find("bad_family.json") != std::string::npos, msg.c_str());
    QVERIFY2(msg.find(fragment.toStdString()) != std::string::npos, msg.c_str());
  }

  // Rules keep their sentences in resources: no Chinese text in core's C++ sources.
  void noSentencesInCore() {
    static const std::regex cjk("[\xE4-\xE9][\x80-\xBF][\x80-\xBF]");
    for (const auto& entry : std::filesystem::recursive_directory_iterator(test::sourceDir() / "core")) {
      const auto ext = entry.path().extension();
      if (ext != ".cpp" && ext != ".h") continue;
      std::istringstream in(readFile(entry.path()));
      std::string line;
      for (int n = 1; std::getline(in, line); ++n) {
        const auto comment = line.find("//");
        const std::string code = comment == std::string::npos ? line : line.substr(0, comment);
        QVERIFY2(!std::regex_search(code, cjk),
                 (entry.path().string() + ":" + std::to_string(n) + ": " + line).c_str());
      }
    }
  }

  // Every phrase key core names (in a phrase() call, or an impact method "method.…") has its text
  // in both languages: a typo or a forgotten entry would show the key to the user.
  void everyPhraseCoreNamesHasItsTexts() {
    static const std::regex literal("\"([a-z0-9_]+(\\.[a-z0-9_]+)+)\"");
    int checked = 0;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(test::sourceDir() / "core")) {
      const auto ext = entry.path().extension();
      if (ext != ".cpp" && ext != ".h") continue;
      std::istringstream in(readFile(entry.path()));
      std::string line;
      for (int n = 1; std::getline(in, line); ++n) {
        if (line.find("//") != std::string::npos) line = line.substr(0, line.find("//"));
        const bool phraseLine = line.find("phrase(") != std::string::npos || line.find("phraseList(") != std::string::npos;
        for (std::sregex_iterator it(line.begin(), line.end(), literal), end; it != end; ++it) {
          const std::string key = (*it)[1];
          if (!phraseLine && !key.starts_with("method.")) continue;
          if (key.ends_with(".json") || key.ends_with(".h")) continue;
          ++checked;
          for (Lang lang : {Lang::En, Lang::Zh})
            QVERIFY2(hasPhrase(key, lang), (entry.path().string() + ":" + std::to_string(n) + ": no text for " + key).c_str());
        }
      }
    }
    QVERIFY2(checked > 80, std::to_string(checked).c_str());
    // A method renders in the reader's language.
    const std::string method = phrase("method.kernel.outlier", {{"peers", "7"}});
    QVERIFY(renderValue(method, Lang::En).find("7 same-type kernels") != std::string::npos);
    QVERIFY(renderValue(method, Lang::Zh).find("7 个") != std::string::npos);
  }
};

QTEST_GUILESS_MAIN(TestRuleFamilies)
#include "tst_rule_families.moc"
