// Weights inline in the model file are copied out of the mapping and its pages given back as the
// import goes (the peak stays near the model's size), in a few large batches: one madvise per
// weight was a TLB shootdown each, 10 % of `msadvisor-cli info` on a 50k-node model (issue 30).
#include <QtTest>

#include <fstream>
#include <regex>

#include "large_models.h"
#include "model/onnx_io.h"
#include "sanitizers.h"
#include "test_paths.h"

using namespace msa;
namespace fs = std::filesystem;

namespace {

int64_t statusKb(const char* key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(key, 0) == 0) return std::stoll(line.substr(std::strlen(key)));
  return -1;
}

// A Llama-like decoder of 10k nodes with its ~1,100 weights inline (random: real pages).
tools::Written writeModel(const fs::path& path) {
  tools::WriteOptions o;
  o.storage = tools::Storage::Inline;
  o.fill = tools::Fill::Random;
  auto w = tools::writeLlama(tools::llamaFor({10000, 0}, o), o, path);
  if (!w) qFatal("%s", w.error().describe().c_str());
  return *w;
}

}  // namespace

class TestImportPages : public QObject {
  Q_OBJECT
 private slots:
  // The system calls the CLI makes on the file, counted by strace: a handful, not one per weight.
  void filePagesAreGivenBackInBatches() {
    if (std::system("strace -V > /dev/null 2>&1") != 0) QSKIP("strace is not installed");
    if (test::kSanitized) QSKIP("LeakSanitizer stops a process traced by strace (ptrace)");
    test::TempDir dir("importpages");
    const tools::Written w = writeModel(dir / "llama.onnx");
    int bigWeights = 0;  // weights of two pages or more: each had its own madvise before
    auto m = loadModel(w.model);
    QVERIFY(m.ok());
    for (const Tensor& t : m->graph.initializers) bigWeights += t.raw().size() >= 8192;
    QVERIFY2(bigWeights > 200, std::to_string(bigWeights).c_str());

    // Only the calls on the file's mapping count: the allocator (jemalloc in the applications)
    // gives its own pages back with madvise too.
    const fs::path log = dir / "strace.log";
    const std::string cmd = "strace -f -e trace=openat,mmap,munmap,madvise -o '" + log.string() + "' '" +
                            test::cliPath().string() + "' info '" + w.model.string() + "' > /dev/null 2>&1";
    QCOMPARE(std::system(cmd.c_str()), 0);
    std::ifstream in(log);
    const std::string quoted = "\"" + w.model.string() + "\"";
    const std::regex opened("\\) = ([0-9]+)$");
    const std::regex mapped("mmap\\([^,]*, ([0-9]+), [^,]*, [^,]*, ([0-9]+), 0\\) = (0x[0-9a-f]+)");
    const std::regex advised("madvise\\((0x[0-9a-f]+),");
    const std::regex unmapped("munmap\\((0x[0-9a-f]+),");
    std::string fd;
    uint64_t base = 0, length = 0;
    int calls = 0;
    for (std::string line; std::getline(in, line);) {
      std::smatch m;
      if (fd.empty() && line.find("openat(") != std::string::npos && line.find(quoted) != std::string::npos &&
          std::regex_search(line, m, opened))
        fd = m[1];
      else if (!fd.empty() && !base && std::regex_search(line, m, mapped) && m[2] == fd) {
        length = std::stoull(m[1]);
        base = std::stoull(m[3], nullptr, 16);
      } else if (base && std::regex_search(line, m, advised)) {
        const uint64_t at = std::stoull(m[1], nullptr, 16);
        calls += at >= base && at < base + length;
      } else if (base && std::regex_search(line, m, unmapped) && std::stoull(m[1], nullptr, 16) == base) {
        break;  // the allocator may map and advise the same addresses afterwards
      }
    }
    QVERIFY2(base, "strace shows no mapping of the model file");
    const int64_t batches = w.modelFileBytes / (8 << 20) + 1;
    qInfo("%d madvise calls for a %.1f MB file with %d weights of 8 kB or more", calls, w.modelFileBytes / 1e6,
          bigWeights);
    // MADV_SEQUENTIAL and the final MADV_DONTNEED of the whole file, plus one per 8 MB batch.
    QVERIFY2(calls >= 2 && calls <= 2 + batches, std::to_string(calls).c_str());
  }

  // ... the weights arrive intact (pages given back and read again fault back in from the file)
  // and none of the file's pages stay resident after the import.
  void weightsAreTheFileBytesAndThePagesGoBack() {
    test::TempDir dir("importpages");
    const tools::Written w = writeModel(dir / "llama.onnx");
    const int64_t before = statusKb("RssFile:");
    auto m = loadModel(w.model);
    QVERIFY(m.ok());
    const int64_t growthKb = statusKb("RssFile:") - before, fileKb = w.modelFileBytes / 1024;
    qInfo("file pages resident after the import: %lld kB more, for a %lld kB file", static_cast<long long>(growthKb),
          static_cast<long long>(fileKb));
    QVERIFY2(growthKb < fileKb / 10, "the model file's pages stayed resident after the import");
    // The copies are the file's bytes: the same import from the bytes in memory (nothing given back).
    std::ifstream f(w.model, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    auto inMemory = loadModelFromBytes(bytes, dir.path());
    QVERIFY(inMemory.ok());
    QCOMPARE(m->graph.initializers.size(), inMemory->graph.initializers.size());
    for (size_t i = 0; i < m->graph.initializers.size(); ++i)
      QVERIFY2(m->graph.initializers[i].raw() == inMemory->graph.initializers[i].raw(),
               m->graph.initializers[i].name.c_str());
  }
};

QTEST_GUILESS_MAIN(TestImportPages)
#include "tst_import_pages.moc"
