// libFuzzer targets for the profile importers, one per format: MSA_FUZZ_FORMAT ("ort", "msprof",
// "kineto", "attachment", "trt") picks it; profile_fuzz_input.h says what each does. Any crash,
// sanitizer report or hang is a bug.
#include <cstddef>
#include <cstdint>

#include "profile_fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  msa::fuzz::importProfileBytes(MSA_FUZZ_FORMAT, std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
