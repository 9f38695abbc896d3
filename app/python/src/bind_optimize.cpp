// The optimizer: filled in next.
#include "bindings.h"

namespace msa::py {

void bindOptimize(pybind11::module_&) {}

}  // namespace msa::py
