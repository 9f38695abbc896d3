#pragma once
// The applications' allocator settings (allocator_options.cpp): call first thing in main().

namespace msa::app {

#ifdef MSA_HAVE_JEMALLOC
// Under an address-space or data limit, starts the program again with jemalloc's address space
// given back as it is freed (retain:false), so that retained space never meets the limit.
void fitAllocatorToLimits(char** argv);
#else
inline void fitAllocatorToLimits(char**) {}
#endif

}  // namespace msa::app
