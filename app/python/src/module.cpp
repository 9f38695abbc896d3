// msadvisor._core: the C++ engine for the `msadvisor` Python package. Thin: every call goes to the
// core API the CLI and the GUI use (runAnalysis, optimize, the training analysis, runWhatIf); long calls run
// through runJob (GIL released, progress callback, Ctrl-C cancels).
#include <pybind11/pybind11.h>

#include "bindings.h"
#include "errors.h"
#include "job.h"

PYBIND11_MODULE(_core, m) {
  m.doc() = "msadvisor's C++ engine (use the msadvisor package, not this module directly)";
  m.attr("__version__") = MSA_VERSION;
  m.attr("DEFAULT_TIMEOUT") = msa::py::kDefaultTimeoutSeconds;  // seconds, as the CLI's --timeout
  msa::py::registerErrors(m);
  m.def("running_jobs", &msa::py::runningJobs, "Core calls whose worker thread is still running (0 between calls).");
  msa::py::bindModel(m);
  msa::py::bindAnalysis(m);
  msa::py::bindOptimize(m);
  msa::py::bindTraining(m);
  msa::py::bindWhatIf(m);
}
