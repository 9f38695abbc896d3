// Robustness: deterministic corruptions of real corpus files go through the importer, shape
// inference, the index and the exporter. Every outcome must be a clean Result (an error that
// names the source, or a model); a crash or a hang fails the test (the name of the case being
// run is printed first, so a crash log says which one).
#include <QtTest>

#include <fstream>
#include <set>

#include "model/graph_index.h"
#include "model/onnx_io.h"
#include "model/shape_inference.h"
#include "model_builder.h"
#include "proto_edit.h"
#include "test_paths.h"

using namespace msa;
namespace fs = std::filesystem;

namespace {

struct Outcome {
  int loaded = 0, refused = 0;
};

std::string readFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// Everything a user's click would do with a file: load, infer shapes, index, sort, export.
bool exercise(const std::string& bytes, const fs::path& baseDir, Outcome& out, std::string& problem) {
  // MSA_DUMP_CASE=FILE keeps the case being run, to reproduce a crash outside the test.
  if (const char* dump = std::getenv("MSA_DUMP_CASE")) std::ofstream(dump, std::ios::binary | std::ios::trunc) << bytes;
  auto m = loadModelFromBytes(bytes, baseDir, "corrupt.onnx");
  if (!m) {
    ++out.refused;
    if (m.error().message.empty() || m.error().file != "corrupt.onnx") {
      problem = "an error without message or file: '" + m.error().describe() + "'";
      return false;
    }
    return true;
  }
  ++out.loaded;
  Model& model = *m;
  ShapeOptions so;
  so.dims["batch"] = 1;
  auto shapes = inferShapes(model, so);
  if (!shapes && shapes.error().message.empty()) {
    problem = "shape inference failed without a message";
    return false;
  }
  model.graph.forEachGraph([&](const Graph& g, int) {
    GraphIndex idx(g);
    auto order = g.topologicalOrder();
    if (order.size() != g.nodes.size()) problem = "the topological order lost nodes";
    for (const Node& n : g.nodes)
      for (const auto& o : n.outputs) (void)idx.shape(o);
    for (const Tensor& t : g.initializers) (void)t.toDouble();
  });
  if (!problem.empty()) return false;
  auto again = serializeModel(model);
  if (again) {
    auto back = loadModelFromBytes(*again, baseDir, "re-export");
    if (!back) {
      problem = "the export of a loaded model does not load: " + back.error().describe();
      return false;
    }
  }
  return true;
}

using Mutation = std::function<void(onnx::ModelProto&)>;

onnx::NodeProto* firstNode(onnx::ModelProto& mp, const std::string& op) {
  for (auto& n : *mp.mutable_graph()->mutable_node())
    if (n.op_type() == op) return &n;
  return nullptr;
}

onnx::AttributeProto* attrOf(onnx::NodeProto* n, const std::string& name) {
  if (!n) return nullptr;
  for (auto& a : *n->mutable_attribute())
    if (a.name() == name) return &a;
  auto* a = n->add_attribute();
  a->set_name(name);
  return a;
}

void setDimsOfFirstInput(onnx::ModelProto& mp, std::vector<int64_t> dims) {
  auto* g = mp.mutable_graph();
  if (g->input_size() == 0) return;
  auto* shape = g->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape();
  shape->clear_dim();
  for (int64_t d : dims) shape->add_dim()->set_dim_value(d);
}

// Structural corruptions: each one something a broken exporter or a hostile file could hold.
std::vector<std::pair<std::string, Mutation>> structuralMutations() {
  constexpr int64_t k62 = int64_t(1) << 62;
  std::vector<std::pair<std::string, Mutation>> v;
  auto firstInit = [](onnx::ModelProto& mp) -> onnx::TensorProto* {
    auto* g = mp.mutable_graph();
    return g->initializer_size() ? g->mutable_initializer(0) : nullptr;
  };
  v.push_back({"initializer dim 2^62", [=](onnx::ModelProto& mp) {
                 if (auto* t = firstInit(mp)) t->set_dims(0, k62);
               }});
  v.push_back({"initializer negative dim", [=](onnx::ModelProto& mp) {
                 if (auto* t = firstInit(mp)) t->set_dims(0, -3);
               }});
  v.push_back({"initializer dims overflow int64", [=](onnx::ModelProto& mp) {
                 if (auto* t = firstInit(mp)) {
                   t->clear_dims();
                   for (int i = 0; i < 3; ++i) t->add_dims(int64_t(1) << 31);
                 }
               }});
  v.push_back({"initializer unknown data type", [=](onnx::ModelProto& mp) {
                 if (auto* t = firstInit(mp)) t->set_data_type(999);
               }});
  v.push_back({"initializer string type with raw data", [=](onnx::ModelProto& mp) {
                 if (auto* t = firstInit(mp)) t->set_data_type(8);
               }});
  v.push_back({"initializer raw and typed data", [=](onnx::ModelProto& mp) {
                 if (auto* t = firstInit(mp)) t->add_float_data(1.0f);
               }});
  v.push_back({"input dim 2^62", [=](onnx::ModelProto& mp) { setDimsOfFirstInput(mp, {k62, 3, k62, k62}); }});
  v.push_back({"input negative dims", [=](onnx::ModelProto& mp) { setDimsOfFirstInput(mp, {-1, -5, 48, -7}); }});
  v.push_back({"input rank 0", [=](onnx::ModelProto& mp) { setDimsOfFirstInput(mp, {}); }});
  v.push_back({"input rank 9", [=](onnx::ModelProto& mp) { setDimsOfFirstInput(mp, {1, 2, 3, 4, 5, 6, 7, 8, 9}); }});
  v.push_back({"huge external offset", [=](onnx::ModelProto& mp) {
                 if (auto* t = firstInit(mp))
                   test::makeExternal(mp, t->name(), {4}, {{"location", "w.bin"}, {"offset", std::to_string(k62)}});
               }});
  v.push_back({"external length 2^62", [=](onnx::ModelProto& mp) {
                 if (auto* t = firstInit(mp))
                   test::makeExternal(mp, t->name(), {k62 / 4},
                                      {{"location", "w.bin"}, {"offset", "0"}, {"length", std::to_string(k62)}});
               }});
  v.push_back({"conv kernel_shape as float", [](onnx::ModelProto& mp) {
                 if (auto* a = attrOf(firstNode(mp, "Conv"), "kernel_shape")) {
                   a->clear_ints();
                   a->set_type(onnx::AttributeProto::FLOAT);
                   a->set_f(3.5f);
                 }
               }});
  v.push_back({"conv strides as string", [](onnx::ModelProto& mp) {
                 if (auto* a = attrOf(firstNode(mp, "Conv"), "strides")) {
                   a->clear_ints();
                   a->set_type(onnx::AttributeProto::STRING);
                   a->set_s("two");
                 }
               }});
  v.push_back({"conv group as ints", [](onnx::ModelProto& mp) {
                 if (auto* a = attrOf(firstNode(mp, "Conv"), "group")) {
                   a->set_type(onnx::AttributeProto::INTS);
                   a->add_ints(2);
                   a->add_ints(3);
                 }
               }});
  v.push_back({"conv zero strides", [](onnx::ModelProto& mp) {
                 if (auto* a = attrOf(firstNode(mp, "Conv"), "strides")) {
                   a->set_type(onnx::AttributeProto::INTS);
                   a->clear_ints();
                   a->add_ints(0);
                   a->add_ints(0);
                 }
               }});
  v.push_back({"conv negative pads and dilations", [](onnx::ModelProto& mp) {
                 auto* n = firstNode(mp, "Conv");
                 for (const char* name : {"pads", "dilations"})
                   if (auto* a = attrOf(n, name)) {
                     a->set_type(onnx::AttributeProto::INTS);
                     a->clear_ints();
                     for (int i = 0; i < 4; ++i) a->add_ints(-1000);
                   }
               }});
  v.push_back({"conv group 0", [](onnx::ModelProto& mp) {
                 if (auto* a = attrOf(firstNode(mp, "Conv"), "group")) {
                   a->set_type(onnx::AttributeProto::INT);
                   a->set_i(0);
                 }
               }});
  v.push_back({"conv kernel_shape of 7 dims", [](onnx::ModelProto& mp) {
                 if (auto* a = attrOf(firstNode(mp, "Conv"), "kernel_shape")) {
                   a->set_type(onnx::AttributeProto::INTS);
                   a->clear_ints();
                   for (int i = 0; i < 7; ++i) a->add_ints(k62);
                 }
               }});
  v.push_back({"attribute type undefined", [](onnx::ModelProto& mp) {
                 for (auto& n : *mp.mutable_graph()->mutable_node())
                   for (auto& a : *n.mutable_attribute()) a.set_type(onnx::AttributeProto::UNDEFINED);
               }});
  v.push_back({"attribute graph on a plain op", [](onnx::ModelProto& mp) {
                 auto& n = *mp.mutable_graph()->mutable_node(0);
                 auto* a = n.add_attribute();
                 a->set_name("body");
                 a->set_type(onnx::AttributeProto::GRAPH);
                 *a->mutable_g() = mp.graph();
               }});
  v.push_back({"constant value of wrong type", [](onnx::ModelProto& mp) {
                 if (auto* a = attrOf(firstNode(mp, "Constant"), "value")) {
                   a->clear_t();
                   a->set_type(onnx::AttributeProto::INT);
                   a->set_i(5);
                 }
               }});
  v.push_back({"transpose perm out of range", [](onnx::ModelProto& mp) {
                 if (auto* a = attrOf(firstNode(mp, "Transpose"), "perm")) {
                   a->clear_ints();
                   a->set_type(onnx::AttributeProto::INTS);
                   for (int64_t p : {7, -9, 0, 0}) a->add_ints(p);
                 }
               }});
  v.push_back({"reshape to 2^62", [=](onnx::ModelProto& mp) {
                 auto* n = firstNode(mp, "Reshape");
                 if (!n || n->input_size() < 2) return;
                 auto* t = mp.mutable_graph()->add_initializer();
                 t->set_name("absurd_shape");
                 t->set_data_type(7);
                 t->add_dims(3);
                 for (int64_t d : {k62, k62, int64_t(-1)}) t->add_int64_data(d);
                 n->set_input(1, "absurd_shape");
               }});
  v.push_back({"cycle", [](onnx::ModelProto& mp) {
                 auto* g = mp.mutable_graph();
                 int n = g->node_size();
                 if (n < 2 || g->node(n - 1).output_size() == 0) return;
                 auto* first = g->mutable_node(0);
                 if (first->input_size() == 0) first->add_input();
                 first->set_input(0, g->node(n - 1).output(0));
               }});
  v.push_back({"self loop", [](onnx::ModelProto& mp) {
                 auto* g = mp.mutable_graph();
                 for (auto& n : *g->mutable_node())
                   if (n.input_size() && n.output_size()) n.set_input(0, n.output(0));
               }});
  v.push_back({"inputs never produced", [](onnx::ModelProto& mp) {
                 int k = 0;
                 for (auto& n : *mp.mutable_graph()->mutable_node())
                   if (n.input_size() && (k++ % 3) == 0) n.set_input(0, "ghost_" + std::to_string(k));
               }});
  v.push_back({"duplicate producers", [](onnx::ModelProto& mp) {
                 auto* g = mp.mutable_graph();
                 for (int i = 1; i < g->node_size(); ++i)
                   if (g->node(i).output_size() && g->node(0).output_size())
                     g->mutable_node(i)->set_output(0, g->node(0).output(0));
               }});
  v.push_back({"empty and unknown op types", [](onnx::ModelProto& mp) {
                 auto* g = mp.mutable_graph();
                 for (int i = 0; i < g->node_size(); ++i)
                   g->mutable_node(i)->set_op_type(i % 2 ? "NoSuchOp" : "");
               }});
  v.push_back({"unknown domain", [](onnx::ModelProto& mp) {
                 for (auto& n : *mp.mutable_graph()->mutable_node()) n.set_domain("com.example.none");
               }});
  v.push_back({"opset 1000", [](onnx::ModelProto& mp) {
                 for (auto& o : *mp.mutable_opset_import()) o.set_version(1000);
               }});
  v.push_back({"no opset import", [](onnx::ModelProto& mp) { mp.clear_opset_import(); }});
  v.push_back({"no graph outputs, no inputs", [](onnx::ModelProto& mp) {
                 mp.mutable_graph()->clear_output();
                 mp.mutable_graph()->clear_input();
               }});
  v.push_back({"if without branches", [](onnx::ModelProto& mp) {
                 if (auto* n = firstNode(mp, "If")) n->clear_attribute();
               }});
  v.push_back({"resize scales 1e30", [](onnx::ModelProto& mp) {
                 auto* n = firstNode(mp, "Resize");
                 if (!n || n->input_size() < 3) return;
                 auto* t = mp.mutable_graph()->add_initializer();
                 t->set_name("absurd_scales");
                 t->set_data_type(1);
                 t->add_dims(4);
                 for (int i = 0; i < 4; ++i) t->add_float_data(1e30f);
                 n->set_input(2, "absurd_scales");
               }});
  v.push_back({"value_info with sequence type", [](onnx::ModelProto& mp) {
                 auto* g = mp.mutable_graph();
                 for (auto& n : g->node())
                   for (const auto& o : n.output()) {
                     auto* vi = g->add_value_info();
                     vi->set_name(o);
                     vi->mutable_type()->mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type()->set_elem_type(1);
                   }
               }});
  return v;
}

std::vector<fs::path> seedModels() {
  std::vector<fs::path> out;
  for (const char* f : {"onnx-testdata_pytorch-operator_test_operator_conv.onnx",
                        "onnx-testdata_pytorch-converted_test_PixelShuffle.onnx",
                        "ch_ppocr_mobile_v2.0_cls_infer.onnx", "silero_vad_legacy.onnx"})
    if (fs::exists(test::corpusModel(f))) out.push_back(test::corpusModel(f));
  return out;
}

}  // namespace

