// Inputs for running a model: seeded random values the graph can use, .npy parsing, and loading
// a folder of .pb / .npy files with clear errors for bad ones.
#include <QtTest>

#include <algorithm>
#include <fstream>
#include <set>

#include "model/onnx_io.h"
#include "profile/model_inputs.h"
#include "profile/npy.h"
#include "profile/ort_session.h"
#include "test_paths.h"

using namespace msa;
namespace fs = std::filesystem;

namespace {

// ids -> Gather(embedding[vocab, 8]); mask -> Equal(mask, 0) -> Where; sr -> Equal(sr, 16000);
// x float with a symbolic batch dim.
Model textModel(int64_t vocab) {
  Model m;
  m.opsets.push_back({"", 17});
  Graph& g = m.graph;
  g.inputs.push_back({"input_ids", TypeInfo::tensor(DType::Int64, Shape{2, 16}), {}, {}});
  g.inputs.push_back({"attention_mask", TypeInfo::tensor(DType::Int64, Shape{2, 16}), {}, {}});
  g.inputs.push_back({"sr", TypeInfo::tensor(DType::Int64, Shape{}), {}, {}});
  Shape xs{0, 8};
  xs.dims[0] = Dim{-1, "batch"};
  g.inputs.push_back({"x", TypeInfo::tensor(DType::Float, xs), {}, {}});
  g.initializers.push_back(Tensor::fromValues("emb", DType::Float, {vocab, 8}, std::vector<float>(static_cast<size_t>(vocab * 8), 0.5f)));
  g.initializers.push_back(Tensor::fromValues("zero", DType::Int64, {}, std::vector<int64_t>{0}));
  g.initializers.push_back(Tensor::fromValues("rate", DType::Int64, {}, std::vector<int64_t>{16000}));
  auto add = [&](std::string op, std::vector<std::string> in, std::vector<std::string> out) {
    Node n;
    n.opType = std::move(op);
    n.inputs = std::move(in);
    n.outputs = std::move(out);
    g.addNode(n);
  };
  add("Gather", {"emb", "input_ids"}, {"e"});
  add("Equal", {"attention_mask", "zero"}, {"pad"});
  add("Equal", {"sr", "rate"}, {"is16k"});
  add("ReduceSum", {"e"}, {"s"});
  add("ReduceSum", {"x"}, {"xs"});
  g.outputs.push_back({"e", TypeInfo::tensor(DType::Float, Shape{2, 16, 8}), {}, {}});
  g.outputs.push_back({"pad", TypeInfo::tensor(DType::Bool, Shape{2, 16}), {}, {}});
  g.outputs.push_back({"is16k", TypeInfo::tensor(DType::Bool, Shape{}), {}, {}});
  g.outputs.push_back({"xs", TypeInfo::tensor(DType::Float, Shape{1, 1}), {}, {}});
  return m;
}

const Tensor& byName(const std::vector<Tensor>& ts, const std::string& n) {
  return *std::find_if(ts.begin(), ts.end(), [&](const Tensor& t) { return t.name == n; });
}

void writeFile(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace

class TestModelInputs : public QObject {
  Q_OBJECT
 private slots:
  void integerInputsFollowTheirUse() {
    InputOptions o;
    o.dims["batch"] = 3;
    std::vector<InputPlan> plan;
    auto in = makeRandomInputs(textModel(100), o, &plan);
    QVERIFY2(in.ok(), in.ok() ? "" : in.error().describe().c_str());
    QCOMPARE(in->size(), size_t(4));
    // Token ids stay below the vocabulary and use it.
    auto ids = byName(*in, "input_ids").toInt64();
    QCOMPARE(ids.size(), size_t(32));
    QVERIFY(*std::min_element(ids.begin(), ids.end()) >= 0);
    QVERIFY(*std::max_element(ids.begin(), ids.end()) < 100);
    QVERIFY(*std::max_element(ids.begin(), ids.end()) >= 50);
    // A padding mask: each row ones then zeros, never empty.
    auto mask = byName(*in, "attention_mask").toInt64();
    for (size_t row = 0; row < 2; ++row) {
      QCOMPARE(mask[row * 16], int64_t(1));
      for (size_t k = 1; k < 16; ++k) QVERIFY(mask[row * 16 + k] <= mask[row * 16 + k - 1]);
    }
    // The sample rate the model checks for.
    QCOMPARE(byName(*in, "sr").toInt64(), std::vector<int64_t>{16000});
    QCOMPARE(byName(*in, "x").dims, (std::vector<int64_t>{3, 8}));
    QCOMPARE(plan.size(), size_t(4));
    QVERIFY(plan[0].rule.find("[0, 100)") != std::string::npos);
    QVERIFY(plan[0].rule.find("Gather") != std::string::npos);
    QVERIFY(plan[1].rule.find("mask") != std::string::npos);
    QCOMPARE(plan[3].rule, std::string("N(0,1)"));
    // And the runtime accepts them.
    auto s = OrtSession::create(textModel(100));
    QVERIFY(s.ok());
    auto out = s->run(*in);
    QVERIFY2(out.ok(), out.ok() ? "" : out.error().describe().c_str());
    QCOMPARE((*out)[2].tensor.toInt64(), std::vector<int64_t>{1});
  }

  void sameSeedSameValues() {
    InputOptions o;
    o.dims["batch"] = 1;
    auto a = makeRandomInputs(textModel(50), o);
    auto b = makeRandomInputs(textModel(50), o);
    o.seed = 99;
    auto c = makeRandomInputs(textModel(50), o);
    QVERIFY(a.ok() && b.ok() && c.ok());
    QCOMPARE(byName(*a, "x").raw(), byName(*b, "x").raw());
    QCOMPARE(byName(*a, "input_ids").raw(), byName(*b, "input_ids").raw());
    QVERIFY(byName(*a, "x").raw() != byName(*c, "x").raw());
    o.floatFill = InputOptions::FloatFill::Uniform;
    auto u = makeRandomInputs(textModel(50), o);
    for (double v : byName(*u, "x").toDouble()) QVERIFY(v >= -1 && v <= 1);
  }

  void unboundDimsAreNamed() {
    auto in = makeRandomInputs(textModel(10), {});
    QVERIFY(!in.ok());
    QCOMPARE(in.error().kind, ErrorKind::Usage);
    QVERIFY2(in.error().message.find("--dim batch=1") != std::string::npos, in.error().message.c_str());
    InputOptions byAxis;
    byAxis.dims["x:0"] = 5;
    auto ok = makeRandomInputs(textModel(10), byAxis);
    QVERIFY(ok.ok());
    QCOMPARE(byName(*ok, "x").dims[0], int64_t(5));
  }

  void npyRoundTrip_data() {
    QTest::addColumn<int>("dtype");
    QTest::newRow("float") << int(DType::Float);
    QTest::newRow("int64") << int(DType::Int64);
    QTest::newRow("bool") << int(DType::Bool);
    QTest::newRow("float16") << int(DType::Float16);
    QTest::newRow("uint8") << int(DType::UInt8);
  }

  void npyRoundTrip() {
    QFETCH(int, dtype);
    Tensor t;
    t.dtype = static_cast<DType>(dtype);
    t.dims = {2, 3};
    std::string bytes(static_cast<size_t>(6 * dtypeSize(t.dtype)), '\0');
    for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>((i * 7) & (t.dtype == DType::Bool ? 1 : 0x7f));
    t.data = TensorBytes::owned(bytes);
    auto npy = toNpy(t);
    QVERIFY(npy.ok());
    QCOMPARE((10 + static_cast<unsigned char>((*npy)[8])) % 64, 0);  // header padded to 64 bytes
    auto back = parseNpy(*npy, "t.npy");
    QVERIFY2(back.ok(), back.ok() ? "" : back.error().describe().c_str());
    QCOMPARE(back->dtype, t.dtype);
    QCOMPARE(back->dims, t.dims);
    QCOMPARE(back->raw(), t.raw());
  }

  void npyBigEndianAndScalars() {
    // '>i4' shape (2,): 1, 258 big-endian.
    std::string header = "{'descr': '>i4', 'fortran_order': False, 'shape': (2,), }";
    header.append(64 - (10 + header.size() + 1) % 64, ' ');
    header += '\n';
    std::string f = std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(header.size()) + '\0' + header +
                    std::string("\0\0\0\x01\0\0\x01\x02", 8);
    auto t = parseNpy(f, "be.npy");
    QVERIFY2(t.ok(), t.ok() ? "" : t.error().describe().c_str());
    QCOMPARE(t->toInt64(), (std::vector<int64_t>{1, 258}));
    Tensor scalar = Tensor::fromValues("s", DType::Double, {}, std::vector<double>{2.5});
    auto s = parseNpy(*toNpy(scalar), "s.npy");
    QVERIFY(s.ok());
    QVERIFY(s->dims.empty());
    QCOMPARE(s->toDouble(), std::vector<double>{2.5});
  }

  void malformedNpy_data() {
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("fragment");
    auto file = [](std::string dict, std::string data) {
      std::string h = dict + "\n";
      return QByteArray::fromStdString(std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(h.size()) + '\0' + h + data);
    };
    QTest::newRow("magic") << QByteArray("PK\x03\x04 not numpy") << "magic bytes";
    QTest::newRow("version") << QByteArray::fromStdString(std::string("\x93NUMPY\x09\x00\x00\x00", 10)) << "format version 9";
    QTest::newRow("header past end") << QByteArray::fromStdString(std::string("\x93NUMPY\x01\x00\xff\x00{", 11)) << "runs past the end";
    QTest::newRow("strings") << file("{'descr': '<U5', 'fortran_order': False, 'shape': (1,), }", std::string(20, 'a')) << "'<U5' is not supported";
    QTest::newRow("objects") << file("{'descr': '|O', 'fortran_order': False, 'shape': (1,), }", std::string(8, 'a')) << "is not supported";
    QTest::newRow("fortran") << file("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", std::string(16, '\0')) << "Fortran order";
    QTest::newRow("truncated") << file("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", std::string(20, '\0'))
                               << "holds 20 bytes, its shape [2,3] of float needs 24";
    QTest::newRow("no shape") << file("{'descr': '<f4', 'fortran_order': False, }", "") << "no 'shape'";
    QTest::newRow("bad shape") << file("{'descr': '<f4', 'fortran_order': False, 'shape': (a,), }", "") << "other than integers";
  }

  void malformedNpy() {
    QFETCH(QByteArray, bytes);
    QFETCH(QString, fragment);
    auto t = parseNpy(std::string_view(bytes.constData(), static_cast<size_t>(bytes.size())), "in.npy");
    QVERIFY(!t.ok());
    QCOMPARE(t.error().kind, ErrorKind::Model);
    QVERIFY2(t.error().describe().find(fragment.toStdString()) != std::string::npos, t.error().describe().c_str());
  }

  // ONNX's own test data: input_0.pb is a TensorProto, matched to the first runtime input.
  void loadsOnnxTestData() {
    const fs::path dir = test::onnxTestData() / "node" / "test_add";
    if (!fs::exists(dir)) QSKIP("libonnx-testdata is not installed");
    auto m = loadModel(dir / "model.onnx");
    QVERIFY(m.ok());
    auto in = loadInputs(*m, dir / "test_data_set_0");
    QVERIFY2(in.ok(), in.ok() ? "" : in.error().describe().c_str());
    QCOMPARE(in->size(), size_t(2));
    QCOMPARE((*in)[0].name, std::string("x"));
    QCOMPARE((*in)[0].tensor.dims, (std::vector<int64_t>{3, 4, 5}));
    auto s = OrtSession::create(*m);
    QVERIFY(s.ok());
    auto out = s->run(*in);
    QVERIFY(out.ok());
    auto ref = loadDataValue(dir / "test_data_set_0" / "output_0.pb", TypeInfo::Kind::Tensor);
    QVERIFY(ref.ok());
    QCOMPARE((*out)[0].tensor.toDouble(), ref->tensor.toDouble());
  }

  // .npy files named after the inputs (with '/' and ':' written as '_').
  void loadsNpyByName() {
    test::TempDir dir("npyin");
    Model m = textModel(10);
    m.graph.inputs[3].name = "img/x:0";
    m.graph.nodes.back().inputs[0] = "img/x:0";
    InputOptions o;
    o.dims["batch"] = 2;
    auto made = makeRandomInputs(m, o);
    QVERIFY(made.ok());
    for (const Tensor& t : *made) {
      std::string stem = t.name == "img/x:0" ? "img_x_0" : t.name;
      writeFile(dir / (stem + ".npy"), *toNpy(t));
    }
    auto in = loadInputs(m, dir.path(), o);
    QVERIFY2(in.ok(), in.ok() ? "" : in.error().describe().c_str());
    QCOMPARE(in->size(), size_t(4));
    for (size_t i = 0; i < 4; ++i) {
      QCOMPARE((*in)[i].name, (*made)[i].name);
      QCOMPARE((*in)[i].tensor.raw(), (*made)[i].raw());
    }
  }

  void badInputFolders_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("fragment");
    Tensor wrongShape = Tensor::fromValues("x", DType::Float, {4, 8}, std::vector<float>(32, 1.0f));
    Tensor wrongType = Tensor::fromValues("x", DType::Int32, {2, 8}, std::vector<int32_t>(16, 1));
    QTest::newRow("missing") << "" << QByteArray() << "no file for input 'input_ids'";
    QTest::newRow("shape") << "x.npy" << QByteArray::fromStdString(*toNpy(wrongShape)) << "input 'x' is float[batch,8] but the file holds float[4,8]";
    QTest::newRow("dtype") << "x.npy" << QByteArray::fromStdString(*toNpy(wrongType)) << "but the file holds int32[2,8]";
    QTest::newRow("garbage pb") << "x.pb" << QByteArray("\xff\xff\xff\xff\xff") << "not a serialized onnx.TensorProto";
    QTest::newRow("empty pb") << "x.pb" << QByteArray() << "not a serialized onnx.TensorProto";
  }

  void badInputFolders() {
    QFETCH(QString, file);
    QFETCH(QByteArray, bytes);
    QFETCH(QString, fragment);
    test::TempDir dir("badin");
    Model m = textModel(10);
    InputOptions o;
    o.dims["batch"] = 2;
    auto made = makeRandomInputs(m, o);
    if (!file.isEmpty()) {
      for (const Tensor& t : *made)
        if (t.name != "x") writeFile(dir / (t.name + ".npy"), *toNpy(t));
      writeFile(dir / file.toStdString(), bytes.toStdString());
    }
    auto in = loadInputs(m, dir.path(), o);
    QVERIFY(!in.ok());
    QCOMPARE(in.error().kind, ErrorKind::Model);
    QVERIFY2(in.error().describe().find(fragment.toStdString()) != std::string::npos, in.error().describe().c_str());
    QVERIFY(!loadInputs(m, dir / "nowhere", o).ok());
  }
};

QTEST_GUILESS_MAIN(TestModelInputs)
#include "tst_model_inputs.moc"
