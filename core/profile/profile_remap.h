#pragma once
// A measured profile carried over to an edited model without measuring again: what the GUI's
// re-analysis after a fix and the optimizer's deployed-speedup estimate price the edited graph with.
#include "model/graph.h"
#include "profile/profile_data.h"

namespace msa {

// The profile restricted to IR nodes that still exist in `g`: an entry whose IR nodes are all
// gone is dropped and the end-to-end latency shrinks by its share of the summed node time; an
// entry that keeps some of its IR nodes keeps its time for them (a runtime kernel that already
// fused what the edit fuses costs what it cost). Inserted entries (layout reorders, TransData)
// stay. Whenever an entry lost an IR node its source says it was mapped (isRemapped): the
// latency is then an estimate for the edited graph, even where no time was saved.
ProfileData remapProfile(const ProfileData& p, const Graph& g);
bool isRemapped(const ProfileData& p);

}  // namespace msa
