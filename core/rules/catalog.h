#pragma once
// The rule families' descriptions as one JSON document: every resources/rules/<family>.json
// compiled into core, plus the families registered at run time (family_registry.h). Rule texts
// are keyed by rule id; the "_blockers", "_ui", "_texts" and "_docks" sections of all files merge;
// each file's "_family" is kept under "_families"/<id>. Readers take a snapshot, so a
// registration never changes a document someone is reading.
#include <memory>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "util/error.h"

namespace msa {

std::shared_ptr<const nlohmann::json> catalogSnapshot();

// Merges one family file into the catalog. Refused (naming `label` and the key) when it is not an
// object, or redefines a rule id or a family another file already gave.
Status addToCatalog(const nlohmann::json& file, const std::string& label);

}  // namespace msa
