#pragma once
// The variants that leave the model's arithmetic alone or change only its precision format:
// session settings (threads, spinning, execution mode), the batch size, and bfloat16 compute.
#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "model/data_value.h"
#include "model/graph.h"
#include "util/error.h"
#include "whatif/variant_timing.h"

namespace msa {

// Intra-op threads 1…cores (at most 8 counts: 1, 2, 4… and the cores), spinning off, and
// parallel execution, each beside the defaults; named "threads_N", "spinning_off", "parallel_execution".
std::vector<std::pair<std::string, VariantSettings>> runtimeSettingVariants(int cores);

// How the model's batch dim can change.
enum class BatchDim {
  Symbolic,  // every input's dim 0 is symbolic: any batch runs
  MadeSymbolic,  // it was fixed at 1 and runs at other sizes once declared symbolic (checked item by item)
  Fixed,     // fixed (at 1 with a graph that depends on it, or above 1): not varied
  None,      // an input without dims, or no inputs
};
std::string_view batchDimName(BatchDim d);  // "symbolic", "made_symbolic", "fixed", "none"

// `model` with dim 0 of every runtime input and graph output declared symbolic ("batch").
Model withSymbolicBatch(const Model& model);
BatchDim batchDimOf(const Model& model);

// `batch` items: the samples' inputs concatenated along dim 0 (cycling through the samples).
std::vector<DataValue> stackSamples(const std::vector<std::vector<DataValue>>& samples, int batch);
// The per-item outputs of a batched run: every output whose dim 0 is `batch` split into `batch`
// values; other outputs are repeated as they are.
std::vector<std::vector<DataValue>> splitItems(const std::vector<DataValue>& outputs, int batch);

// The CPU can compute in bfloat16 (AVX512-BF16 or AMX-BF16 in /proc/cpuinfo).
bool cpuHasBf16();
// Conv/MatMul/Gemm computed in bfloat16: their float activations Cast to bfloat16, their weights
// stored in it, their result Cast back to float. `nodes` receives the nodes converted.
Model bf16Variant(const Model& model, std::set<std::string, std::less<>>* nodes = nullptr);

}  // namespace msa
