// libFuzzer target: arbitrary bytes through everything a user's "open" does with a file —
// import, shape inference, the index, the topological order, tensor reads and a re-export.
// Any crash, sanitizer report or hang is a bug; errors returned as values are fine.
// Built twice: fuzz_model_import skips shape inference (libonnx runs in a forked child there,
// which costs ~10 ms an input under ASan), fuzz_shape_inference includes it.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "model/graph_index.h"
#include "model/onnx_io.h"
#include "model/shape_inference.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  // External data resolves against a folder the fuzzer cannot fill: only refusals are reachable.
  auto model = msa::loadModelFromBytes(bytes, "/nonexistent-fuzz-dir", "fuzz.onnx");
  if (!model) return 0;
#ifdef MSA_FUZZ_SHAPES
  msa::ShapeOptions so;
  so.dims["batch"] = 1;
  (void)msa::inferShapes(*model, so);
#endif
  model->graph.forEachGraph([](const msa::Graph& g, int) {
    msa::GraphIndex idx(g);
    (void)g.topologicalOrder();
    for (const msa::Node& n : g.nodes)
      for (const auto& o : n.outputs) (void)idx.shape(o);
    for (const msa::Tensor& t : g.initializers) (void)t.toDouble();
  });
  if (auto again = msa::serializeModel(*model)) (void)msa::loadModelFromBytes(*again, {}, "re-export");
  return 0;
}
