// The model analysis (runAnalysis, the entry point the CLI and the GUI call): filled in when
// core/advisor/run_analysis.h is on main.
#include "bindings.h"

namespace msa::py {

void bindAnalysis(pybind11::module_&) {}

}  // namespace msa::py
