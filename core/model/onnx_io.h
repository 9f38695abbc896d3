#pragma once
// Reading and writing ONNX files. The only place (with onnx_proto.h) that sees protobuf.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "model/graph.h"
#include "util/error.h"
#include "util/run_files.h"

namespace msa {

// Loads a model. Weights stored inside the file are moved, not copied, out of the protobuf;
// external data is memory-mapped and read only when a tensor's bytes are used. A location that
// resolves outside the model's folder is refused.
Result<Model> loadModel(const std::filesystem::path& path);
// `baseDir` resolves external data; `label` names the source in error messages.
Result<Model> loadModelFromBytes(std::string_view bytes, const std::filesystem::path& baseDir = {},
                                 const std::string& label = "<memory>");

struct SaveOptions {
  bool keepGeneratedNames = false;  // write the names the importer gave to nameless nodes
  enum class External { Auto, Never, Always };
  // Auto: external when the source had external data or the weights exceed the protobuf limit.
  External external = External::Auto;
  int64_t externalMinBytes = 1024;  // smaller tensors stay inline
  std::string externalFileName;     // default: "<output file name>.data"
  // serializeModel only: a tensor for which this returns a location is written without its
  // bytes, as external data there (a file a runtime reads, or a placeholder for bytes handed to
  // it separately).
  std::function<std::optional<ExternalLocation>(const Tensor&)> detach;
};

// The serialized model with all weights inline (fails beyond the 2 GB protobuf limit).
Result<std::string> serializeModel(const Model& model, const SaveOptions& options = {});
// Writes atomically (temporary file + rename). Refuses to write over a directory or over any file
// the model reads (model.path, its external data): neither `out` nor the data file it generates.
Status saveModel(const Model& model, const std::filesystem::path& out, const SaveOptions& options = {});

// The files a loaded model reads: the file it came from and its external data.
void addModelFiles(ReadFiles& reads, const Model& model);
// The files saveModel(model, out, options) writes: `out`, and its external data file when the
// weights go external (`what` names the output, "-o").
std::vector<PlannedOutput> savedFiles(const Model& model, const std::filesystem::path& out,
                                      const SaveOptions& options = {}, const std::string& what = "the model");

}  // namespace msa
