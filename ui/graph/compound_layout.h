#pragma once
// Large graphs with frames, laid out level by level. Every frame (an expanded block) is laid
// out on its own, with the frames inside it as boxes of their laid-out size and two pinned
// ports for the edges that enter and leave it; the levels are then stacked into one Layout.
// A level is laid out by dot when small and by the layered engine when large, and cached by
// its structure alone (sizes and edges, no names): the repeated layers of a language model are
// laid out once, and expanding or collapsing one block lays out that block and the levels
// around it again, nothing else.
#include <atomic>

#include "graph/graph_layout.h"

namespace msa::ui {

// Same contract as computeLayout (which calls it above LayoutOptions::wholeDotLimit boxes);
// runs on the layout thread.
LayoutPtr compoundLayout(const LayoutRequest& request, const std::atomic<bool>* stale = nullptr, QString* error = nullptr);

// How the last compound layouts went, for benchmarks and tests.
struct CompoundStats {
  int levels = 0, byDot = 0, layered = 0, fromCache = 0;
};
CompoundStats lastCompoundStats();
void clearLevelCache();

}  // namespace msa::ui
