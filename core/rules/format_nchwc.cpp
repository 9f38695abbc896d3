// The NCHWc reorders ONNX Runtime's CPU provider inserts at graph optimization level `all`
// (onnxruntime/core/optimizer/nchwc_transformer.cc): convolutions and pools run on channel
// blocks of 8 (AVX2) or 16 (AVX-512), and every edge between such an op and one without an
// NCHWc kernel gets a ReorderInput (NCHW→NCHWc) or ReorderOutput (NCHWc→NCHW). One finding per
// boundary op: the reorders around it, their measured time, and why the op breaks the chain.
#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "profile/profile_data.h"
#include "rules/rule_util.h"
#include "rules/texts.h"

namespace msa {
namespace {

// Why an op stays in NCHW: a phrase of format.json's _texts with its arguments.
struct Text {
  std::string key;
  std::map<std::string, std::string> args;
  // How firmly the op keeps NCHW, to pick the cause among an island's ops: 4 its opset version
  // is not rewritten, 3 no NCHWc kernel, 2 a shape/channel condition fails, 1 only because its
  // input is not NCHWc.
  int rank = 1;
};

std::vector<int64_t> dimsOf(const AnalysisContext& ctx, std::string_view v) {
  const Shape* s = ctx.index->shape(v);
  return s && s->fullyKnown() ? s->values() : std::vector<int64_t>{};
}

std::string dimsText(const std::vector<int64_t>& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? "," : "") + std::to_string(d[i]);
  return s + "]";
}

bool isReorder(const NodeProfile& p) { return p.opType == "ReorderInput" || p.opType == "ReorderOutput"; }

// The op versions NchwcTransformerImpl::Transform rewrites (the rest keep NCHW whatever their
// shapes), and the versions ONNX defines, to find the one a model's opset selects.
struct VersionRule {
  std::string_view op;
  std::vector<int> history, accepted;
};
const std::vector<VersionRule>& versionRules() {
  static const std::vector<VersionRule> rules = {
      {"Conv", {1, 11}, {1, 11}},
      {"MaxPool", {1, 8, 10, 11, 12}, {1, 8, 10, 11, 12}},
      {"AveragePool", {1, 7, 10, 11, 19}, {1, 7, 10, 11}},
      {"GlobalAveragePool", {1}, {1}},
      {"GlobalMaxPool", {1}, {1}},
      {"Add", {1, 6, 7, 13, 14}, {7, 13}},
      {"Sum", {1, 6, 8, 13}, {6, 8, 13}},
      {"Mul", {1, 6, 7, 13, 14}, {7, 13}},
      {"Concat", {1, 4, 11, 13}, {4, 11, 13}},
      {"Relu", {1, 6, 13, 14}, {6, 13}},
      {"Sigmoid", {1, 6, 13}, {6, 13}},
      {"Tanh", {1, 6, 13}, {6, 13}},
      {"BatchNormalization", {1, 6, 7, 9, 14, 15}, {7, 9}},
      {"Transpose", {1, 13, 21}, {1, 13}},
      {"Resize", {10, 11, 13, 18, 19}, {10, 11, 13}},
      {"Upsample", {7, 9, 10}, {9}},
  };
  return rules;
}

// 0: no NCHWc form at all; otherwise the op's version under `opset`, negated when the
// transformer does not accept that version.
int nchwcVersion(const Node& n, int64_t opset) {
  if (!n.isDefaultDomain()) return 0;
  for (const auto& r : versionRules()) {
    if (n.opType != r.op) continue;
    int v = 0;
    for (int h : r.history)
      if (h <= opset) v = h;
    if (v == 0) return 0;
    return std::find(r.accepted.begin(), r.accepted.end(), v) != r.accepted.end() ? v : -v;
  }
  return 0;
}

// Why ONNX Runtime keeps node i in NCHW (NchwcTransformerImpl::Transform and its Transform*
// helpers); `block` is the NCHWc channel block, 0 when unknown. `nchwcConv`: an NCHWc
// convolution that still reads NCHW (fewer input channels than the block).
Text whyNchw(const AnalysisContext& ctx, size_t i, int block, bool nchwcConv, const NodeProfile* ran) {
  const Node& n = ctx.node(i);
  const std::string op = n.opType;
  const std::string b = block > 0 ? std::to_string(block) : std::string("8/16");
  // The runtime fused the node into an operator of its own (QuickGelu for x·sigmoid(x),
  // FusedConv…): that operator decides.
  // FusedConv (Conv + activation) is rewritten like Conv: its own conditions below decide.
  if (ran && !nchwcConv && ran->opType != op && ran->opType != "FusedConv")
    return {"nchwc.why.fused", {{"as", ran->opType}, {"name", ran->name}}, 4};
  const int64_t opset = ctx.model ? ctx.model->opset() : 0;
  const int version = nchwcVersion(n, opset);
  if (version < 0)
    return {"nchwc.why.opset",
            {{"op", op}, {"version", op + "-" + std::to_string(-version)}, {"opset", std::to_string(opset)}},
            4};
  if (version == 0) return {"nchwc.why.no_kernel", {{"op", op}}, 3};
  if (nchwcConv && n.is("Conv")) {
    auto w = dimsOf(ctx, n.input(1));
    return {"nchwc.why.few_channels", {{"cin", w.size() == 4 ? std::to_string(w[1]) : "?"}, {"block", b}}, 2};
  }
  auto x = dimsOf(ctx, n.input(0));
  const int64_t channels = x.size() >= 2 ? x[1] : -1;
  if (n.is("Conv")) {
    auto w = dimsOf(ctx, n.input(1));
    if (!ctx.index->constant(n.input(1)) || w.size() != 4) return {"nchwc.why.weights", {}, 2};
    const int64_t group = n.attrInt("group", 1);
    const std::string cin = std::to_string(w[1] * group), cout = std::to_string(w[0]);
    if (group > 1)
      return {"nchwc.why.grouped", {{"group", std::to_string(group)}, {"cin", cin}, {"cout", cout}, {"block", b}}, 2};
    return {"nchwc.why.channels", {{"cin", cin}, {"block", b}}, 2};
  }
  if (n.is("MaxPool") || n.is("AveragePool") || n.is("GlobalAveragePool") || n.is("GlobalMaxPool")) {
    if (n.outputs.size() > 1) return {"nchwc.why.maxpool_indices", {}, 3};
    if (block > 0 && channels > 0 && channels % block == 0) return {"nchwc.why.input_not_nchwc", {{"op", op}}, 1};
    return {"nchwc.why.pool_channels", {{"op", op}, {"channels", std::to_string(channels)}, {"block", b}}, 2};
  }
  if (n.is("Add") || n.is("Sum") || n.is("Mul")) {
    std::string shapes;
    bool broadcast = false;
    auto out0 = dimsOf(ctx, n.output(0));
    for (const auto& in : n.inputs) {
      auto d = dimsOf(ctx, in);
      broadcast |= d != out0 || ctx.index->constant(in);
      shapes += (shapes.empty() ? "" : " × ") + dimsText(d);
    }
    return {"nchwc.why.binary", {{"op", op}, {"shapes", shapes}}, broadcast ? 2 : 1};
  }
  if (n.is("Concat")) return {"nchwc.why.concat", {{"block", b}}, 2};
  if (n.is("BatchNormalization")) return {"nchwc.why.batchnorm", {}, 1};
  if (n.is("Resize") || n.is("Upsample")) return {"nchwc.why.resize", {{"op", op}}, 2};
  if (n.is("Transpose")) return {"nchwc.why.transpose", {}, 2};
  return {"nchwc.why.input_not_nchwc", {{"op", op}}, 1};
}

// The NCHWc block the runtime used, from a convolution whose channels it padded (or did not).
int blockSize(const AnalysisContext& ctx, const ProfileData& p) {
  for (const NodeProfile& n : p.nodes) {
    if (n.inserted || n.irNodes.empty() || n.outputShapes.empty() || n.kernel.find("nchwc") == std::string::npos)
      continue;
    long i = ctx.index->indexOfName(n.irNodes.front());
    if (i < 0 || ctx.node(static_cast<size_t>(i)).outputs.empty()) continue;
    auto ir = dimsOf(ctx, ctx.node(static_cast<size_t>(i)).outputs[0]);
    if (ir.size() != 4 || ir[1] % 16 == 0 || ir[1] % 8 != 0) continue;
    // A channel count that is a multiple of 8 but not of 16 is padded only by a 16 block.
    const bool padded = n.outputShapes[0].find("," + std::to_string(ir[1]) + ",") == std::string::npos;
    return padded ? 16 : 8;
  }
  return 0;
}

// One run of IR nodes kept in NCHW, with the reorders at its edges.
struct Island {
  std::vector<size_t> members;  // its NCHW nodes
  std::vector<size_t> side;     // those next to one of its reorders
  std::set<size_t> memberSet, sideSet;
  std::vector<const NodeProfile*> reorders;
  std::vector<std::string> touching;  // IR nodes on either side of its reorders
  std::set<std::string> touchingSet;
  bool into = false, outOf = false;  // has a ReorderOutput (data enters) / ReorderInput (leaves)
  double ms = 0;
  long cause = -1;  // the member that keeps it in NCHW most firmly; -1 at the graph's edge
  Text why;
};

// Appends s to v once (`seen` remembers what v holds).
void addUnique(std::vector<std::string>& v, std::set<std::string>& seen, const std::string& s) {
  if (seen.insert(s).second) v.push_back(s);
}

}  // namespace