class TestCorruptModels : public QObject {
  Q_OBJECT
 private:
  // The builder's presets, as seeds with the ops the mutations aim at (Conv, Transpose, Reshape, Resize).
  std::vector<std::pair<std::string, std::string>> seeds() {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& p : seedModels()) out.emplace_back(p.filename().string(), readFile(p));
    test::ModelBuilder b("seed", 17, 3);
    auto x = b.input("x", {-1, 4, 8, 8}, DType::Float, {"batch"});
    auto c = b.conv(x, 8, 3, {.pads = 1});
    auto t = b.transpose(b.resize(c, {1, 1, 2, 2}), {0, 2, 3, 1});
    b.output(b.reshapeFromShape(t, 1, {-1}), "y");
    out.emplace_back("builder", *serializeModel(b.build()));
    return out;
  }

 private slots:
  void truncations() {
    test::TempDir dir("trunc");
    for (const auto& [name, bytes] : seeds()) {
      Outcome o;
      std::vector<size_t> cuts;
      for (size_t i = 0; i < std::min<size_t>(bytes.size(), 96); ++i) cuts.push_back(i);
      for (size_t k = 1; k < 160; ++k) cuts.push_back(bytes.size() * k / 160);
      for (size_t k = 1; k <= 8; ++k) cuts.push_back(bytes.size() - k);
      for (size_t cut : cuts) {
        std::string problem;
        QVERIFY2(exercise(bytes.substr(0, cut), dir.path(), o, problem),
                 (name + " cut at " + std::to_string(cut) + ": " + problem).c_str());
      }
      QVERIFY(o.refused > 0);  // most truncations do not parse
      qInfo("%s: %zu truncations, %d refused, %d loaded", name.c_str(), cuts.size(), o.refused, o.loaded);
    }
  }

  void bitFlips() {
    test::TempDir dir("flip");
    test::SeededRandom random(2024);
    constexpr int kFlips = 250;
    for (const auto& [name, bytes] : seeds()) {
      Outcome o;
      // Flips land anywhere; the protobuf framing is at the front and around every field, so
      // half of the flips aim at the first 4 KB.
      for (int i = 0; i < kFlips; ++i) {
        std::string b = bytes;
        size_t span = i % 2 ? b.size() : std::min<size_t>(b.size(), 4096);
        for (int k = 0; k < 1 + i % 4; ++k) {
          size_t pos = random.next() % span;
          b[pos] = static_cast<char>(b[pos] ^ (1u << (random.next() % 8)));
        }
        std::string problem;
        QVERIFY2(exercise(b, dir.path(), o, problem), (name + " flip " + std::to_string(i) + ": " + problem).c_str());
      }
      qInfo("%s: %d bit-flip variants, %d refused, %d loaded", name.c_str(), kFlips, o.refused, o.loaded);
    }
  }

  void structural_data() {
    QTest::addColumn<int>("index");
    auto all = structuralMutations();
    for (size_t i = 0; i < all.size(); ++i) QTest::newRow(all[i].first.c_str()) << static_cast<int>(i);
  }

  void structural() {
    QFETCH(int, index);
    auto mutation = structuralMutations()[static_cast<size_t>(index)];
    test::TempDir dir("struct");
    std::ofstream(dir / "w.bin", std::ios::binary) << std::string(64, '\0');
    for (const auto& [name, bytes] : seeds()) {
      std::string mutated = test::editModel(bytes, mutation.second);
      QVERIFY(!mutated.empty());
      Outcome o;
      std::string problem;
      QVERIFY2(exercise(mutated, dir.path(), o, problem), (name + ": " + problem).c_str());
    }
  }
  // Inputs the fuzzer (tests/fuzz) found crashing, kept after the fix.
  void fuzzRegressions_data() {
    QTest::addColumn<QString>("file");
    const fs::path dir = test::sourceDir() / "tests" / "fuzz" / "regressions";
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(dir)) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) QTest::newRow(f.filename().c_str()) << QString::fromStdString(f.string());
  }

  void fuzzRegressions() {
    QFETCH(QString, file);
    test::TempDir dir("regress");
    Outcome o;
    std::string problem;
    const std::string bytes = readFile(file.toStdString());
    QVERIFY2(exercise(bytes, dir.path(), o, problem), problem.c_str());
    // Again in this process: a memory error in the forked child only shows as a retry, and the
    // sanitizer build (CI's robustness stage) must fail the test on it.
    auto m = loadModelFromBytes(bytes, dir.path(), "corrupt.onnx");
    if (!m) return;
    ShapeOptions so;
    so.isolate = false;
    so.dims["batch"] = 1;
    auto shapes = inferShapes(*m, so);
    QVERIFY2(shapes || !shapes.error().message.empty(), "shape inference failed without a message");
    std::set<std::string> names;
    for (const ValueInfo& v : m->graph.valueInfo)
      QVERIFY2(names.insert(v.name).second, ("value_info '" + v.name + "' twice after inference").c_str());
  }
};

QTEST_GUILESS_MAIN(TestCorruptModels)
#include "tst_corrupt_models.moc"
