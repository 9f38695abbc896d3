#pragma once
// A layout for a graph that only lost boxes, made from the layout it had: surviving boxes and
// frames stay where they were, edges that existed keep their splines, and the few new edges (a
// removed node's input now feeding its consumer) are drawn as simple curves. No Graphviz run, so
// applying a fix to a large expanded graph does not move everything the user was looking at.
#include "graph/graph_layout.h"

namespace msa::ui {

// Null when `after` is not `before` minus some boxes (a new box or frame, a box that changed
// frame or grew by more than a fifth), or when more than `maxNewEdges` edges would be new.
LayoutPtr patchLayout(const LayoutRequest& before, const Layout& layout, const LayoutRequest& after, int maxNewEdges = 64);

}  // namespace msa::ui
