#pragma once
// Generic per-node metrics in Netron's attachment format, the fallback importer for any tool
// that can write a list of (node, metric, value):
//
//   {"signature": "netron:attachment",
//    "metadata": [...],                                   // ignored
//    "metrics": [{"kind": "node", "target": "/conv1/Conv", "name": "latency", "value": 0.84, "type": "ms"},
//                {"kind": "model", "target": "", "name": "latency_ms", "value": [7.9, 8.1, 8.0]}, …]}
//
// What is accepted:
//  - A time metric is one whose name, lower-cased and without a unit suffix, is "latency",
//    "time", "duration" or "elapsed". The unit comes from the name's suffix ("latency_ms",
//    "time_us", "duration (µs)", "elapsed[ns]"), else from "type" when it is a unit, else from
//    a string value ("1.5 ms"); with no unit anywhere the value is in MILLISECONDS.
//    Units: s, ms, us, µs, ns.
//  - "value" is a number, a numeric string (optionally with its unit) or an array of numbers
//    (one sample per iteration: statistics are computed from them).
//  - kind "node": "target" (or Netron's "identifier") is the ONNX node name; Netron's rule of
//    matching only the first line of a name is followed. The first time metric of a node
//    wins; other numeric node metrics are kept in NodeProfile::metrics under their name.
//  - kind "model" or "graph" with a time metric: the end-to-end latency.
//  - Other kinds (value, tensor) and non-numeric metrics are ignored.
// Nodes that match no IR node are listed in ProfileData::unmatched (and kept as entries).
// Errors name the file and the item index: not JSON, a wrong signature, a "metrics" that is
// not an array, an item without kind/name/target, a time that is not a non-negative number,
// no node with a time metric.
#include <filesystem>
#include <string>
#include <string_view>

#include "model/graph.h"
#include "profile/profile_data.h"
#include "util/error.h"

namespace msa {

inline constexpr std::string_view kAttachmentSignature = "netron:attachment";

Result<ProfileData> importAttachment(const std::filesystem::path& file, const Model& model);
Result<ProfileData> importAttachmentText(std::string_view json, const Model& model, const std::string& label);

}  // namespace msa
