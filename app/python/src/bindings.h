#pragma once
// The pieces of msadvisor._core, one file per area of core.
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <pybind11/pybind11.h>

#include "advisor/advisor.h"
#include "model/graph.h"

namespace msa::py {

// A loaded model as Python holds it: immutable and shared (an analysis or an optimization keeps
// its own reference, so the Python object can go away while they run).
struct ModelHandle {
  std::shared_ptr<const Model> model;
};

// An analysis: the model as analysed (dims bound, shapes inferred) and its report.
struct AnalysisHandle {
  std::shared_ptr<const Model> model;
  std::shared_ptr<const Report> report;
  std::vector<std::string> warnings;
  std::vector<std::string> reads;  // files the analysis read besides the model (the profile)
};

// Writes a report or a JSON file the way the CLI does (util/run_files.h): atomically, and never
// over a file the run read — `model` (with its external data) or any of `reads`, through symlinks
// and hard links. The GIL is released while writing.
void writeOutput(const std::filesystem::path& out, const std::string& text, const Model* model,
                 const std::vector<std::string>& reads);

// A JSON document as the CLI writes it: bytes that are not UTF-8 (a name from a profile) become
// U+FFFD instead of failing the whole report.
inline std::string jsonText(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void bindModel(pybind11::module_& m);
void bindAnalysis(pybind11::module_& m);
void bindOptimize(pybind11::module_& m);
void bindTraining(pybind11::module_& m);
void bindWhatIf(pybind11::module_& m);

}  // namespace msa::py
