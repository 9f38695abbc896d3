// Kernel cost from profile rows (cost/kernel_cost.h): each family's FLOPs and bytes worked out
// by hand for rows shaped as real torch_npu / msprof rows (the AlexNet convolutions and
// classifier, the msprof-analyze test MatMuls and FlashAttention, GroupedMatmul), the padding of
// origin shapes in device formats, what has no price, and the kernel roofline's terms.
#include <QtTest>

#include <cmath>

#include "cost/kernel_cost.h"

using namespace msa;

namespace {

using V = std::vector<std::string>;

KernelCost cost(const char* type, V in, V inT, V inF, V out, V outT, V outF) {
  return kernelCost(parseKernelSignature(type, in, inT, inF, out, outT, outF));
}

}  // namespace

class TestKernelCost : public QObject {
  Q_OBJECT
 private slots:
  // AlexNet's first convolution in float32: x 5HD [32,1,224,224,8], w FRACTAL_Z [121,4,16,8]
  // (C1·KH·KW = 1·11·11, Cout1 = 4), y [32,8,55,55,8], bias 64.
  void conv2dFrom5hd() {
    auto k = cost("Conv2D", {"[32,1,224,224,8]", "[121,4,16,8]", "[64]"}, {"float", "float", "float"},
                  {"NC1HWC0", "FRACTAL_Z", "NCHW"}, {"[32,8,55,55,8]"}, {"float"}, {"NC1HWC0"});
    QVERIFY2(k.cost.known, k.cost.reason.c_str());
    QCOMPARE(k.family, std::string("conv"));
    QCOMPARE(k.cost.unit, ComputeUnit::Cube);
    QCOMPARE(k.m, int64_t(32 * 55 * 55));
    QCOMPARE(k.n, int64_t(64));           // the bias says Cout
    QCOMPARE(k.k, int64_t(8 * 121));      // C1·C0 × KH·KW as stored
    QCOMPARE(k.paddedK, int64_t(8 * 121));  // float32 K block = 8
    QCOMPARE(k.cost.flops, 2.0 * 96800 * 64 * 968);
    const double bytes = (32.0 * 224 * 224 * 8 + 121 * 4 * 16 * 8 + 64) * 4 + 32.0 * 8 * 55 * 55 * 8 * 4;
    QCOMPARE(k.cost.bytes(), bytes);
    // Conv2DBackpropInput: (input_size, filter, out_backprop) -> dx, the same MACs.
    auto bi = cost("Conv2DBackpropInput", {"[4]", "[121,4,16,8]", "[32,8,55,55,8]"}, {"int32", "float", "float"},
                   {"NCHW", "FRACTAL_Z", "NC1HWC0"}, {"[32,1,224,224,8]"}, {"float"}, {"NC1HWC0"});
    QVERIFY(bi.cost.known);
    QCOMPARE(bi.cost.macs, k.cost.macs);
    auto bf = cost("Conv2DBackpropFilter", {"[32,1,224,224,8]", "[4]", "[32,8,55,55,8]"}, {"float", "int32", "float"},
                   {"NC1HWC0", "NCHW", "NC1HWC0"}, {"[121,4,16,8]"}, {"float"}, {"FRACTAL_Z"});
    QVERIFY(bf.cost.known);
    QCOMPARE(bf.cost.macs, k.cost.macs);
  }

  // MatMulV2 with B transposed (AlexNet fc1: [32,9216] x [4096,9216]^T -> [32,4096]).
  void matmulTransposedAndSkinny() {
    auto k = cost("MatMulV2", {"[32,9216]", "[4096,9216]", "[4096]"}, {"float", "float", "float"}, {"ND", "ND", "ND"},
                  {"[32,4096]"}, {"float"}, {"ND"});
    QVERIFY(k.cost.known);
    QCOMPARE(k.m, int64_t(32));
    QCOMPARE(k.n, int64_t(4096));
    QCOMPARE(k.k, int64_t(9216));
    QCOMPARE(k.logicalFlops, 2.0 * 32 * 4096 * 9216);
    QCOMPARE(k.cost.computeType, DType::Float);
    QVERIFY(k.note.empty());
    // fc3's N = 1000 pads to 1008 on the cube.
    auto f3 = cost("MatMulV2", {"[32,4096]", "[1000,4096]"}, {"float", "float"}, {"ND", "ND"}, {"[32,1000]"}, {"float"}, {"ND"});
    QCOMPARE(f3.paddedN, int64_t(1008));
    QCOMPARE(f3.cost.flops, 2.0 * 32 * 1008 * 4096);
  }

