#pragma once
// A layered (Sugiyama-style) layout of a flat directed graph in near-linear time, for the
// levels where dot is slow (thousands of boxes: dot's network simplex and crossing reduction
// grow much faster than the graph): back edges reversed, ranks by longest path with sources
// pulled down to their consumers, virtual nodes on edges spanning several ranks, barycentre
// ordering sweeps keeping the order with the fewest crossings, x by weighted isotonic
// regression towards the neighbours (boxes as close to straight above each other as their
// order allows), splines through the virtual nodes. Same request and result types as dot's.
#include "graph/graph_layout.h"

namespace msa::ui {

// `request.clusters` must be empty (frames are composed level by level, compound_layout.h).
// Nodes pinned First/Last sit alone on the first/last rank.
LayoutPtr layeredLayout(const LayoutRequest& request);

}  // namespace msa::ui
