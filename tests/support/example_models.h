#pragma once
// The bundled example models (README): a small YOLO-like detector and a small transformer
// encoder, written by the model builder the way torch.onnx.export would write them, with the
// kinds of waste real exports carry so that the advisor has something to find.
#include "model/graph.h"

namespace msa::test::examples {

// Input "images" [1,3,160,160]. Conv->BN->SiLU backbone (widths 20/40/80/160: most not multiples
// of 16), C2f blocks (Split -> bottlenecks -> Concat), SPPF (three chained MaxPools), a PAN neck
// with Resize upsampling and Concat of scales, and a YOLOv5-style head per scale
// (Conv -> Reshape -> Transpose -> Sigmoid -> Reshape), scales concatenated, then a wasteful
// Transpose pair that cancels out before the boxes and scores are sliced apart.
// Output "output0" [1, 3*(20*20+10*10+5*5), 9].
Model tinyYolo();

// Input "input_ids" [1,64] int64. Embedding Gather + positions, two pre-LN encoder layers at
// width 120 (4 heads of 30, MLP 480) with LayerNorm decomposed (opset 14), MatMul->Add linears,
// exact GELU decomposed, multi-head attention through Shape->Gather->Unsqueeze->Concat->Reshape
// arithmetic and Transposes, Softmax; outputs "last_hidden_state" [1,64,120] and "logits" [1,5].
Model tinyTransformer();

}  // namespace msa::test::examples
