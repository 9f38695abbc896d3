#pragma once
// IEEE binary16 <-> float32 conversion (round to nearest even), for float16 tensors.
#include <cstdint>

namespace msa {

float halfToFloat(uint16_t h);
uint16_t floatToHalf(float f);

}  // namespace msa
