#include "hostile_cases.h"

#include <fstream>
#include <functional>
#include <sstream>

#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <nlohmann/json.hpp>

#include "model/onnx_io.h"
#include "model_builder.h"
#include "proto_edit.h"

namespace fs = std::filesystem;

namespace msa::test {
namespace {

using Edit = std::function<void(onnx::ModelProto&)>;

// x[1,8] -> Relu -> Add(w) -> Relu -> y: small enough for ONNX Runtime to run in milliseconds,
// with a weight for the external-data cases.
std::string baseModel() {
  ModelBuilder b("base", 17, 5);
  auto x = b.input("x", {1, 8});
  auto w = b.weight("w", {1, 8}, 1.0);
  b.output(b.relu(b.add(b.relu(x), w)), "y");
  return *serializeModel(b.build());
}

std::string edited(const Edit& e) { return editModel(baseModel(), e); }

onnx::GraphProto* g(onnx::ModelProto& m) { return m.mutable_graph(); }

// A protobuf length prefix (varint).
std::string varint(uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7F) | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
  return out;
}

// If nodes nested `depth` deep: each then_branch holds the next If (the else_branch a leaf, so
// the file grows linearly), the innermost yields x.
std::string nestedIf(int depth) {
  return edited([depth](onnx::ModelProto& m) {
    auto* cond = g(m)->add_input();
    cond->set_name("cond");
    cond->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::BOOL);
    cond->mutable_type()->mutable_tensor_type()->mutable_shape();
    onnx::GraphProto leaf;
    leaf.set_name("leaf");
    auto* id = leaf.add_node();
    id->set_op_type("Identity");
    id->add_input("x");
    id->add_output("leaf_out");
    leaf.add_output()->set_name("leaf_out");
    onnx::GraphProto inner = leaf;
    for (int level = 0; level < depth; ++level) {
      onnx::GraphProto outer;
      outer.set_name("level" + std::to_string(level));
      auto* n = outer.add_node();
      n->set_op_type("If");
      n->set_name("if_" + std::to_string(level));
      n->add_input("cond");
      n->add_output("if_out_" + std::to_string(level));
      for (const char* branch : {"then_branch", "else_branch"}) {
        auto* a = n->add_attribute();
        a->set_name(branch);
        a->set_type(onnx::AttributeProto::GRAPH);
        *a->mutable_g() = std::string_view(branch) == "then_branch" ? inner : leaf;
      }
      outer.add_output()->set_name(n->output(0));
      inner = std::move(outer);
    }
    auto* top = g(m)->add_node();
    *top = inner.node(0);
    auto* out = g(m)->add_output();
    out->set_name(top->output(0));
  });
}

std::string ortTrace(const std::string& nodeName, double dur) {
  std::ostringstream s;
  s << "[\n{\"cat\":\"Session\",\"pid\":1,\"tid\":1,\"dur\":500,\"ts\":10,\"ph\":\"X\",\"name\":\"model_run\",\"args\":{}},\n"
    << "{\"cat\":\"Node\",\"pid\":1,\"tid\":1,\"dur\":" << dur << ",\"ts\":20,\"ph\":\"X\",\"name\":\"" << nodeName
    << "_kernel_time\",\"args\":{\"op_name\":\"Relu\",\"provider\":\"CPUExecutionProvider\"}}\n]\n";
  return s.str();
}

const char* const kOpSummaryHeader =
    "Device_id,Model Name,Model ID,Task ID,Stream ID,Infer ID,Op Name,OP Type,OP State,Task Type,"
    "Task Start Time(us),Task Duration(us),Task Wait Time(us),Block Num,Input Shapes,Input Data Types,"
    "Input Formats,Output Shapes,Output Data Types,Output Formats\n";
const char* const kOpSummaryRow =
    "0,base,1,1,2,0,Relu_0,Relu,static,AI_VECTOR_CORE,1000.0,3.5,0.1,8,\"1,8\",FLOAT,ND,\"1,8\",FLOAT,ND\n";

std::string kineto(const std::string& events) {
  return "{\"schemaVersion\":1,\"traceEvents\":[" + events + "]}";
}

// One case's files: (relative path, bytes); a folder case lists several.
using Files = std::vector<std::pair<std::string, std::string>>;

struct Entry {
  HostileCase c;
  std::function<Files(uint64_t seed)> make;
};

// Exit codes per verb, in kModelVerbs / kProfileVerbs order.
std::map<std::string, int> exits(const std::vector<std::string>& verbs, std::initializer_list<int> codes) {
  std::map<std::string, int> m;
  size_t i = 0;
  for (int c : codes) m[verbs[i++]] = c;
  return m;
}
std::map<std::string, int> allModel(int code) { return exits(kModelVerbs, {code, code, code, code, code, code}); }
// Read by the profile verbs alike: compare analyses a run as analyze --profile does (msadvisor's
// own JSON it reads as a saved analysis instead: `compare` given).
std::map<std::string, int> allProfile(int code, int compare = -1) {
  return exits(kProfileVerbs, {code, code, code, compare < 0 ? code : compare});
}
// A model the runtime refuses (exit 2 from analyze and optimize --verify) but the cost model,
// the device analysis and compare read.
const std::map<std::string, int> kRuntimeRefusal = exits(kModelVerbs, {0, 0, 2, 2, 0, 0});

