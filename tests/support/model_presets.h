#pragma once
// Small models, each holding one known pattern inside a little realistic context, for rule,
// fusion and optimizer tests. `nodes` names the nodes that form the pattern, in graph order,
// so a test can assert that a rule reports exactly them.
#include <string>
#include <vector>

#include "model/graph.h"

namespace msa::test::presets {

struct PatternModel {
  std::string name;
  Model model;
  std::vector<std::string> nodes;  // the pattern's nodes (Constant helpers excluded)
};

PatternModel convBnRelu();                 // Conv -> BatchNormalization -> Relu (foldable + fusable)
PatternModel matmulAddGelu();              // MatMul -> Add(bias) -> exact GELU as Div/Erf/Add/Mul/Mul
PatternModel inverseTransposePair();       // NCHW->NHWC Transpose immediately undone between two convs
PatternModel sliceConcat();                // YOLOv5 "Focus": four strided Slices -> Concat
PatternModel misalignedDims();             // Conv with 20 output channels, MatMul with K=50, N=77
PatternModel layerNormDecomposed();        // ReduceMean/Sub/Pow/ReduceMean/Add/Sqrt/Div/Mul/Add (opset 14)
PatternModel layerNormFused();             // LayerNormalization (opset 17)
PatternModel multiConsumerIntermediate();  // Conv output also feeds a residual Add: BN fold is illegal
PatternModel intermediateIsGraphOutput();  // BN output is also a graph output: BN+Relu fusion is illegal
PatternModel channelShuffle();             // Reshape -> Transpose -> Reshape (ShuffleNet)
PatternModel castRoundTrip();              // float -> Cast(float16) -> Cast(float): a precision no-op
PatternModel convReluConv();               // Conv -> Relu -> Conv: a pipeline, not a fusion
PatternModel shapeArithmetic();            // Shape -> Gather -> Unsqueeze -> Concat -> Reshape (foldable)
PatternModel gemmHead();                   // MaxPool -> Reshape -> Gemm -> Softmax classifier head

std::vector<PatternModel> all();

// Transformer blocks written op for op as torch.onnx.export (torch 1.13, opset 17) writes them,
// for the named patterns (issue 11.6); not in all(). `nodes`: the pattern the name says.
PatternModel gptBlock();    // LayerNorm, QKV, attention with a Where mask; `nodes`: the tanh GELU
PatternModel llamaBlock();  // RMSNorm, rotary Q and K, attention with an additive mask, SwiGLU; `nodes`: Q's rotary

}  // namespace msa::test::presets