  // Operands that disagree on K (msprof-analyze's test file): the smaller K, bytes to match.
  void matmulInconsistentShapesTakeTheSmallerK() {
    auto k = cost("MatMulV2", {"[81920,4096]", "[8192,512]"}, {"bf16", "bf16"}, {"ND", "ND"}, {"[4096,512]"}, {"bf16"}, {"ND"});
    QVERIFY(k.cost.known);
    QCOMPARE(k.k, int64_t(8192));
    QVERIFY(!k.note.empty());
    QCOMPARE(k.cost.bytesRead, 8192.0 * (4096 + 512) * 2);
  }

  // An NZ operand in its fractal layout is folded back; an origin NZ shape is padded.
  void fractalNz() {
    auto k = cost("BatchMatMul", {"[8,4,2,16,16]", "[8,64,32]"}, {"float16", "float16"}, {"FRACTAL_NZ", "ND"},
                  {"[8,32,32]"}, {"float16"}, {"ND"});
    QVERIFY(k.cost.known);
    QCOMPARE(k.batch, int64_t(8));
    QCOMPARE(k.m, int64_t(32));  // rows 2 x 16
    QCOMPARE(k.k, int64_t(64));  // cols 4 x 16
    KernelTensor t;
    t.present = true, t.type = DType::Float16, t.format = "FRACTAL_NZ", t.dims = {30, 70};
    QCOMPARE(t.elements(), 32.0 * 80);  // 30 -> 32 rows, 70 -> 80 columns (16 float16 per 32 bytes)
    KernelTensor c;
    c.present = true, c.type = DType::Float, c.format = "NC1HWC0", c.dims = {1, 3, 4, 4};
    QCOMPARE(c.elements(), 1.0 * 8 * 4 * 4);  // C 3 -> C0 8 for float32
  }

  // GroupedMatmul: each row through one expert, every expert's weight read.
  void groupedMatmul() {
    auto k = cost("GroupedMatmul", {"[512,16]", "[8,2048,16]", "", "", "", "", "", "[8]"},
                  {"bf16", "bf16", "float", "uint64", "float", "float16", "float16", "int64"},
                  {"ND", "NCL", "ND", "ND", "ND", "ND", "ND", "ND"}, {"[512,2048]"}, {"bf16"}, {"ND"});
    QVERIFY(k.cost.known);
    QCOMPARE(k.logicalFlops, 2.0 * 512 * 2048 * 16);
    QVERIFY(k.cost.bytesRead >= 8.0 * 2048 * 16 * 2);
  }

  // FlashAttention forward and gradient: 2 and 5 products of B N Sq Skv D; a full boolean mask
  // may be causal: the kernel computes the 128 x 128 score blocks on or below the diagonal.
  void flashAttention() {
    const V in{"[4096,2,512]", "[4096,2,512]", "[4096,2,512]", "", "", "", "[4096,4096]"};
    const V inT{"bf16", "bf16", "bf16", "bf16", "uint8", "bf16", "bool"};
    const V inF(7, "NCL");
    auto fwd = cost("FlashAttentionScore", in, inT, inF, {"[2,4,4096,8]", "[2,4,4096,8]", "", "[4096,2,512]"},
                    {"float", "float", "bf16", "bf16"}, {"ND", "ND", "ND", "ND"});
    QVERIFY2(fwd.cost.known, fwd.cost.reason.c_str());
    QCOMPARE(fwd.heads, int64_t(4));
    QCOMPARE(fwd.kvHeads, int64_t(4));
    QCOMPARE(fwd.headDim, int64_t(128));
    QCOMPARE(fwd.seqQ, int64_t(4096));
    QCOMPARE(fwd.seqKv, int64_t(4096));
    QCOMPARE(fwd.mask, std::string("causal"));
    // 32 query blocks of 128 rows: block i computes i + 1 key blocks, 528 of 32 x 32.
    const double bnsd = 4096.0 * 2 * 512, causal = 528.0 / 1024.0;
    QCOMPARE(fwd.cost.flops, 2 * 2 * bnsd * 4096 * causal);
  }