// Cases that are no regular file: written as what the marker says.
const std::string kFifo = "\x01<fifo>";
const std::string kLinkToDevZero = "\x01<symlink to /dev/zero>";

// Names a stranger could give: a terminal escape that clears the screen, one that sets the window
// title, the C1 control CSI (U+009B), a right-to-left override, a forged report line after a
// newline, and HTML and a link for the Markdown and HTML reports.
const std::string kHostileName =
    "evil\x1b[2J\x1b]0;pwned\x07\xc2\x9b" "31m\xe2\x80\xaerevo\nFAKE FINDING <script>alert('xss')</script>"
    "<img src=x onerror=alert(1)>[click](javascript:alert(1))";

// Kineto events: a ProfilerStep range and a kernel.
std::string stepEvent(long long n, long long ts, long long dur) {
  return "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#" + std::to_string(n) +
         "\",\"pid\":1,\"tid\":1,\"ts\":" + std::to_string(ts) + ",\"dur\":" + std::to_string(dur) + "}";
}
std::string kernelEvent(const std::string& name, long long ts, long long dur) {
  return "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"" + name + "\",\"pid\":1,\"tid\":7,\"ts\":" +
         std::to_string(ts) + ",\"dur\":" + std::to_string(dur) + "}";
}

// `head` + `body` × `times` + `tail`, gzip-compressed as it is made (never whole in memory).
std::string gzipRepeated(const std::string& head, const std::string& body, size_t times, const std::string& tail) {
  z_stream z{};
  deflateInit2(&z, 9, Z_DEFLATED, 16 + MAX_WBITS, 9, Z_DEFAULT_STRATEGY);
  std::string out;
  std::vector<unsigned char> buf(1 << 16);
  auto feed = [&](const std::string& s, int flush) {
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(s.data()));
    z.avail_in = static_cast<uInt>(s.size());
    do {
      z.next_out = buf.data();
      z.avail_out = static_cast<uInt>(buf.size());
      deflate(&z, flush);
      out.append(reinterpret_cast<char*>(buf.data()), buf.size() - z.avail_out);
    } while (z.avail_out == 0);
  };
  feed(head, Z_NO_FLUSH);
  std::string chunk;  // the body repeated up to ~64 KB per call
  const size_t perChunk = std::max<size_t>(1, (1 << 16) / std::max<size_t>(1, body.size()));
  for (size_t k = 0; k < perChunk; ++k) chunk += body;
  for (size_t done = 0; done < times; done += perChunk) feed(done + perChunk <= times ? chunk : std::string(), Z_NO_FLUSH);
  feed(tail, Z_FINISH);
  deflateEnd(&z);
  return out;
}
std::map<std::string, std::string> saysAll(const std::vector<std::string>& verbs, const std::string& s) {
  std::map<std::string, std::string> m;
  for (const auto& v : verbs) m[v] = s;
  return m;
}

Entry modelCase(std::string id, std::string what, std::map<std::string, int> codes, std::string says,
                std::function<std::string(uint64_t)> bytes, std::string ext = ".onnx") {
  Entry e;
  e.c.id = id;
  e.c.what = std::move(what);
  e.c.file = "models/" + id.substr(id.find('.') + 1) + ext;
  e.c.exitCode = std::move(codes);
  e.c.says = saysAll(kModelVerbs, says);
  std::string file = e.c.file;
  e.make = [file, bytes](uint64_t seed) { return Files{{file, bytes(seed)}}; };
  return e;
}

Entry profileCase(std::string id, std::string what, std::map<std::string, int> codes, std::string says, std::string file,
                  std::function<Files(uint64_t)> make) {
  Entry e;
  e.c.id = std::move(id);
  e.c.what = std::move(what);
  e.c.file = "profiles/" + file;
  e.c.profile = true;
  e.c.exitCode = std::move(codes);
  e.c.says = saysAll(kProfileVerbs, says);
  // compare tells a run from a saved analysis before it reads either, so a broken run can be
  // refused as "not an analysis" rather than in the importer's words: what it says is checked for
  // msadvisor's own files and for files that are no file (refused before any format is looked at).
  if (!e.c.id.starts_with("msadvisor.") && !e.c.id.starts_with("profile.")) e.c.says.erase("compare");
  e.make = [make, file](uint64_t seed) {
    Files out;
    for (auto& [p, b] : make(seed)) out.emplace_back("profiles/" + p, b);
    return out;
  };
  return e;
}

