#pragma once
// Whether this test binary is instrumented by a sanitizer (presets asan and tsan). Their
// allocator and checks change every timing, ONNX Runtime's kernels included (its allocations
// go through the sanitizer's malloc), so tests that judge measured timings skip that judgement.
// GCC defines __SANITIZE_*__; clang 14 only answers __has_feature.
namespace msa::test {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif
#else
inline constexpr bool kSanitized = false;
#endif

}  // namespace msa::test
