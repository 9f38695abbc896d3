#include "bindings.h"
namespace msa::py {
void bindAnalysis(pybind11::module_& m) { pybind11::class_<AnalysisHandle>(m, "Analysis"); }
}  // namespace msa::py
