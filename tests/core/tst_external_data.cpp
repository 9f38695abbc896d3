// Large external weights are mapped, not read: loading (and shape inference) of a model whose
// initializer lives in a 384 MB external file grows the peak RSS by a small fraction of that.
#include <QtTest>

#include <fcntl.h>
#include <unistd.h>

#include <fstream>

#include "model/graph_index.h"
#include "model/onnx_io.h"
#include "model/shape_inference.h"
#include "model_builder.h"
#include "proto_edit.h"
#include "test_paths.h"

using namespace msa;
namespace fs = std::filesystem;

namespace {

int64_t statusKb(const char* key) {  // a "VmRSS:"-style line of /proc/self/status, in kB
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(key, 0) == 0) return std::stoll(line.substr(std::strlen(key)));
  return -1;
}

// Resets the peak RSS (VmHWM) to the current RSS; false where the kernel does not support it.
bool resetPeakRss() {
  int fd = ::open("/proc/self/clear_refs", O_WRONLY);
  if (fd < 0) return false;
  bool ok = ::write(fd, "5", 1) == 1;
  ::close(fd);
  return ok;
}

constexpr int64_t kElements = int64_t(96) << 20;  // 96 Mi floats = 384 MiB

}  // namespace

class TestExternalData : public QObject {
  Q_OBJECT
 private slots:
  void largeExternalWeightsAreMappedNotRead() {
    test::TempDir dir("bigext");
    // The weights: a sparse file, so the test costs no disk and no time to write.
    const fs::path data = dir / "weights.bin";
    {
      int fd = ::open(data.c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0644);
      QVERIFY(fd >= 0);
      QCOMPARE(::ftruncate(fd, kElements * 4), 0);
      ::close(fd);
    }
    // y = x * w with w [kElements] external; built small, then pointed at the big file.
    test::ModelBuilder b("big", 17);
    auto x = b.input("x", {4});
    b.output(b.mul(x, b.weight("w", {4}, 1.0)), "y");
    Model small = b.build();
    small.graph.inputs[0].type = TypeInfo::tensor(DType::Float, Shape{kElements});
    small.graph.outputs[0].type = TypeInfo::tensor(DType::Float, Shape{kElements});
    std::string bytes = test::editModel(*serializeModel(small), [&](onnx::ModelProto& mp) {
      test::makeExternal(mp, "w", {kElements},
                         {{"location", "weights.bin"}, {"offset", "0"}, {"length", std::to_string(kElements * 4)}});
    });
    std::ofstream(dir / "big.onnx", std::ios::binary) << bytes;

    if (!resetPeakRss()) QSKIP("this kernel cannot reset the peak RSS (/proc/self/clear_refs)");
    const int64_t before = statusKb("VmHWM:");
    auto m = loadModel(dir / "big.onnx");
    QVERIFY2(m.ok(), m.ok() ? "" : m.error().describe().c_str());
    auto shapes = inferShapes(*m);
    QVERIFY(shapes.ok());
    GraphIndex idx(m->graph);
    QCOMPARE(idx.shape("y")->str(), "[" + std::to_string(kElements) + "]");
    const int64_t growthKb = statusKb("VmHWM:") - before;
    const int64_t fileKb = kElements * 4 / 1024;
    qInfo("peak RSS grew by %lld kB while loading a model with %lld kB of external weights (%.4f)",
          static_cast<long long>(growthKb), static_cast<long long>(fileKb), double(growthKb) / double(fileKb));
    // Reading the weights would grow it by the file size; sanitizer builds add some MB of their own.
    QVERIFY2(growthKb * 10 < fileKb, "the external weights were read, not mapped");

    // The bytes are there when asked for (and only then).
    const Tensor* w = m->graph.findInitializer("w");
    QVERIFY(w && w->external);
    QCOMPARE(static_cast<int64_t>(w->raw().size()), kElements * 4);
    QCOMPARE(w->raw()[kElements * 4 - 1], '\0');
  }
};

QTEST_GUILESS_MAIN(TestExternalData)
#include "tst_external_data.moc"
