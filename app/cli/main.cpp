#include <cstdio>
#include "model/onnx_io.h"
#include "model/shape_inference.h"
int main(int argc, char** argv) {
  if (argc < 2) return 1;
  auto m = msa::loadModel(argv[1]);
  if (!m) { std::fprintf(stderr, "%s\n", m.error().describe().c_str()); return 2; }
  auto r = msa::inferShapes(*m);
  std::printf("nodes %zu total %zu shaped %zu unshaped %zu\n", m->graph.nodes.size(), m->graph.totalNodeCount(), r->valuesWithShape, r->valuesWithoutShape);
  for (auto& w : r->warnings) std::printf("warn %s\n", w.c_str());
  return 0;
}
