// jemalloc's options for the two applications, linked in with them through msa_app_allocator
// (cmake/MsaDependencies.cmake), never into the library.
//
// Page faults are most of what a large model costs on a virtual machine: `info` on a 100k-node
// decoder took 198k faults, a third of its time in the kernel (bench_e2e, issue 30). jemalloc
// backs its memory with transparent huge pages (thp:always; the kernel's "madvise" mode honours
// it) only where it keeps its address space (retain:true): 19k faults, the 50k-node `analyze`
// 2.39 -> 1.13 s. Retained address space is not memory in use, but it counts against an
// address-space or data limit (ulimit -v/-d, a cluster's job limits): a doubling buffer there
// kept its old halves mapped and a gzip bomb died of bad_alloc before the reader's inflate limit
// refused it (tst_hostile_catalogue runs every hostile file under `prlimit --data`). Under such a
// limit the process starts again with retain:false (fitAllocatorToLimits), as before.
#include "allocator_options.h"

#include <sys/resource.h>
#include <unistd.h>

#include <cstdlib>

extern "C" {
__attribute__((visibility("default"))) extern const char* malloc_conf;
__attribute__((visibility("default"))) const char* malloc_conf = "retain:true,thp:always,metadata_thp:always";
}

namespace msa::app {

void fitAllocatorToLimits(char** argv) {
  if (std::getenv("MALLOC_CONF")) return;  // the user's choice, or this function's after the exec
  const auto limited = [](int resource) {
    rlimit l{};
    return getrlimit(resource, &l) == 0 && l.rlim_cur != RLIM_INFINITY;
  };
  if (!limited(RLIMIT_AS) && !limited(RLIMIT_DATA)) return;
  ::setenv("MALLOC_CONF", "retain:false", 1);
  ::execv("/proc/self/exe", argv);
  // No exec (no /proc): run on; only a limit this tight would notice the retained space.
}

}  // namespace msa::app
