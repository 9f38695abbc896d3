#pragma once
// What-ifs on an Ascend NPU, estimated and said so (no device here): the model priced with the
// cost model on the device profile's per-dtype cube and vector rates, from its own precision
// (float32 kept: ATC --precision_mode=must_keep_origin_dtype, torch_npu's default) to
//  - float16 on the cube and vector units (ATC --precision_mode=force_fp16, ATC's default;
//    torch_npu AMP torch.npu.amp.autocast()),
//  - float16 on the cube only, vector ops kept float32 (allow_fp32_to_fp16; allow_mix_precision_fp16
//    lowers further along the built-in lists),
//  - bfloat16 (allow_fp32_to_bf16 / allow_mix_precision_bf16; autocast(dtype=torch.bfloat16)),
//  - HF32 on the cube (torch_npu.npu.matmul.allow_hf32 / conv.allow_hf32),
//  - int8 cube work through AMCT (amct_onnx calibration, then ATC),
//  - op_select_implmode=high_performance (the faster, less precise implementation of
//    transcendental vector ops: an assumed factor, labelled so).
// Each variant carries the option that enables it and a caveat key; accuracy is not measured.
#include "util/error.h"
#include "util/progress.h"
#include "whatif/whatif.h"

namespace msa {

Status estimateAscendWhatIf(const Model& model, const WhatIfRequest& request, WhatIfResult& result,
                            const Progress& progress = Progress::none());

}  // namespace msa
