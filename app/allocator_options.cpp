// jemalloc's options for the two applications, linked in with them through msa_app_allocator
// (cmake/MsaDependencies.cmake), never into the library. Freed address space goes back to the
// system (retain:false). Retained, a buffer grown by doubling to 512 MB left 1 GB of address
// space mapped, and a process under a data limit (`prlimit --data`, as tst_hostile_catalogue
// runs the gzip bomb) died of bad_alloc before the reader's own inflate limit refused the file.
// Timing is unchanged (analyze of the 50k-node decoder, interleaved).
extern "C" {
__attribute__((visibility("default"))) extern const char* malloc_conf;
__attribute__((visibility("default"))) const char* malloc_conf = "retain:false";
}
