#pragma once
// NumPy .npz archives (np.savez, np.savez_compressed): a zip of .npy arrays, stored or deflated,
// with or without ZIP64 records (NumPy writes them). Each array keeps its name without ".npy".
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/tensor.h"
#include "util/error.h"

namespace msa {

// No array larger than this is inflated: a .npz is input data, and a deflate bomb must not take
// the machine's memory.
inline constexpr uint64_t kMaxNpzArrayBytes = uint64_t(2) << 30;

Result<std::vector<std::pair<std::string, Tensor>>> parseNpz(std::string_view bytes, const std::string& label);
Result<std::vector<std::pair<std::string, Tensor>>> loadNpz(const std::filesystem::path& file);

}  // namespace msa
