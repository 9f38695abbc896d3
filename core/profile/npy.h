#pragma once
// NumPy .npy files (format versions 1.0–3.0), the other common way to hand a model its inputs.
#include <filesystem>
#include <string>
#include <string_view>

#include "model/tensor.h"
#include "util/error.h"

namespace msa {

// Little- and big-endian numeric and bool arrays in C order; `label` names the source in errors.
Result<Tensor> parseNpy(std::string_view bytes, const std::string& label);
Result<Tensor> loadNpy(const std::filesystem::path& file);
// Serializes a numeric tensor as a version 1.0 .npy (tests, exporting inputs).
Result<std::string> toNpy(const Tensor& t);

}  // namespace msa
