#pragma once
// Ascend format assignment: which layout each operator runs in (NC1HWC0 "5HD", FRACTAL_NZ, or
// the origin ND/NCHW layout), from the data table resources/ascend/op_formats.json, and the
// TransData conversions that assignment forces. A simulation of what ATC's graph engine does,
// used when no msprof profile with real TransData rows is at hand.
#include <string>
#include <vector>

#include "model/dtype.h"
#include "rules/rule.h"

namespace msa {

enum class TensorFormat { Plain, Nc1hwc0, FractalNz };
std::string_view formatName(TensorFormat f);  // "ND/NCHW", "NC1HWC0", "FRACTAL_NZ"

// What the table says an operator can run in.
enum class FormatClass {
  Heavy,     // NC1HWC0 (4-D activations; 3-D for 1-D conv/pool, which ATC runs as 2-D)
  Cube,      // FRACTAL_NZ activations (MatMul, Gemm)
  Agnostic,  // any format: follows its input (unary elementwise)
  Binary,    // elementwise with broadcasting: NC1HWC0 / FRACTAL_NZ only for some shapes
  Concat,    // NC1HWC0 along H/W, or along C when every input's C is a multiple of C0
  Softmax,   // NC1HWC0, or FRACTAL_NZ when the last two dims are multiples of 16
  Plain,     // only the origin layout
};

struct OpFormatEntry {
  FormatClass cls = FormatClass::Plain;
  bool reshape = false;  // a shape-only op (Reshape, Transpose…): msadvisor's Reshape_Ops_Interrupts_Format
  std::string origin;    // "quoted", "derived", "assumed"
  std::string source;    // key of the table's "sources"
  std::string note;
};

// The entry for an op type (the table's default for ops it does not list).
const OpFormatEntry& opFormatEntry(std::string_view opType);
// Citation text of a source key of the table.
std::string opFormatSource(std::string_view key);

struct SimTransData {
  std::string value;   // the IR value converted
  long producer = -1;  // node index; -1 for a graph input
  long consumer = -1;  // node index; -1 for a graph output
  TensorFormat from = TensorFormat::Plain, to = TensorFormat::Plain;
  std::vector<int64_t> dims;         // logical shape of the value
  DType dtype = DType::Undefined;    // the element type the device moves (compute type)
  double bytesIn = 0, bytesOut = 0;  // including C0 / fractal padding
  double ms = 0;                     // estimated: bytes at the device bandwidth + one launch
};

struct FormatSimulation {
  bool ran = false;                      // false: not an NPU profile, or nothing to simulate
  int c0 = 16;                           // channel block for the model's compute type
  std::vector<TensorFormat> nodeFormat;  // per node: the format it runs in
  std::vector<bool> runs;                // per node: executes at run time (not folded, not Constant)
  std::vector<SimTransData> transData;
};

FormatSimulation simulateAscendFormats(const AnalysisContext& ctx);

// Bytes of a tensor of `dims` stored in `format` with channel block c0 (FRACTAL_NZ: 16×16
// fractals, 16×32 for one-byte types; `foldRows`: the leading dims form the rows, as for a
// MatMul against a 2-D weight, instead of one matrix per batch).
double formatBytes(const std::vector<int64_t>& dims, DType type, TensorFormat format, int c0, bool foldRows = false);

// The Ascend part of the format family (simulated TransData, or measured ones from msprof).
void ascendFormatFindings(const AnalysisContext& ctx, std::vector<Finding>& out);

}  // namespace msa
