// Issue 28, second pass, in core: files that are no file refused before they are opened; gzip
// inflated within its limits; event and name counts bounded, the limit named with how to lift it;
// one escaping function per output kind; JSON as a runtime writes it (raw TABs, bytes that are not
// UTF-8) made readable; per-step statistics without steps × names cells; the trace analysis'
// linear passes equal to the walks they replace; nothing the run reads written over; stale
// temporary folders swept.
#include <QtTest>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <zlib.h>

#include <fstream>
#include <random>
#include <sstream>

#include "model/onnx_io.h"
#include "model_builder.h"
#include "profile/json_file.h"
#include "profile/kineto_import.h"
#include "profile/node_mapping.h"
#include "profile/ort_trace.h"
#include "profile/profile_import.h"
#include "profile/run_trace.h"
#include "profile/trace_analysis.h"
#include "report/compare.h"
#include "test_paths.h"
#include "util/input_file.h"
#include "util/read_limits.h"
#include "util/run_files.h"
#include "util/scratch_dir.h"
#include "util/text_escape.h"
#include "util/utf8.h"

using namespace msa;
namespace fs = std::filesystem;

namespace {

void write(const fs::path& p, std::string_view bytes) {
  std::ofstream(p, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string gzip(std::string_view text) {
  z_stream z{};
  deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&z, static_cast<uLong>(text.size())) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(out.size() - z.avail_out);
  deflateEnd(&z);
  return out;
}

// Limits set for one test, the process's restored after it.
struct ScopedLimits {
  explicit ScopedLimits(const ReadLimits& l) : saved(readLimits()) { setReadLimits(l); }
  ~ScopedLimits() { setReadLimits(saved); }
  ReadLimits saved;
};

std::string kinetoKernels(int steps, int perStep, const std::function<std::string(int step, int k)>& name) {
  std::string s = "{\"schemaVersion\":1,\"traceEvents\":[";
  bool first = true;
  for (int st = 0; st < steps; ++st) {
    const long long t0 = st * 100000LL;
    s += std::string(first ? "" : ",") + "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#" + std::to_string(st) +
         "\",\"pid\":1,\"tid\":1,\"ts\":" + std::to_string(t0) + ",\"dur\":90000}";
    first = false;
    for (int k = 0; k < perStep; ++k)
      s += ",{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"" + name(st, k) + "\",\"pid\":1,\"tid\":7,\"ts\":" +
           std::to_string(t0 + 10 + k * 100) + ",\"dur\":" + std::to_string(10 + k) + "}";
  }
  return s + "]}";
}

}  // namespace

class TestUntrustedInput : public QObject {
  Q_OBJECT
  std::unique_ptr<test::TempDir> m_dir;

 private slots:
  void initTestCase() { m_dir = std::make_unique<test::TempDir>("untrusted"); }

  // ---- files that are no file ---------------------------------------------------------------