std::vector<Entry> entries() {
  std::vector<Entry> v;
  const auto fixed = [](std::string s) { return [s](uint64_t) { return s; }; };
  const auto edit = [](Edit e) { return [e](uint64_t) { return edited(e); }; };
  const std::map<std::string, int> runtimeRefusal = kRuntimeRefusal;

  // --- files that are no model
  v.push_back(modelCase("model.empty", "an empty file", allModel(2), "empty", fixed("")));
  v.push_back(modelCase("model.wrong_type", "a PNG image renamed .onnx", allModel(2), "not a valid ONNX model",
                        fixed(std::string("\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x10", 20))));
  v.push_back(modelCase("model.text", "a text file (a Python script) renamed .onnx", allModel(2), "not a valid ONNX model",
                        fixed("import torch\nmodel = torch.hub.load('x', 'y')\n")));
  v.push_back(modelCase("model.truncated", "the first 60 % of a valid model", allModel(2), "not a valid ONNX model",
                        [](uint64_t) {
                          std::string b = baseModel();
                          return b.substr(0, b.size() * 6 / 10);
                        }));
  v.push_back(modelCase("model.corrupt_framing", "a length prefix inside the graph overwritten with random bytes",
                        allModel(2), "not a valid ONNX model", [](uint64_t seed) {
                          std::string b = baseModel();
                          SeededRandom r(seed);
                          const size_t at = b.find("base") - 1;  // the graph name's length byte
                          for (size_t k = 0; k < 4; ++k) b[at + k] = static_cast<char>(0x80 | (r.next() & 0x7F));
                          return b;
                        }));
  v.push_back(modelCase("model.length_2gb", "a graph field claiming 2 GB+ of bytes in a 40-byte file", allModel(2),
                        "not a valid ONNX model", [](uint64_t) {
                          return std::string("\x08\x08", 2) + "\x3a" + varint(uint64_t(3) << 30) + std::string(32, 'A');
                        }));
  v.push_back(modelCase("model.no_graph", "a protobuf with an IR version and nothing else", allModel(2), "holds no graph",
                        fixed(std::string("\x08\x08", 2))));

  // --- structure ONNX requires
  v.push_back(modelCase("model.cycle", "two nodes that feed each other", allModel(2), "cycle", edit([](onnx::ModelProto& m) {
                          auto* n = g(m)->mutable_node();
                          (*n)[0].set_input(0, (*n)[2].output(0));  // the first Relu reads the last one
                          g(m)->mutable_output(0)->set_name((*n)[1].output(0));
                        })));
  v.push_back(modelCase("model.dangling_input", "a node input that names no value", allModel(2), "names no value",
                        edit([](onnx::ModelProto& m) { g(m)->mutable_node(1)->set_input(0, "nowhere"); })));
  v.push_back(modelCase("model.value_twice", "two nodes writing the same output name", allModel(2), "also produced by node",
                        edit([](onnx::ModelProto& m) {
                          g(m)->mutable_node(2)->set_output(0, g(m)->node(0).output(0));
                          g(m)->mutable_output(0)->set_name(g(m)->node(0).output(0));
                        })));
  v.push_back(modelCase("model.output_twice", "a graph output listed twice", allModel(2), "listed twice",
                        edit([](onnx::ModelProto& m) { *g(m)->add_output() = g(m)->output(0); })));
  v.push_back(modelCase("model.output_unproduced", "a graph output nothing produces", allModel(2), "produced by no node",
                        edit([](onnx::ModelProto& m) { g(m)->mutable_output(0)->set_name("ghost"); })));
  v.push_back(modelCase("model.input_twice", "a graph input declared twice", allModel(2), "declared twice",
                        edit([](onnx::ModelProto& m) { *g(m)->add_input() = g(m)->input(0); })));
  v.push_back(modelCase("model.input_is_output", "a node output that overwrites a graph input", allModel(2),
                        "already a graph input", edit([](onnx::ModelProto& m) {
                          g(m)->mutable_node(0)->set_output(0, "x");
                          g(m)->mutable_node(1)->set_input(0, "x");
                        })));
  v.push_back(modelCase("model.no_op_type", "a node without op_type", allModel(2), "no op_type",
                        edit([](onnx::ModelProto& m) { g(m)->mutable_node(1)->clear_op_type(); })));

  v.push_back(modelCase("model.conv_stride_zero", "a MaxPool with strides [0] (ONNX Runtime divided by it: SIGFPE)",
                        allModel(2), "'strides' holds 0", edit([](onnx::ModelProto& m) {
                          auto* n = g(m)->mutable_node(0);
                          n->set_op_type("MaxPool");
                          auto* a = n->add_attribute();
                          a->set_name("kernel_shape");
                          a->set_type(onnx::AttributeProto::INTS);
                          a->add_ints(1);
                          auto* st = n->add_attribute();
                          st->set_name("strides");
                          st->set_type(onnx::AttributeProto::INTS);
                          st->add_ints(0);
                        })));

  // --- shapes
  v.push_back(modelCase("model.negative_dim", "an input declaring dim -3", allModel(2), "negative dimension",
                        edit([](onnx::ModelProto& m) {
                          g(m)->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(1)->set_dim_value(-3);
                        })));
  v.push_back(modelCase("model.overflowing_dims", "an input [2^31, 2^31, 8]: its element count overflows", allModel(2),
                        "more than 2^50 elements", edit([](onnx::ModelProto& m) {
                          auto* s = g(m)->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape();
                          s->mutable_dim(0)->set_dim_value(int64_t(1) << 31);
                          s->mutable_dim(1)->set_dim_value(int64_t(1) << 31);
                          s->add_dim()->set_dim_value(8);
                        })));
  v.push_back(modelCase("model.initializer_huge_dim", "a weight of dims [2^62]", allModel(2), "invalid shape",
                        edit([](onnx::ModelProto& m) { g(m)->mutable_initializer(0)->set_dims(0, int64_t(1) << 62); })));
  v.push_back(modelCase("model.initializer_short", "a weight with fewer bytes than its shape needs", allModel(2),
                        "bytes of data, its shape needs", edit([](onnx::ModelProto& m) {
                          auto* t = g(m)->mutable_initializer(0);
                          t->set_raw_data(t->raw_data().substr(0, 5));
                        })));
  v.push_back(modelCase("model.initializer_bad_type", "a weight of data type 999", allModel(2), "unknown data type",
                        edit([](onnx::ModelProto& m) { g(m)->mutable_initializer(0)->set_data_type(999); })));
  {
    Entry e = modelCase("model.bound_dims_overflow",
                        "an input [n, m, 8] with n and m bound to 2^31 by --dim: 2^65 elements; costs saturate, "
                        "the runtime is not asked to allocate",
                        kRuntimeRefusal, "", edit([](onnx::ModelProto& m) {
                          auto* s = g(m)->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape();
                          s->mutable_dim(0)->set_dim_param("n");
                          s->mutable_dim(1)->set_dim_param("m");
                          s->add_dim()->set_dim_value(8);
                          g(m)->mutable_output(0)->mutable_type()->mutable_tensor_type()->clear_shape();
                        }));
    e.c.extraArgs = {"--dim", "n=2147483648", "--dim", "m=2147483648"};
    e.c.says = {{"info", "saturated"}, {"estimate", "saturated"}, {"analyze", "elements"}, {"optimize", "elements"}};
    v.push_back(e);
  }

  // --- domains and opsets
  {
    Entry e = modelCase("model.future_opset", "default-domain opset 99", runtimeRefusal, "", edit([](onnx::ModelProto& m) {
                          m.mutable_opset_import(0)->set_version(99);
                        }));
    e.c.says = {{"info", "newer than ONNX Runtime"}, {"estimate", "GFLOPs"},
                {"analyze", "newer than ONNX Runtime"}, {"optimize", "newer than ONNX Runtime"}};
    v.push_back(e);
  }
  {
    Entry e = modelCase("model.unknown_domain", "a node in domain com.example.custom (imported)", runtimeRefusal, "",
                        edit([](onnx::ModelProto& m) {
                          g(m)->mutable_node(1)->set_domain("com.example.custom");
                          auto* o = m.add_opset_import();
                          o->set_domain("com.example.custom");
                          o->set_version(1);
                        }));
    e.c.says = {{"info", "com.example.custom"}, {"estimate", "com.example.custom"},
                {"analyze", "no operators for"}, {"optimize", "no operators for"}};
    v.push_back(e);
  }
  v.push_back(modelCase("model.unimported_domain", "a node in a domain the model does not import", allModel(2),
                        "does not import", edit([](onnx::ModelProto& m) { g(m)->mutable_node(1)->set_domain("com.example.x"); })));
  v.push_back(modelCase("model.opset_zero", "an opset import of version 0", allModel(2), "has version 0",
                        edit([](onnx::ModelProto& m) { m.mutable_opset_import(0)->set_version(0); })));
  v.push_back(modelCase("model.nested_if_25", "If nodes nested 25 levels deep (hung ONNX Runtime's session creation)",
                        allModel(2), "nest more than 16 levels", [](uint64_t) { return nestedIf(25); }));
  {
    Entry e = modelCase("model.non_utf8_names", "node and value names that are not UTF-8", allModel(0), "",
                        edit([](onnx::ModelProto& m) {
                          g(m)->mutable_node(0)->set_name("relu\xff\xfe");
                          g(m)->mutable_node(2)->set_name("\xc3(last");
                        }));
    e.c.says = {{"info", "Relu"}, {"estimate", "GFLOPs"}, {"analyze", ""}, {"optimize", ""}};
    v.push_back(e);
  }

  // --- external data
  const auto external = [](std::vector<std::pair<std::string, std::string>> record) {
    return [record](uint64_t) { return edited([&](onnx::ModelProto& m) { makeExternal(m, "w", {1, 8}, record); }); };
  };
  v.push_back(modelCase("model.external_escapes", "external data at ../../etc/passwd", allModel(2), "leaves the model's folder",
                        external({{"location", "../../etc/passwd"}})));
  v.push_back(modelCase("model.external_absolute", "external data at an absolute path", allModel(2), "absolute path",
                        external({{"location", "/etc/passwd"}})));
  {
    Entry e = modelCase("model.external_short", "external data 12 bytes long where the weight needs 32", allModel(2),
                        "", external({{"location", "external_short.bin"}}));
    const std::string file = e.c.file;
    e.make = [file](uint64_t) {
      return Files{{file, edited([](onnx::ModelProto& m) { makeExternal(m, "w", {1, 8}, {{"location", "external_short.bin"}}); })},
                   {"models/external_short.bin", std::string(12, '\1')}};
    };
    e.c.says = saysAll(kModelVerbs, "external data holds 12 bytes, its shape needs 32");
    v.push_back(e);
  }
  v.push_back(modelCase("model.external_missing", "external data in a file that is not there", allModel(2), "missing.bin",
                        external({{"location", "missing.bin"}})));
  v.push_back(modelCase("model.external_offset", "external data at offset 2^62", allModel(2), "",
                        external({{"location", "base.onnx"}, {"offset", "4611686018427387904"}})));

  // --- files that are no file (open() on a FIFO waits for a writer: every verb hung)
  v.push_back(modelCase("model.fifo", "the model is a FIFO (named pipe) nobody writes", allModel(2), "FIFO", fixed(kFifo)));
  v.push_back(modelCase("model.device", "the model is a symlink to /dev/zero (a device that never ends)", allModel(2),
                        "character device", fixed(kLinkToDevZero)));
  {
    Entry e = modelCase("model.external_fifo", "the model's external data file is a FIFO", allModel(2), "FIFO",
                        external({{"location", "external_fifo.bin"}}));
    const std::string file = e.c.file;
    e.make = [file](uint64_t) {
      return Files{{file, edited([](onnx::ModelProto& m) { makeExternal(m, "w", {1, 8}, {{"location", "external_fifo.bin"}}); })},
                   {"models/external_fifo.bin", kFifo}};
    };
    v.push_back(e);
  }

  // --- names that act on what shows them (second pass of issue 28)
  v.push_back(modelCase("model.tab_names", "node names holding a TAB, a quote and a backslash (ONNX Runtime writes them "
                        "into its profile unescaped: analyze refused the model)",
                        allModel(0), "", edit([](onnx::ModelProto& m) {
                          g(m)->mutable_node(0)->set_name("relu\t0");
                          g(m)->mutable_node(1)->set_name("add\"1");
                          g(m)->mutable_node(2)->set_name("last\\");
                        })));
  v.push_back(modelCase("model.escape_names",
                        "node, value and input names holding terminal escapes, U+009B, a right-to-left override, a "
                        "newline with a forged line, <script>, <img onerror> and a javascript: link",
                        allModel(0), "", edit([](onnx::ModelProto& m) {
                          for (int i = 0; i < g(m)->node_size(); ++i) g(m)->mutable_node(i)->set_name(kHostileName + std::to_string(i));
                          g(m)->set_name(kHostileName);
                        })));

  // --- sparse initializers: valid ONNX, refused as "names no value" before
  v.push_back(modelCase("model.sparse_initializer", "the weight as a valid sparse_initializer (COO: 3 of its 8 values)",
                        allModel(0), "", edit([](onnx::ModelProto& m) {
                          g(m)->clear_initializer();
                          auto* sp = g(m)->add_sparse_initializer();
                          sp->add_dims(1);
                          sp->add_dims(8);
                          auto* values = sp->mutable_values();
                          values->set_name("w");
                          values->set_data_type(onnx::TensorProto::FLOAT);
                          values->add_dims(3);
                          for (float f : {1.f, 2.f, 3.f}) values->add_float_data(f);
                          auto* indices = sp->mutable_indices();
                          indices->set_data_type(onnx::TensorProto::INT64);
                          indices->add_dims(3);
                          for (int64_t k : {0, 3, 7}) indices->add_int64_data(k);
                        })));
  v.push_back(modelCase("model.sparse_malformed", "a sparse_initializer without its values tensor", allModel(2),
                        "sparse initializer", edit([](onnx::ModelProto& m) {
                          g(m)->clear_initializer();
                          g(m)->add_sparse_initializer()->add_dims(8);
                        })));

  // --- profiles: ONNX Runtime JSON
  const auto one = [](std::string name, std::function<std::string(uint64_t)> bytes) {
    return [name, bytes](uint64_t seed) { return Files{{name, bytes(seed)}}; };
  };
  v.push_back(profileCase("ort.truncated", "an ONNX Runtime profile cut in the middle of an event", allProfile(2),
                          "JSON", "ort_truncated.json", one("ort_truncated.json", [](uint64_t) {
                            std::string t = ortTrace("Relu_0", 12);
                            return t.substr(0, t.size() / 2);
                          })));
  v.push_back(profileCase("ort.not_json", "random bytes named .json", allProfile(2), "", "ort_garbage.json",
                          one("ort_garbage.json", [](uint64_t seed) {
                            SeededRandom r(seed);
                            std::string b(512, '\0');
                            for (char& c : b) c = static_cast<char>(r.next());
                            return b;
                          })));
  v.push_back(profileCase("ort.negative_dur", "a kernel event with a negative duration", allProfile(2), "dur",
                          "ort_negative.json", one("ort_negative.json", [](uint64_t) { return ortTrace("Relu_0", -5); })));
  v.push_back(profileCase("ort.number_overflow", "a duration of 1e999 (beyond double; the reader used to terminate)",
                          allProfile(2), "", "ort_1e999.json", one("ort_1e999.json", [](uint64_t) {
                            std::string t = ortTrace("Relu_0", 12);
                            return t.replace(t.find("\"dur\":12"), 8, "\"dur\":1e999");
                          })));
  v.push_back(profileCase("ort.deep_nesting", "JSON nested 100000 arrays deep", allProfile(2), "", "ort_deep.json",
                          one("ort_deep.json", [](uint64_t) { return std::string(100000, '[') + std::string(100000, ']'); })));
  v.push_back(profileCase("ort.events_not_list", "{\"traceEvents\": 5}", allProfile(2), "", "ort_events_5.json",
                          one("ort_events_5.json", [](uint64_t) { return std::string("{\"traceEvents\": 5}"); })));
  {
    Entry e = profileCase("ort.non_utf8_name", "a kernel event whose node name is not UTF-8 (as ONNX Runtime writes it)",
                          allProfile(0), "", "ort_non_utf8.json",
                          one("ort_non_utf8.json", [](uint64_t) { return ortTrace("relu\xff\xfe", 12); }));
    v.push_back(e);
  }

  // --- profiles: msprof CSV
  v.push_back(profileCase("msprof.binary", "an op_summary CSV of random bytes", allProfile(2), "", "msprof_binary/op_summary_1.csv",
                          one("msprof_binary/op_summary_1.csv", [](uint64_t seed) {
                            SeededRandom r(seed + 1);
                            std::string b(2048, '\0');
                            for (char& c : b) c = static_cast<char>(r.next());
                            return b;
                          })));
  v.push_back(profileCase("msprof.empty", "an empty op_summary CSV", allProfile(2), "", "msprof_empty/op_summary_1.csv",
                          one("msprof_empty/op_summary_1.csv", [](uint64_t) { return std::string(); })));
  v.push_back(profileCase("msprof.header_only", "an op_summary CSV with its header and no row", allProfile(2), "",
                          "msprof_header/op_summary_1.csv",
                          one("msprof_header/op_summary_1.csv", [](uint64_t) { return std::string(kOpSummaryHeader); })));
  v.push_back(profileCase("msprof.semicolons", "an op_summary CSV with ';' as the delimiter", allProfile(2), "",
                          "msprof_semicolon/op_summary_1.csv", one("msprof_semicolon/op_summary_1.csv", [](uint64_t) {
                            std::string s = std::string(kOpSummaryHeader) + kOpSummaryRow;
                            for (char& c : s)
                              if (c == ',') c = ';';
                            return s;
                          })));
  v.push_back(profileCase("msprof.bom", "an op_summary CSV starting with a UTF-8 byte order mark", allProfile(0), "",
                          "msprof_bom/op_summary_1.csv", one("msprof_bom/op_summary_1.csv", [](uint64_t) {
                            return std::string("\xef\xbb\xbf") + kOpSummaryHeader + kOpSummaryRow;
                          })));
  v.push_back(profileCase("msprof.torch_npu_missing", "a torch_npu folder whose ASCEND_PROFILER_OUTPUT holds no CSV",
                          allProfile(2), "", "torch_npu_missing",
                          [](uint64_t) {
                            return Files{{"torch_npu_missing/rank0_ascend_pt/profiler_info_0.json", "{}"},
                                         {"torch_npu_missing/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/step_trace_time.csv",
                                          "Step,Computing\n"}};
                          }));

  // --- profiles: Kineto (PyTorch profiler)
  const std::string op = "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::relu\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":5}";
  v.push_back(profileCase("kineto.no_trace_events", "a PyTorch trace without traceEvents", allProfile(2), "traceEvents",
                          "kineto_no_events.pt.trace.json",
                          one("kineto_no_events.pt.trace.json", [](uint64_t) { return std::string("{\"schemaVersion\":1}"); })));
  v.push_back(profileCase("kineto.negative_dur", "a PyTorch trace whose op has a negative duration", allProfile(2), "",
                          "kineto_negative.pt.trace.json", one("kineto_negative.pt.trace.json", [](uint64_t) {
                            return kineto("{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::relu\",\"pid\":1,\"tid\":1,"
                                          "\"ts\":10,\"dur\":-5}");
                          })));
  v.push_back(profileCase("kineto.flow_cycle", "a PyTorch trace whose flow events form a cycle", allProfile(0), "",
                          "kineto_cycle.pt.trace.json", one("kineto_cycle.pt.trace.json", [op](uint64_t) {
                            return kineto(op +
                                          ",{\"ph\":\"s\",\"cat\":\"ac2g\",\"id\":7,\"pid\":1,\"tid\":1,\"ts\":12,\"name\":\"f\"}"
                                          ",{\"ph\":\"f\",\"cat\":\"ac2g\",\"id\":7,\"pid\":1,\"tid\":1,\"ts\":11,\"bp\":\"e\",\"name\":\"f\"}"
                                          ",{\"ph\":\"s\",\"cat\":\"ac2g\",\"id\":7,\"pid\":1,\"tid\":1,\"ts\":11,\"name\":\"f\"}"
                                          ",{\"ph\":\"f\",\"cat\":\"ac2g\",\"id\":7,\"pid\":1,\"tid\":1,\"ts\":12,\"bp\":\"e\",\"name\":\"f\"}");
                          })));

  // --- profiles: TensorRT and Netron
  v.push_back(profileCase("trt.malformed", "a trtexec profile whose entries have no name", allProfile(2), "",
                          "trt_bad.profile", one("trt_bad.profile", [](uint64_t) {
                            return std::string("[{\"count\":10},{\"timeMs\":\"x\",\"averageMs\":-1}]");
                          })));
  v.push_back(profileCase("netron.bad_metric", "a Netron attachment with a negative latency", allProfile(2), "",
                          "netron_bad.json", one("netron_bad.json", [](uint64_t) {
                            return std::string("{\"signature\":\"netron:attachment\",\"metrics\":[{\"kind\":\"node\","
                                               "\"target\":\"Relu_0\",\"name\":\"latency\",\"value\":-3}]}");
                          })));

  // --- second pass (issue 28): memory, time, names, numbers, files that are no file
  v.push_back(profileCase("kineto.gzip_bomb",
                          "a 0.3 MB .json.gz inflating to 300 MB (4 million events): it aborted with bad_alloc at 4.1 GB",
                          allProfile(2), "inflates beyond", "bomb.pt.trace.json.gz",
                          one("bomb.pt.trace.json.gz", [](uint64_t) {
                            return gzipRepeated("{\"schemaVersion\":1,\"traceEvents\":[" + stepEvent(0, 0, 1000000000) + ",",
                                                kernelEvent("k", 1, 1) + ",", 4'000'000, kernelEvent("k", 2, 1) + "]}");
                          })));
  v.push_back(profileCase("kineto.steps_x_names",
                          "9000 steps with a kernel name of their own each: per-step tables grew as steps x names (1.3 GB)",
                          allProfile(0), "", "steps_x_names.pt.trace.json",
                          one("steps_x_names.pt.trace.json", [](uint64_t) {
                            std::string ev;
                            for (long long s = 0; s < 9000; ++s)
                              ev += (s ? "," : "") + stepEvent(s, s * 200, 100) + "," + kernelEvent("k" + std::to_string(s), s * 200 + 1, 5);
                            return kineto(ev);
                          })));
  v.push_back(profileCase("kineto.nested_100k",
                          "100000 nested CPU operators in one step: the analysis was quadratic (250k: 405 s)",
                          allProfile(0), "", "nested.pt.trace.json", one("nested.pt.trace.json", [](uint64_t) {
                            constexpr long long n = 100000;
                            const char* names[] = {"aten::linear", "aten::addmm", "aten::mm", "aten::relu"};
                            std::string ev = stepEvent(1, 0, 20 * n + 10);
                            for (long long i = 0; i < n; ++i)
                              ev += ",{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"" + std::string(names[i % 4]) +
                                    "\",\"pid\":1,\"tid\":1,\"ts\":" + std::to_string(1 + i) + ",\"dur\":" + std::to_string(20 * n - 2 * i) +
                                    ",\"args\":{\"Input Dims\":[[8,8],[8,8]],\"Input type\":[\"float\",\"float\"]}}";
                            return kineto(ev);
                          })));
  {
    Entry e = profileCase("kineto.max_events", "1001 kernel events read with --max-events 1000", allProfile(2, 0), "--max-events",
                          "events_1001.pt.trace.json", one("events_1001.pt.trace.json", [](uint64_t) {
                            std::string ev = stepEvent(0, 0, 100000);
                            for (int k = 0; k < 1001; ++k) ev += "," + kernelEvent("k" + std::to_string(k % 7), 1 + k * 10, 5);
                            return kineto(ev);
                          }));
    e.c.extraArgs = {"--max-events", "1000"};
    e.c.says["compare"] = "";
    v.push_back(e);
  }
  v.push_back(profileCase("ort.tab_name",
                          "an ONNX Runtime profile whose node name holds a raw TAB, as the runtime writes it (invalid JSON)",
                          allProfile(0), "", "ort_tab.json", one("ort_tab.json", [](uint64_t) { return ortTrace("Relu\t0", 12); })));
  v.push_back(profileCase("ort.escape_names",
                          "an ONNX Runtime profile whose node name holds raw terminal escapes, U+009B, a right-to-left "
                          "override, a newline with a forged line, <script> and a javascript: link",
                          allProfile(0), "", "ort_escapes.json", one("ort_escapes.json", [](uint64_t) { return ortTrace(kHostileName, 12); })));
  v.push_back(profileCase("ort.dur_1e308", "a kernel duration of 1e308 µs (a 63-digit headline, exit 0)", allProfile(2),
                          "longer than a year", "ort_1e308.json", one("ort_1e308.json", [](uint64_t) {
                            std::string t = ortTrace("Relu_0", 12);
                            return t.replace(t.find("\"dur\":12"), 8, "\"dur\":1e308");
                          })));
  v.push_back(profileCase("trt.layer_1e308", "a trtexec layer of 1e308 ms", allProfile(2), "longer than a year", "trt_1e308.json",
                          one("trt_1e308.json", [](uint64_t) {
                            return std::string("[{\"count\":10},{\"name\":\"Relu_0\",\"timeMs\":5,\"averageMs\":1e308}]");
                          })));
  {
    Entry e = profileCase("trt.max_names", "101 trtexec layers read with --max-names 100", allProfile(2, 0), "--max-names",
                          "trt_101.json", one("trt_101.json", [](uint64_t) {
                            std::string s = "[{\"count\":10}";
                            for (int k = 0; k < 101; ++k)
                              s += ",{\"name\":\"layer" + std::to_string(k) + "\",\"timeMs\":1,\"averageMs\":0.1}";
                            return s + "]";
                          }));
    e.c.extraArgs = {"--max-names", "100"};
    e.c.says["compare"] = "";
    v.push_back(e);
  }
  {
    Entry e = profileCase("msprof.max_rows", "an op_summary CSV of 1001 rows read with --max-events 1000", allProfile(2, 0),
                          "--max-events", "msprof_rows/op_summary_1.csv", one("msprof_rows/op_summary_1.csv", [](uint64_t) {
                            std::string s = kOpSummaryHeader;
                            for (int k = 0; k < 1001; ++k) s += kOpSummaryRow;
                            return s;
                          }));
    e.c.extraArgs = {"--max-events", "1000"};
    e.c.says["compare"] = "";
    v.push_back(e);
  }
  v.push_back(profileCase("msadvisor.dur_1e308", "msadvisor's own profile --json with a node of 1e308 ms", allProfile(2, 2),
                          "longer than a year", "profile_1e308.json", one("profile_1e308.json", [](uint64_t) {
                            return std::string("{\"device\":\"cpu\",\"latency_ms\":{\"median\":2},\"nodes\":"
                                               "[{\"name\":\"Relu_0\",\"op_type\":\"Relu\",\"median_ms\":1e308}]}");
                          })));
  v.push_back(profileCase("msadvisor.escape_names",
                          "msadvisor's own profile --json whose node names hold terminal escapes, a forged line, <script> "
                          "and a javascript: link",
                          allProfile(0, 0), "", "profile_escapes.json", one("profile_escapes.json", [](uint64_t) {
                            nlohmann::json j{{"device", "cpu"}, {"latency_ms", {{"median", 2.0}}}};
                            j["nodes"] = nlohmann::json::array();
                            for (int k = 0; k < 3; ++k)
                              j["nodes"].push_back({{"name", kHostileName + std::to_string(k)}, {"op_type", "Relu"}, {"median_ms", 0.5}});
                            return j.dump();
                          })));
  v.push_back(profileCase("profile.fifo", "a profile that is a FIFO (named pipe) nobody writes", allProfile(2), "FIFO",
                          "trace_fifo.json", one("trace_fifo.json", [](uint64_t) { return kFifo; })));
  v.push_back(profileCase("profile.device", "a profile that is a symlink to /dev/zero", allProfile(2), "character device",
                          "trace_zero.json", one("trace_zero.json", [](uint64_t) { return kLinkToDevZero; })));
  return v;
}

}  // namespace