void nchwcReorderFindings(const AnalysisContext& ctx, std::vector<Finding>& out) {
  const ProfileData* rp = ctx.runtimeProfile;
  if (!rp) return;
  const size_t n = ctx.graph->nodes.size();
  // IR nodes the runtime replaced by nchwc-domain kernels (Conv, pools, BN as Conv). Ops it
  // converts in place (Add, Concat, Relu…) keep their domain: they are not marked here.
  std::vector<bool> nchwc(n, false);
  std::vector<const NodeProfile*> reorders;
  for (const NodeProfile& p : rp->nodes) {
    if (p.inserted && isReorder(p)) reorders.push_back(&p);
    if (p.inserted || p.kernel.find("nchwc") == std::string::npos) continue;
    for (const auto& name : p.irNodes)
      if (long i = ctx.index->indexOfName(name); i >= 0) nchwc[static_cast<size_t>(i)] = true;
  }
  if (reorders.empty()) return;
  const int block = blockSize(ctx, *rp);
  const int64_t opset = ctx.model ? ctx.model->opset() : 0;
  std::set<std::string> notRun(rp->irNodesNotRun.begin(), rp->irNodesNotRun.end());
  std::map<std::string, const NodeProfile*, std::less<>> ranAs;  // IR node -> the runtime node that ran it
  for (const NodeProfile& p : rp->nodes)
    if (!p.inserted)
      for (const auto& name : p.irNodes) ranAs.emplace(name, &p);
  auto ran = [&](size_t i) -> const NodeProfile* {
    auto it = ranAs.find(ctx.node(i).name);
    return it == ranAs.end() ? nullptr : it->second;
  };

  // The NCHW side of each reorder: a ReorderOutput's consumers, a ReorderInput's producer. An
  // NCHWc convolution with fewer input channels than the block reads NCHW: it can be that side.
  std::vector<std::vector<size_t>> side(reorders.size());
  std::vector<bool> nchw(n, false);
  for (size_t r = 0; r < reorders.size(); ++r) {
    std::vector<size_t> idx;
    for (const auto& name : reorders[r]->neighbours)
      if (long i = ctx.index->indexOfName(name); i >= 0) idx.push_back(static_cast<size_t>(i));
    std::vector<size_t> up, down;
    for (size_t a : idx) {
      bool feeds = false;
      for (size_t s : ctx.index->successors(a)) feeds |= s != a && std::find(idx.begin(), idx.end(), s) != idx.end();
      (feeds ? up : down).push_back(a);
    }
    const bool in = reorders[r]->opType == "ReorderInput";
    if (idx.size() == 1) {
      if (!nchwc[idx[0]]) side[r] = idx;  // alone and NCHWc: the other side is the graph's edge
    } else {
      side[r] = in ? up : down;
    }
    for (size_t i : side[r]) nchw[i] = !nchwc[i];
  }
  // Ops that certainly run in NCHW join the islands too, so a run BN-15 → Relu-14 between two
  // NCHWc convolutions is one island with its reorder in and its reorder out.
  for (size_t i = 0; i < n; ++i)
    if (!nchwc[i] && !notRun.count(ctx.node(i).name) && !ctx.node(i).is("Constant") &&
        nchwcVersion(ctx.node(i), opset) <= 0)
      nchw[i] = true;
  const std::vector<size_t> run = connectedRuns(ctx, nchw);
  std::map<long, Island> islands;  // by run id; -1 graph input, -2 graph output
  for (size_t r = 0; r < reorders.size(); ++r) {
    const NodeProfile& p = *reorders[r];
    const bool in = p.opType == "ReorderInput";  // NCHW → NCHWc: the data leaves the island
    const long key = side[r].empty() ? (in ? -1 : -2) : static_cast<long>(run[side[r].front()]);
    Island& isl = islands[key];
    isl.reorders.push_back(&p);
    isl.ms += p.timeMs.median;
    (in ? isl.outOf : isl.into) = true;
    for (const auto& name : p.neighbours) addUnique(isl.touching, isl.touchingSet, name);
    for (size_t i : side[r]) {
      if (isl.memberSet.insert(i).second) isl.members.push_back(i);
      if (isl.sideSet.insert(i).second) isl.side.push_back(i);
    }
  }
  for (size_t i = 0; i < n; ++i)
    if (nchw[i])
      if (auto it = islands.find(static_cast<long>(run[i]));
          it != islands.end() && it->second.memberSet.insert(i).second)
        it->second.members.push_back(i);
  // Islands kept in NCHW by the same kind of op for the same kind of reason, at the same kind of
  // boundary, are one finding.
  std::map<std::string, std::vector<const Island*>> causes;
  for (auto& [key, isl] : islands) {
    // The op next to a reorder decides; only when it is NCHW merely because its input is, the
    // firmest reason in the island does.
    for (int pass = 0; pass < 2 && (isl.cause < 0 || isl.why.rank <= 1); ++pass)
      for (size_t i : pass == 0 ? isl.side : isl.members) {
        Text t = whyNchw(ctx, i, block, nchwc[i], ran(i));
        if (isl.cause < 0 || t.rank > isl.why.rank) {
          isl.cause = static_cast<long>(i);
          isl.why = t;
        }
      }
    const std::string variant = isl.into && isl.outOf ? "sandwiched" : isl.into ? "region_exit" : "region_entry";
    const std::string who = isl.cause >= 0
                                ? ctx.node(static_cast<size_t>(isl.cause)).opType + "#" + std::to_string(isl.why.rank)
                                : (key == -1 ? "<input>" : "<output>");
    causes[who + "|" + variant].push_back(&isl);
  }
  const double latency = rp->latencyMs.median > 0 ? rp->latencyMs.median : rp->sumNodeMedians();
  double total = 0;
  for (const NodeProfile* p : reorders) total += p->timeMs.median;
  for (auto& [sig, group] : causes) {
    std::sort(group.begin(), group.end(), [](const Island* a, const Island* b) { return a->ms > b->ms; });
    const Island& top = *group.front();
    Finding f;
    f.rule = "format.nchwc_reorder";
    f.category = Category::Format;
    double ms = 0;
    size_t count = 0;
    std::vector<std::string> list;
    std::set<std::string> ops, named;
    int listed = 0;
    for (const Island* isl : group) {
      ms += isl->ms;
      count += isl->reorders.size();
      if (isl->cause >= 0) addUnique(f.nodes, named, ctx.node(static_cast<size_t>(isl->cause)).name);
      for (size_t i : isl->members) ops.insert(ctx.node(i).opType);
      for (const auto& t : isl->touching)
        if (ctx.index->indexOfName(t) >= 0) addUnique(f.nodes, named, t);
      for (const NodeProfile* r : isl->reorders) {
        f.runtimeNodes.push_back(r->name);
        if (listed++ >= 6) continue;
        std::string sides;
        for (const auto& nb : r->neighbours) sides += (sides.empty() ? "" : ", ") + nb;
        const std::string what = r->name + " (" + (r->opType == "ReorderInput" ? "NCHW→NCHWc" : "NCHWc→NCHW") +
                                 (r->outputShapes.empty() ? std::string() : " " + r->outputShapes[0]);
        list.push_back(
            phrase("nchwc.reorder",
                   {{"what", what}, {"next_to", sides.empty() ? phrase("nchwc.graph_edge") : sides}, {"time", formatQuantity(r->timeMs.median, "ms")}}));
      }
    }
    if (listed > 6) list.push_back(phrase("nchwc.more", {{"count", std::to_string(listed - 6)}}));
    if (f.nodes.empty()) continue;  // nothing in the IR to point at
    const bool sandwiched = top.into && top.outOf;
    std::string opsText;
    for (const auto& op : ops) opsText += (opsText.empty() ? "" : "/") + op;
    std::string why;
    if (top.cause >= 0) {
      f.params["op"] = ctx.node(static_cast<size_t>(top.cause)).opType;
      why = phrase(top.why.key, top.why.args);
    } else {
      f.params["op"] = phrase(top.outOf ? "nchwc.op.input" : "nchwc.op.output");
      why = phrase(top.outOf ? "nchwc.why.input" : "nchwc.why.output");
    }
    f.params["why"] = why;
    if (opsText.empty()) opsText = f.params["op"];
    const std::string places = std::to_string(group.size());
    f.params["variant"] = sandwiched ? "sandwiched" : top.into ? "region_exit" : "region_entry";
    f.params["places"] = places;
    // The title names the cause where there is one (the runtime's own operator for a fused
    // pattern, an operator with no NCHWc kernel or a failed condition), not the neighbours
    // that merely sit in NCHW because of it ("around GlobalAveragePool/HardSwish/Mul" when the
    // detail said HardSigmoid has no NCHWc kernel).
    const auto fusedAs = top.why.args.find("as");
    f.params["boundary_ops"] = top.cause < 0 || top.why.rank < 2 ? opsText
                               : top.why.key == "nchwc.why.fused" && fusedAs != top.why.args.end() ? fusedAs->second
                                                                                                    : f.params["op"];
    f.params["advice"] =
        phrase("nchwc.advice." + f.params["variant"], {{"ops", opsText}, {"places", places}, {"why", why}});
    f.params["reorders"] = phraseList(list);
    f.params["reorder_count"] = std::to_string(count);
    f.params["block"] = block > 0 ? std::to_string(block) : "8/16";
    f.params["reorder_share"] = formatPercent(latency > 0 ? total / latency : 0.0);
    f.params["reorder_total"] = std::to_string(reorders.size());
    f.impact.currentMs = ms;
    f.impact.source = ImpactSource::Measured;
    if (sandwiched) {
      f.impact.ms = f.impact.rawMs = ms;
      f.impact.method = phrase("method.nchwc.sandwiched");
    } else {
      f.impact.fixedMs = ms;
      f.impact.method = phrase("method.nchwc.edge");
    }
    out.push_back(std::move(f));
  }
}

}  // namespace msa