  void specialFilesAreRefusedBeforeTheyAreOpened() {
    const fs::path fifo = *m_dir / "fifo.onnx";
    QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
    const fs::path sock = *m_dir / "s.sock";
    const int sfd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", sock.c_str());
    QCOMPARE(::bind(sfd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    const fs::path zero = *m_dir / "zero.json";
    fs::create_symlink("/dev/zero", zero);
    for (const auto& [path, says] : std::vector<std::pair<fs::path, QString>>{
             {fifo, "FIFO"}, {sock, "socket"}, {zero, "character device"}, {m_dir->path(), "a folder where a file is expected"}}) {
      auto s = checkInput(path);
      QVERIFY(!s);
      QVERIFY2(QString::fromStdString(s.error().describe()).contains(says), s.error().describe().c_str());
      QVERIFY(!openInput(path));
    }
    // What reads a file refuses them at once (before, loadModel on a FIFO waited for a writer).
    auto m = loadModel(fifo);
    QVERIFY(!m);
    QVERIFY2(m.error().describe().find("FIFO") != std::string::npos, m.error().describe().c_str());
    auto p = importProfile(zero, nullptr);
    QVERIFY(!p);
    QVERIFY2(p.error().describe().find("character device") != std::string::npos, p.error().describe().c_str());
    auto t = training::loadTrainingTrace(fifo);
    QVERIFY(!t);
    QVERIFY(checkInput(m_dir->path(), InputKind::Folder));
    QVERIFY(!checkInput(*m_dir / "missing"));
    ::close(sfd);
  }

  void externalDataThatIsAFifoIsRefused() {
    test::TempDir dir("ext-fifo");
    test::ModelBuilder b("ext", 17, 3);
    auto x = b.input("x", {1, 64});
    b.output(b.relu(b.linear(x, 64)), "y");
    SaveOptions so;
    so.external = SaveOptions::External::Always;
    so.externalFileName = "w.bin";
    QVERIFY(saveModel(b.build(), dir / "model.onnx", so));
    fs::remove(dir / "w.bin");
    QCOMPARE(::mkfifo((dir / "w.bin").c_str(), 0600), 0);
    auto m = loadModel(dir / "model.onnx");
    QVERIFY(!m);
    QVERIFY2(m.error().describe().find("FIFO") != std::string::npos, m.error().describe().c_str());
  }

  // ---- compressed input -----------------------------------------------------------------------

  void gzipIsInflatedWithinItsLimits() {
    const std::string text = std::string(3 << 20, ' ') + "{\"a\": 1}";
    write(*m_dir / "ok.gz", gzip(text));
    auto ok = readMaybeCompressed(*m_dir / "ok.gz");
    QVERIFY2(ok, ok ? "" : ok.error().describe().c_str());
    QCOMPARE(*ok, text);
    // Two members (gzip a b > c) read as one file, as gunzip does.
    write(*m_dir / "two.gz", gzip("ab") + gzip("cd"));
    QCOMPARE(*readMaybeCompressed(*m_dir / "two.gz"), std::string("abcd"));
    // Cut short, or corrupt: said, never read as a clean end.
    const std::string whole = gzip(std::string(100000, 'x'));
    write(*m_dir / "cut.gz", whole.substr(0, whole.size() / 2));
    auto cut = readMaybeCompressed(*m_dir / "cut.gz");
    QVERIFY(!cut);
    QVERIFY2(cut.error().message.find("truncated") != std::string::npos, cut.error().describe().c_str());
    std::string corrupt = whole;
    for (size_t i = 20; i < 40; ++i) corrupt[i] = static_cast<char>(corrupt[i] ^ 0x5a);
    write(*m_dir / "corrupt.gz", corrupt);
    QVERIFY(!readMaybeCompressed(*m_dir / "corrupt.gz"));
    // A bomb: 3 MB of spaces from a few KB, past a 1 MiB cap and a ratio of 10.
    ReadLimits l;
    l.maxInflateRatio = 10;
    l.maxInflatedBytes = 1 << 20;
    ScopedLimits scoped(l);
    auto bomb = readMaybeCompressed(*m_dir / "ok.gz");
    QVERIFY(!bomb);
    const QString why = QString::fromStdString(bomb.error().describe());
    QVERIFY2(why.contains("inflates beyond") && why.contains("MSA_MAX_INFLATE_RATIO") && why.contains("ok.gz"), qPrintable(why));
    // A stream reader stops there too, and says the limit rather than a parse error.
    auto j = readJsonFile(*m_dir / "ok.gz");
    QVERIFY(!j);
    QVERIFY2(j.error().message.find("inflates beyond") != std::string::npos, j.error().describe().c_str());
    // Refused when opened, before a parser sees a byte: parsing a bomb up to its budget took 5 s
    // and 500 MB for a 0.9 MB file (four times as long under ASan as CI's per-run bound).
    auto opened = InputStream::open(*m_dir / "ok.gz");
    QVERIFY(!opened);
    QVERIFY2(opened.error().message.find("inflates beyond") != std::string::npos, opened.error().describe().c_str());
  }

  void readLimitsComeFromTheEnvironment() {
    qputenv("MSA_MAX_EVENTS", "1234");
    qputenv("MSA_MAX_NAMES", "56");
    auto l = readLimitsFromEnvironment();
    QVERIFY(l);
    QCOMPARE(l->maxEvents, uint64_t(1234));
    QCOMPARE(l->maxNames, uint64_t(56));
    qputenv("MSA_MAX_EVENTS", "lots");
    auto bad = readLimitsFromEnvironment();
    QVERIFY(!bad);
    QVERIFY2(bad.error().message.find("MSA_MAX_EVENTS") != std::string::npos, bad.error().message.c_str());
    qunsetenv("MSA_MAX_EVENTS");
    qunsetenv("MSA_MAX_NAMES");
  }

  // ---- counts ---------------------------------------------------------------------------------

  void eventAndNameCountsAreBounded() {
    write(*m_dir / "k.json", kinetoKernels(2, 50, [](int, int k) { return "k" + std::to_string(k); }));
    ReadLimits l;
    l.maxEvents = 60;
    {
      ScopedLimits scoped(l);
      auto t = training::loadTrainingTrace(*m_dir / "k.json");
      QVERIFY(!t);
      const QString why = QString::fromStdString(t.error().describe());
      QVERIFY2(why.contains("more than 60 events") && why.contains("--max-events") && why.contains("MSA_MAX_EVENTS"),
               qPrintable(why));
    }
    l.maxEvents = 1000;
    l.maxNames = 30;
    {
      ScopedLimits scoped(l);
      QVERIFY(training::loadTrainingTrace(*m_dir / "k.json"));
      auto p = importKineto(*m_dir / "k.json", nullptr);
      QVERIFY(!p);
      QVERIFY2(p.error().message.find("--max-names") != std::string::npos, p.error().describe().c_str());
    }
    QVERIFY(importKineto(*m_dir / "k.json", nullptr));
  }

  // A name present in some steps only counts 0 in the others: the same statistics as the dense
  // steps × names table, without it.
  void perStepStatisticsAreSparse() {
    std::mt19937 rng(7);
    for (int trial = 0; trial < 200; ++trial) {
      std::vector<double> dense(rng() % 12);
      std::vector<double> present;
      for (double& d : dense)
        if (rng() % 3) present.push_back(d = (rng() % 1000) / 7.0);
      const Stats a = Stats::of(dense), b = Stats::withZeros(present, dense.size() - present.size());
      QCOMPARE(b.count, a.count);
      for (auto f : {&Stats::median, &Stats::p10, &Stats::p90, &Stats::mean, &Stats::min, &Stats::max})
        QVERIFY(std::abs(a.*f - b.*f) < 1e-9);
    }
    // 400 steps, a kernel name of their own each, and one in every step.
    write(*m_dir / "sparse.json", kinetoKernels(400, 2, [](int step, int k) { return k ? "k" + std::to_string(step) : std::string("every"); }));
    auto p = importKineto(*m_dir / "sparse.json", nullptr);
    QVERIFY(p);
    QCOMPARE(p->iterations, 400);
    const NodeProfile* every = p->find("every");
    const NodeProfile* once = p->find("k17");
    QVERIFY(every && once);
    QCOMPARE(every->timeMs.median, 0.010);
    QCOMPARE(once->timeMs.median, 0.0);
    QCOMPARE(once->timeMs.max, 0.011);
    QCOMPARE(once->timeMs.count, 400);
  }

  // ---- numbers that cannot be true --------------------------------------------------------------

  void impossibleDurationsAreRefused() {
    QVERIFY(!durationProblem(1e308).empty());
    QVERIFY(!durationProblem(-1).empty());
    QVERIFY(durationProblem(3.6e6).empty());  // an hour
    auto t = parseOrtTrace(R"([{"cat":"Node","name":"a_kernel_time","ph":"X","ts":1,"dur":1e308,"args":{}}])", "t.json");
    QVERIFY(!t);
    QVERIFY2(t.error().message.find("longer than a year") != std::string::npos, t.error().message.c_str());
    std::string kineto = kinetoKernels(1, 1, [](int, int) { return std::string("k"); });
    kineto.replace(kineto.find("\"dur\":10"), 8, "\"dur\":1e300");
    auto c = training::parseChromeTrace(kineto, "c.json");
    QVERIFY(!c);
    QVERIFY2(c.error().message.find("longer than a year") != std::string::npos, c.error().message.c_str());
  }

  // ---- what a runtime writes ----------------------------------------------------------------------

  void rawControlCharactersAndBytesInJsonAreRead() {
    // ONNX Runtime writes node names as they are: a TAB inside a string, bytes that are not UTF-8.
    const std::string text = "[{\"cat\":\"Session\",\"name\":\"model_run\",\"ph\":\"X\",\"ts\":1,\"dur\":100,\"args\":{}},"
                             "{\"cat\":\"Node\",\"name\":\"a\tb\xff\x1b[2J_kernel_time\",\"ph\":\"X\",\"ts\":2,\"dur\":5,\"args\":{}}]";
    write(*m_dir / "raw.json", text);
    auto t = loadOrtTrace(*m_dir / "raw.json");
    QVERIFY2(t, t ? "" : t.error().describe().c_str());
    QCOMPARE(t->kernels.size(), size_t(1));
    QCOMPARE(t->kernels[0].node, std::string("a\tb\xff\x1b[2J"));
    auto fromText = parseOrtTrace(text, "raw.json");
    QVERIFY(fromText);
    QCOMPARE(fromText->kernels[0].node, t->kernels[0].node);
    // A sequence cut between two chunks of the stream is still one character.
    std::string longName(32767 - 60, 'n');
    longName += "\xc3\xa9";
    const std::string split = "[{\"cat\":\"Node\",\"name\":\"" + longName + "_kernel_time\",\"ph\":\"X\",\"ts\":2,\"dur\":5}]";
    write(*m_dir / "split.json", split);
    auto s = loadOrtTrace(*m_dir / "split.json");
    QVERIFY(s);
    QCOMPARE(s->kernels[0].node, longName);
  }

  // The runtime profiles a model whose nodes it knows as __msa<k>__; what it names is turned back.
  void runtimeNamesRoundTrip() {
    test::ModelBuilder b("names", 17, 3);
    b.output(b.relu(b.input("x", {1, 4})), "y");
    Model m = b.build();
    m.graph.nodes.clear();
    Node n1;
    n1.name = "a\tb\"c";
    n1.opType = "Relu";
    n1.inputs = {"x"};
    n1.outputs = {"h"};
    Node n2 = n1;
    n2.name = "second \x1b[2J";
    n2.inputs = {"h"};
    n2.outputs = {"y"};
    m.graph.nodes = {n1, n2};
    const RuntimeNames names(m);
    QCOMPARE(names.model().graph.nodes[0].name, std::string("__msa0__"));
    QCOMPARE(names.original("__msa1__/MatMulAddFusion"), std::string("second \x1b[2J/MatMulAddFusion"));
    QCOMPARE(names.original("x__msa0____msa1__y"), std::string("xa\tb\"csecond \x1b[2Jy"));
    QCOMPARE(names.original("__msa9__ __msa __msa1"), std::string("__msa9__ __msa __msa1"));  // not ours: as it is
  }

  // ---- one escaping function per output kind --------------------------------------------------------

  void escapingPerOutputKind() {
    const std::string name = "n\x1b[2J\x1b]0;t\x07\xc2\x9b" "1m\xe2\x80\xaeR\nFAKE <script>[x](javascript:y)\xff";
    const std::string t = terminalText(name);
    QCOMPARE(t, std::string("n\\x1b[2J\\x1b]0;t\\x07\\u009b1m\\u202eR\\x0aFAKE <script>[x](javascript:y)\\xff"));
    QCOMPARE(terminalText("plain name/with:stuff 中文"), std::string("plain name/with:stuff 中文"));
    const std::string md = markdownText(name);
    QVERIFY(md.find("<script") == std::string::npos && md.find("](") == std::string::npos && md.find('\x1b') == std::string::npos);
    QVERIFY2(md.find("&lt;script&gt;") != std::string::npos, md.c_str());
    const std::string code = markdownCode("a`b|c\n");
    QCOMPARE(code, std::string("`a'b\\|c\\x0a`"));
    const std::string html = htmlText(name);
    QVERIFY(html.find("<script") == std::string::npos && html.find('\x1b') == std::string::npos);
    QVERIFY(html.find("&lt;script&gt;") != std::string::npos);
    // Messages are shown the same way.
    QCOMPARE(Error::model("bad", name).describe().find('\x1b'), std::string::npos);
  }

  // ---- the trace analysis: one pass where there were walks ---------------------------------------

  // Launch operators and recursive calls on random nested traces, against the walk up the parents
  // the analysis did before (quadratic on a deep trace).
  void linearPassesEqualTheWalks() {
    std::mt19937 rng(11);
    for (int trial = 0; trial < 30; ++trial) {
      training::TrainingTrace t;
      t.threads = {{"host", false}, {"dev", true}};
      const char* names[] = {"aten::a", "aten::b", "aten::mm", "ProfilerStep#1"};
      std::function<void(double, double, int)> add = [&](double lo, double hi, int depth) {
        for (double ts = lo; ts + 2 < hi && t.events.size() < 400;) {
          const double dur = 1 + std::uniform_real_distribution<double>(0, hi - ts - 1)(rng);
          training::TraceEvent e;
          e.kind = rng() % 5 ? training::EventKind::CpuOp : training::EventKind::Annotation;
          e.name = names[rng() % 3];
          e.tsUs = ts;
          e.durUs = dur;
          e.thread = 0;
          t.events.push_back(e);
          if (depth < 6 && dur > 4) add(ts + 1, ts + dur - 1, depth + 1);
          ts += dur + std::uniform_real_distribution<double>(0, 3)(rng);
        }
      };
      add(0, 1000, 0);
      for (int k = 0; k < 100; ++k) {
        training::TraceEvent d;
        d.kind = training::EventKind::Kernel;
        d.name = "kern";
        d.thread = 1;
        d.launchThread = 0;
        d.launchTsUs = std::uniform_real_distribution<double>(0, 1000)(rng);
        d.tsUs = d.launchTsUs + 1;
        d.durUs = 1;
        t.events.push_back(d);
      }
      training::finalizeTrace(t);
      const training::TrainingProfile p = training::analyzeTrace(t);
      for (size_t i = 0; i < t.events.size(); ++i) {
        const training::TraceEvent& e = t.events[i];
        if (!e.onDevice()) continue;
        // The walk: from the last host event starting at or before the launch, up to a CpuOp holding it.
        int last = -1;
        for (size_t j = 0; j < t.events.size(); ++j)
          if (t.events[j].onHost() && t.events[j].thread == 0 && t.events[j].tsUs <= e.launchTsUs) last = static_cast<int>(j);
        int want = -1;
        for (int q = last; q >= 0; q = t.events[static_cast<size_t>(q)].parent) {
          const training::TraceEvent& h = t.events[static_cast<size_t>(q)];
          if (h.kind == training::EventKind::CpuOp && e.launchTsUs >= h.tsUs && e.launchTsUs <= h.endUs()) {
            want = q;
            break;
          }
        }
        QCOMPARE(p.launchOp[i], want);
      }
      // Inclusive time counts a recursive call once: the walk's definition.
      std::map<std::string, double> total;
      for (size_t i = 0; i < t.events.size(); ++i) {
        const training::TraceEvent& e = t.events[i];
        if (e.kind != training::EventKind::CpuOp || e.step < 0) continue;
        bool recursive = false;
        for (int q = e.parent; q >= 0 && !recursive; q = t.events[static_cast<size_t>(q)].parent)
          recursive = t.events[static_cast<size_t>(q)].name == e.name;
        if (!recursive) total[e.name] += e.durUs;
      }
      for (const training::OpTime& op : p.ops)
        QVERIFY(std::abs(op.totalMs - total[op.name] / 1000.0 / static_cast<double>(p.steps.size())) < 1e-9);
    }
  }

  // ---- nothing the run reads is written over -------------------------------------------------------

  void reportWritersNeverWriteOverTheirInputs() {
    test::TempDir dir("no-overwrite");
    write(dir / "profile.json", "{\"nodes\": []}");
    fs::create_hard_link(dir / "profile.json", dir / "hard.md");
    ReadFiles reads;
    reads.add(dir / "profile.json", "the profile");
    auto s = writeOutputFile(reads, dir / "hard.md", "# report");
    QVERIFY(!s);
    QVERIFY2(s.error().message.find("the profile") != std::string::npos, s.error().message.c_str());
    QVERIFY(writeOutputFile(reads, dir / "report.md", "# report"));
    std::ifstream in(dir / "profile.json");
    QCOMPARE(std::string(std::istreambuf_iterator<char>(in), {}), std::string("{\"nodes\": []}"));
  }

  // ---- compare refuses before it reads -------------------------------------------------------------

  void compareRefusesWhatItCannotUse() {
    write(*m_dir / "trace.json", kinetoKernels(5, 20, [](int, int k) { return "k" + std::to_string(k); }));
    auto s = checkTimingTableFile(*m_dir / "trace.json");
    QVERIFY(!s);
    QVERIFY2(s.error().message.find("no \"nodes\" array") != std::string::npos, s.error().message.c_str());
    write(*m_dir / "report.json", R"({"latency_ms": {"median": 3}, "nodes": [{"name": "a", "median_ms": 1}, {"name": "b", "median_ms": 2}]})");
    auto t = readTimingTable(*m_dir / "report.json");
    QVERIFY(t);
    QCOMPARE(t->totalMs, 3.0);
    QCOMPARE(t->nodes.size(), size_t(2));
  }

  // ---- temporary folders ------------------------------------------------------------------------------

  void staleTemporaryFoldersAreSwept() {
    test::TempDir tmp("sweep");
    const fs::path dead = tmp / "msadvisor-profile-dead";
    fs::create_directories(dead);
    write(dead / ".msadvisor-owner", "999999999 12345\n");  // no such process
    write(dead / "ort_profile.json", std::string(1000, 'x'));
    const fs::path foreign = tmp / "msadvisor-notes";  // no owner file: not ours to remove
    fs::create_directories(foreign);
    QCOMPARE(sweepStaleScratchDirs(tmp.path()), 1);
    QVERIFY(!fs::exists(dead));
    QVERIFY(fs::exists(foreign));
    qputenv("TMPDIR", QByteArray::fromStdString(tmp.path().string()));
    {
      ScratchDir live;
      QVERIFY(!live.path().empty());
      QCOMPARE(sweepStaleScratchDirs(tmp.path()), 0);  // its owner (this process) is running
      QVERIFY(fs::exists(live.path()));
    }
    qunsetenv("TMPDIR");
  }
};

QTEST_GUILESS_MAIN(TestUntrustedInput)
#include "tst_untrusted_input.moc"