  // Qwen3's attention as torch_npu records it (SBH, 16 query heads, 8 key/value heads, a
  // compressed 2048 x 2048 causal mask on a 4096 sequence, sparse_mode 2/3): causal, not full.
  // (tst_real_profiles cubeWorkMatchesCounters checks it against the real rows' cube counters.)
  void flashAttentionCompressedMaskAndGqa() {
    const V in{"[4096,1,2048]", "[4096,1,1024]", "[4096,1,1024]", "", "", "", "[2048,2048]", "", "", "", "", "", "", "", ""};
    const V inT{"bf16", "bf16", "bf16", "bf16", "uint8", "bf16", "bool", "int64", "int64", "int64", "int64", "int64",
                "float", "float", "float"};
    const V inF(15, "ND");
    const V out{"[1,16,4096,8]", "[1,16,4096,8]", "", "[4096,1,2048]"};
    auto fwd = cost("FlashAttentionScore", in, inT, inF, out, {"float", "float", "bf16", "bf16"}, V(4, "ND"));
    QVERIFY2(fwd.cost.known, fwd.cost.reason.c_str());
    QCOMPARE(fwd.heads, int64_t(16));
    QCOMPARE(fwd.kvHeads, int64_t(8));
    QCOMPARE(fwd.headDim, int64_t(128));
    QCOMPARE(fwd.seqKv, int64_t(4096));
    QCOMPARE(fwd.mask, std::string("compressed causal"));
    const double full = 2.0 * 16 * 4096 * 4096 * 128;  // 6.87e10 MACs
    QCOMPARE(fwd.cost.macs, full * 528.0 / 1024.0);
    // The gradient: mask [2048,2048] at slot 4, statistics among the inputs; 5 products.
    const V gin{"[4096,1,2048]", "[4096,1,1024]", "[4096,1,1024]", "[4096,1,2048]", "[2048,2048]", "[1,16,4096,8]",
                "[1,16,4096,8]", "", "[4096,1,2048]"};
    const V ginT{"bf16", "bf16", "bf16", "bf16", "bool", "float", "float", "bf16", "bf16"};
    auto bwd = cost("FlashAttentionScoreGrad", gin, ginT, V(9, "ND"), {"[4096,1,2048]", "[4096,1,1024]", "[4096,1,1024]"},
                    V(3, "bf16"), V(3, "ND"));
    QVERIFY2(bwd.cost.known, bwd.cost.reason.c_str());
    QCOMPARE(bwd.mask, std::string("compressed causal"));
    QCOMPARE(bwd.cost.macs, 5.0 * 16 * 4096 * 4096 * 128 * 528.0 / 1024.0);
    // Without any mask every block is computed; a [2048,2048] mask on a 2048 sequence is an
    // ordinary (uncompressed) one.
    auto none = cost("FlashAttentionScore", V(in.begin(), in.begin() + 3), V(inT.begin(), inT.begin() + 3), V(3, "ND"),
                     out, {"float", "float", "bf16", "bf16"}, V(4, "ND"));
    QCOMPARE(none.mask, std::string("none"));
    QCOMPARE(none.cost.macs, full);
    auto s2048 = cost("FlashAttentionScore", {"[2048,1,2048]", "[2048,1,1024]", "[2048,1,1024]", "", "", "", "[2048,2048]"},
                      V(inT.begin(), inT.begin() + 7), V(7, "ND"), {"[1,16,2048,8]", "[1,16,2048,8]", "", "[2048,1,2048]"},
                      {"float", "float", "bf16", "bf16"}, V(4, "ND"));
    QCOMPARE(s2048.mask, std::string("causal"));
    QCOMPARE(s2048.cost.macs, 2.0 * 16 * 2048 * 2048 * 128 * 136.0 / 256.0);  // 16 blocks: 136 of 256
  }

