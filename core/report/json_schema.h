#pragma once
// A small JSON Schema validator for the subset our schemas use (docs/report-schema.json):
// type (one or a list), properties, required, additionalProperties (bool or schema), items,
// enum, const, minimum, maximum, exclusiveMinimum, minLength, minItems, pattern, anyOf, and
// local $ref into $defs. Annotations (title, description, $comment, $id, $schema, examples)
// are ignored. A keyword outside this subset is reported as an error, so a schema cannot
// silently rely on something that is not checked.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace msa {

struct SchemaError {
  std::string path;     // JSON pointer into the document ("/findings/3/priority")
  std::string message;  // "expected one of P0, P1, P2"
};

std::vector<SchemaError> validateJson(const nlohmann::json& document, const nlohmann::json& schema);

}  // namespace msa
