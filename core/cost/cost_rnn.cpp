// Recurrent layers (LSTM, GRU, RNN): per time step, direction and batch row, the gate matrix
// products plus the gate activations and state updates.
#include "cost/cost_registry.h"

namespace msa::cost {
namespace {

constexpr double T = kTranscendental;

struct Gates {
  int count;           // gate blocks in W: 4 (LSTM), 3 (GRU), 1 (RNN)
  double perHidden;    // elementwise operations per hidden unit per step, without biases
};

// X [seq, batch, input] (layout 0) or [batch, seq, input] (layout 1); W [dirs, gates*H, input];
// R [dirs, gates*H, H]; B [dirs, 2*gates*H] (input and recurrent biases).
OpCost recurrent(const CostContext& c, Gates g) {
  auto x = c.inputDims(0);
  auto w = c.inputDims(1);
  auto r = c.inputDims(2);
  if (!x || !w || !r) return unknownCost(missingShapeReason(c, true, false));
  if (x->size() != 3 || w->size() != 3 || r->size() != 3) return unknownCost("recurrent inputs must be 3-D");
  const bool batchFirst = c.node().attrInt("layout", 0) != 0;
  const double steps = static_cast<double>(batchFirst ? (*x)[1] : (*x)[0]);
  const double batch = static_cast<double>(batchFirst ? (*x)[0] : (*x)[1]);
  const double input = static_cast<double>((*x)[2]);
  const double dirs = static_cast<double>((*w)[0]);
  const double hidden = static_cast<double>(c.node().attrInt("hidden_size", (*r)[2]));
  OpCost cost;
  cost.unit = ComputeUnit::Cube;
  if (!addIoBytes(c, cost)) return cost;
  const double rows = steps * dirs * batch;
  cost.macs = rows * g.count * hidden * (input + hidden);
  // The two products are summed per gate; biases add twice per gate element.
  double perHidden = g.perHidden + g.count + (c.hasInput(3) ? 2.0 * g.count : 0.0);
  if (c.node().is("LSTM") && c.hasInput(7)) perHidden += 6;  // peepholes: multiply-add on 3 gates
  cost.flops = 2 * cost.macs + rows * hidden * perHidden;
  return cost;
}

// i, f, o sigmoids, g and cell tanh; c = f*c + i*g (3), h = o*tanh(c) (1).
OpCost lstm(const CostContext& c) { return recurrent(c, {4, 3 * (T + 2) + 2 * T + 4}); }
// z, r sigmoids, candidate tanh; r*(Rh) (1), h = (1-z)*n + z*h (4).
OpCost gru(const CostContext& c) { return recurrent(c, {3, 2 * (T + 2) + T + 5}); }
// One tanh per hidden unit.
OpCost rnn(const CostContext& c) { return recurrent(c, {1, T}); }

}  // namespace

void registerRnnCosts(CostRegistry& r) {
  r.add("LSTM", lstm);
  r.add("GRU", gru);
  r.add("RNN", rnn);
}

}  // namespace msa::cost
