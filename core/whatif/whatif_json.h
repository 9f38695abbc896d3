#pragma once
// The `what-if --json` document (DESIGN.md's contract: add fields freely, rename none), shared by
// the CLI, Python and the GUI's dock (which reads it from its `msadvisor-cli what-if` child).
#include <nlohmann/json.hpp>

#include "rules/texts.h"
#include "whatif/whatif.h"

namespace msa {

nlohmann::json whatIfJson(const WhatIfResult& r, Lang lang = Lang::En);
// The parts of a result the GUI needs back from the JSON (variants with their layers, best,
// baseline, measurement); the models themselves are not in it.
Result<WhatIfResult> whatIfFromJson(const nlohmann::json& j);

}  // namespace msa
