#pragma once
// What the profile fuzz targets do with one input, shared with tst_fuzz_importers (which replays
// the fixed crashers in regressions-profile/<format>/ in every build): arbitrary bytes as an ONNX
// Runtime profile JSON ("ort"), an msprof / torch_npu CSV ("msprof"), a PyTorch Kineto trace
// ("kineto"), a Netron attachment ("attachment") or a trtexec profile ("trt"), imported against a
// small model so node matching runs too. Errors returned as values are fine.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "model/graph.h"
#include "profile/attachment_import.h"
#include "profile/kineto_import.h"
#include "profile/msprof_import.h"
#include "profile/ort_trace.h"
#include "profile/trt_import.h"

namespace msa::fuzz {

namespace fs = std::filesystem;

// x[1,8] -> Relu "Relu_0" -> Conv "conv1" -> y: names the generated profiles can match.
inline const Model& model() {
  static const Model m = [] {
    Model mm;
    mm.setOpset("", 17);
    Graph& g = mm.graph;
    g.inputs.push_back({"x", TypeInfo::tensor(DType::Float, Shape{1, 8}), {}, {}});
    Node relu;
    relu.name = "Relu_0";
    relu.opType = "Relu";
    relu.inputs = {"x"};
    relu.outputs = {"r"};
    g.addNode(relu);
    Node conv;
    conv.name = "conv1";
    conv.opType = "Conv";
    conv.inputs = {"r"};
    conv.outputs = {"y"};
    g.addNode(conv);
    g.outputs.push_back({"y", TypeInfo::tensor(DType::Float, Shape{1, 8}), {}, {}});
    return mm;
  }();
  return m;
}

// The importers that read files get one in a private folder (tmpfs when there is one), removed
// at exit.
struct ScratchDir {
  fs::path dir;
  ScratchDir() {
    fs::path base = fs::exists("/dev/shm") ? fs::path("/dev/shm") : fs::temp_directory_path();
    dir = base / ("msa-fuzz-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

inline fs::path scratch(const std::string& name) {
  static const ScratchDir s;
  for (const auto& e : fs::directory_iterator(s.dir)) fs::remove_all(e.path());
  return s.dir / name;
}

inline fs::path writeFile(const std::string& name, std::string_view bytes) {
  fs::path p = scratch(name);
  std::ofstream(p, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return p;
}

inline void importProfileBytes(std::string_view format, std::string_view bytes) {
  if (format == "ort") {
    if (auto t = parseOrtTrace(bytes, "fuzz.json"))
      for (int skip : {0, 1}) (void)profileFromTrace(*t, skip, "fuzz.json");
    (void)loadOrtTrace(writeFile("fuzz.json", bytes));  // the streamed reader with its repair of raw names
  } else if (format == "msprof") {
    // The first byte picks which file the CSV claims to be: msprof's op_summary or torch_npu's.
    if (bytes.empty()) return;
    (void)importMsprof(writeFile(bytes[0] % 2 ? "kernel_details.csv" : "op_summary_0.csv", bytes.substr(1)), &model());
  } else if (format == "kineto") {
    (void)importKineto(writeFile("fuzz.pt.trace.json", bytes), &model());
  } else if (format == "attachment") {
    (void)importAttachmentText(bytes, model(), "fuzz.json");
  } else if (format == "trt") {
    (void)importTensorRt(writeFile("fuzz.profile", bytes), &model());
  }
}

}  // namespace msa::fuzz
