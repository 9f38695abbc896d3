# Warnings and sanitizers applied to every target of the project (not to dependencies).
add_library(msa_build_flags INTERFACE)
target_compile_options(msa_build_flags INTERFACE -Wall -Wextra -Wpedantic -Wno-missing-field-initializers)
if(MSA_WERROR)
  target_compile_options(msa_build_flags INTERFACE -Werror)
endif()
if(MSA_SANITIZE)
  target_compile_options(msa_build_flags INTERFACE -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  target_link_options(msa_build_flags INTERFACE -fsanitize=address,undefined)
endif()
if(MSA_TSAN)
  if(MSA_SANITIZE OR MSA_FUZZ)
    message(FATAL_ERROR "MSA_TSAN cannot be combined with MSA_SANITIZE or MSA_FUZZ (ASan)")
  endif()
  target_compile_options(msa_build_flags INTERFACE -fsanitize=thread -fno-omit-frame-pointer)
  target_link_options(msa_build_flags INTERFACE -fsanitize=thread)
endif()

# libFuzzer targets (tests/fuzz): clang only; the project is built with coverage instrumentation
# and AddressSanitizer + UBSan so that the fuzzer sees (and stops at) every memory error.
option(MSA_FUZZ "Build the libFuzzer targets (clang only)" OFF)
if(MSA_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "MSA_FUZZ needs clang (e.g. -DCMAKE_CXX_COMPILER=clang++-14, or the 'fuzz' preset)")
  endif()
  target_compile_options(msa_build_flags INTERFACE -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer
                                                   -fno-sanitize-recover=undefined)
  target_link_options(msa_build_flags INTERFACE -fsanitize=address,undefined)
endif()
