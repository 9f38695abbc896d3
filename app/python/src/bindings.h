#pragma once
// The pieces of msadvisor._core, one file per area of core.
#include <memory>

#include <pybind11/pybind11.h>

#include "model/graph.h"

namespace msa::py {

// A loaded model as Python holds it: immutable and shared (an analysis or an optimization keeps
// its own reference, so the Python object can go away while they run).
struct ModelHandle {
  std::shared_ptr<const Model> model;
};

void bindModel(pybind11::module_& m);
void bindAnalysis(pybind11::module_& m);
void bindOptimize(pybind11::module_& m);
void bindTraining(pybind11::module_& m);

}  // namespace msa::py