  // An additive mask passed as the position bias (a floating [1, 1, S, S] tensor) may be causal;
  // a per-head bias [B, N, S, S] is computed everywhere.
  void flashAttentionAdditiveMaskAndBias() {
    const V outs{"[1,8,8192,8]", "[1,8,8192,8]", "", "[1,8192,1024]"};
    const V outT{"float", "float", "bf16", "bf16"};
    auto add = cost("FlashAttentionScore", {"[1,8192,1024]", "[1,8192,1024]", "[1,8192,1024]", "[1,1,8192,8192]"},
                    V(4, "bf16"), V(4, "ND"), outs, outT, V(4, "ND"));
    QVERIFY2(add.cost.known, add.cost.reason.c_str());
    QCOMPARE(add.mask, std::string("additive"));
    const double full = 2.0 * 8 * 8192 * 8192 * 128;
    QCOMPARE(add.cost.macs, full * (64.0 * 65 / 2) / (64.0 * 64));
    auto bias = cost("FlashAttentionScore", {"[1,8192,1024]", "[1,8192,1024]", "[1,8192,1024]", "[1,8,8192,8192]"},
                     V(4, "bf16"), V(4, "ND"), outs, outT, V(4, "ND"));
    QCOMPARE(bias.mask, std::string("bias"));
    QCOMPARE(bias.cost.macs, full);
  }

  void dataGatherFill() {
    auto t = cost("TransData", {"[32,3,224,224]"}, {"float"}, {"NCHW"}, {"[32,1,224,224,8]"}, {"float"}, {"NC1HWC0"});
    QCOMPARE(t.cost.unit, ComputeUnit::Memory);
    QCOMPARE(t.cost.bytes(), (32.0 * 3 * 224 * 224 + 32.0 * 224 * 224 * 8) * 4);
    // Gather reads the rows it gathers and the indices, not the whole table.
    auto g = cost("GatherV2", {"[50000,1024]", "[8,128]", "[1]"}, {"float16", "int64", "int64"}, {"ND", "ND", "ND"},
                  {"[8,128,1024]"}, {"float16"}, {"ND"});
    QCOMPARE(g.cost.bytesRead, 8.0 * 128 * 1024 * 2 + 8 * 128 * 8 + 8);
    auto f = cost("ZerosLike", {"[1024]"}, {"float"}, {"ND"}, {"[1024]"}, {"float"}, {"ND"});
    QCOMPARE(f.cost.bytesRead, 0.0);
    QCOMPARE(f.cost.bytesWritten, 4096.0);
  }

  // What has no price says why; scalars only are still priced.
  void unpriced() {
    auto u = cost("MyCustomOp", {"[8]"}, {"float"}, {"ND"}, {"[8]"}, {"float"}, {"ND"});
    QVERIFY(!u.cost.known);
    QVERIFY(u.cost.reason.find("no cost formula for MyCustomOp") != std::string::npos);
    auto m = cost("MemSet", {}, {}, {}, {}, {}, {});
    QVERIFY(!m.cost.known);
    QCOMPARE(m.cost.reason, std::string("no shapes recorded"));
    auto s = cost("Add", {"", ""}, {"float", "float"}, {"ND", "ND"}, {""}, {"float"}, {"ND"});
    QVERIFY(s.cost.known);
    QCOMPARE(s.cost.bytes(), 12.0);
    QVERIFY(hasKernelCostFormula("FlashAttentionScoreGrad"));
    QVERIFY(!hasKernelCostFormula("NotAnOp"));
  }

  // The roofline's memory term: L2 for what fits in it, device memory for the rest; the floor.
  void rooflineTerms() {
    DeviceProfile d;
    d.memoryBandwidth.value = 1e12;
    d.l2Bandwidth.value = 4e12;
    d.l2Size.value = 100e6;
    d.taskFloor.value = 1e-6;
    OpCost c;
    c.known = true;
    c.unit = ComputeUnit::Memory;
    c.bytesRead = 50e6, c.bytesWritten = 30e6;  // 80 MB: all of it may come from L2
    auto r = kernelRoofline(c, d);
    QCOMPARE(r.memorySeconds, 80e6 / 4e12);
    QCOMPARE(r.hbmSeconds, 80e-6);
    c.bytesRead = 500e6;  // 530 MB: 430 MB must cross device memory
    r = kernelRoofline(c, d);
    QCOMPARE(r.memorySeconds, 430e6 / 1e12);
    c.bytesRead = 8, c.bytesWritten = 4;  // a scalar kernel: the floor
    r = kernelRoofline(c, d);
    QCOMPARE(r.seconds, 1e-6);
    QCOMPARE(r.bound, Bound::Overhead);
  }
};

QTEST_APPLESS_MAIN(TestKernelCost)
#include "tst_kernel_cost.moc"