std::vector<HostileCase> hostileCases() {
  std::vector<HostileCase> out;
  for (const Entry& e : entries()) out.push_back(e.c);
  return out;
}

namespace {

// Writes `bytes` at `p`, or what a marker says (a FIFO, a link to /dev/zero).
void writeBytes(const fs::path& p, std::string_view bytes) {
  fs::create_directories(p.parent_path());
  std::error_code ec;
  fs::remove(p, ec);
  if (bytes == kFifo) {
    if (::mkfifo(p.c_str(), 0600) != 0) throw std::runtime_error("mkfifo " + p.string());
    return;
  }
  if (bytes == kLinkToDevZero) {
    fs::create_symlink("/dev/zero", p);
    return;
  }
  std::ofstream(p, std::ios::binary | std::ios::trunc).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace

void writeHostileCases(const fs::path& dir, uint64_t seed) {
  writeBytes(dir / "base.onnx", baseModel());
  writeBytes(dir / "models" / "base.onnx", baseModel());  // what external_offset points into
  for (const Entry& e : entries())
    for (const auto& [path, bytes] : e.make(seed)) writeBytes(dir / path, bytes);
}

std::string hostileCasesMarkdown() {
  const auto cell = [](const HostileCase& c, const std::string& verb) -> std::string {
    auto it = c.exitCode.find(verb);
    if (it == c.exitCode.end()) return "–";
    return it->second == 0 ? "accepted (0)" : it->second == 2 ? "refused (2)" : "exit " + std::to_string(it->second);
  };
  // The table's own '|' and newlines stay out of the cells.
  const auto what = [](std::string w) {
    for (char& ch : w)
      if (ch == '|') ch = '/';
    return w;
  };
  std::ostringstream s;
  s << "| case | input | info | estimate | analyze | optimize --verify | report | compare |\n|---|---|---|---|---|---|---|---|\n";
  for (const HostileCase& c : hostileCases())
    if (!c.profile) {
      s << "| `" << c.id << "` | " << what(c.what);
      for (const auto& v : kModelVerbs) s << " | " << cell(c, v);
      s << " |\n";
    }
  s << "\n| case | input | profile --import | analyze --profile | training | compare |\n|---|---|---|---|---|---|\n";
  for (const HostileCase& c : hostileCases())
    if (c.profile) {
      s << "| `" << c.id << "` | " << what(c.what);
      for (const auto& v : kProfileVerbs) s << " | " << cell(c, v);
      s << " |\n";
    }
  return s.str();
}

std::string hostileCasesJson() {
  nlohmann::json out = nlohmann::json::array();
  for (const HostileCase& c : hostileCases())
    out.push_back({{"id", c.id}, {"file", c.file}, {"profile", c.profile}, {"extra_args", c.extraArgs}, {"exit", c.exitCode}});
  return out.dump(1);
}

uint64_t memoryBound(const fs::path& input) {
  uint64_t size = 0;
  std::error_code ec;
  if (fs::is_directory(input, ec)) {
    for (fs::recursive_directory_iterator it(input, ec), end; !ec && it != end; it.increment(ec))
      if (it->is_regular_file(ec)) size += it->file_size(ec);
  } else if (fs::is_regular_file(input, ec)) {
    size = fs::file_size(input, ec);
  }
  return (uint64_t(1) << 30) + 4 * size;
}

}  // namespace msa::test
