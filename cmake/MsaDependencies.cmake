# Third-party dependencies. Every one of them is required except CANN.
find_package(Threads REQUIRED)
find_package(Protobuf REQUIRED)   # must precede ONNX: its config refers to protobuf targets
find_package(ONNX REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(ZLIB REQUIRED)       # gzip-compressed training traces (*.pt.trace.json.gz)
set_package_properties(ONNX PROPERTIES PURPOSE "ONNX protobuf classes, checker and shape inference")
set_package_properties(Protobuf PROPERTIES PURPOSE "reading and writing ONNX files")

# ONNX Runtime: a system package (Debian 13, Ubuntu 24.04) or a prefix given by ONNXRUNTIME_ROOT
# (scripts/setup.sh lays one out in .deps/onnxruntime on Debian 12, see DEVELOPERS.md).
set(ONNXRUNTIME_ROOT "" CACHE PATH "Prefix holding include/onnxruntime and lib/libonnxruntime.so")
if(NOT ONNXRUNTIME_ROOT AND EXISTS "${PROJECT_SOURCE_DIR}/.deps/onnxruntime/lib")
  set(ONNXRUNTIME_ROOT "${PROJECT_SOURCE_DIR}/.deps/onnxruntime" CACHE PATH "" FORCE)
endif()
if(ONNXRUNTIME_ROOT)
  find_path(ORT_INCLUDE_DIR onnxruntime_cxx_api.h PATHS "${ONNXRUNTIME_ROOT}/include/onnxruntime" NO_DEFAULT_PATH REQUIRED)
  find_library(ORT_LIBRARY onnxruntime PATHS "${ONNXRUNTIME_ROOT}/lib" NO_DEFAULT_PATH REQUIRED)
  add_library(onnxruntime::onnxruntime SHARED IMPORTED)
  set_target_properties(onnxruntime::onnxruntime PROPERTIES
    IMPORTED_LOCATION "${ORT_LIBRARY}" INTERFACE_INCLUDE_DIRECTORIES "${ORT_INCLUDE_DIR}")
  set(onnxruntime_FOUND TRUE)
  file(STRINGS "${ORT_INCLUDE_DIR}/onnxruntime_c_api.h" _ort_api_line REGEX "^#define ORT_API_VERSION [0-9]+")
  string(REGEX MATCH "[0-9]+" ORT_API_VERSION "${_ort_api_line}")
  message(STATUS "ONNX Runtime from ${ONNXRUNTIME_ROOT} (API version ${ORT_API_VERSION})")
else()
  find_package(onnxruntime 1.21 CONFIG REQUIRED)
endif()
add_feature_info(ONNXRuntime onnxruntime_FOUND "CPU profiling and output verification")
# A private ONNX Runtime is installed next to our binaries (lib/msadvisor) and found through their
# RPATH, so neither the build tree nor an install needs LD_LIBRARY_PATH. A system one needs nothing.
set(MSA_PRIVATE_LIBDIR "lib/msadvisor")
set(MSA_PRIVATE_ORT OFF)
if(ONNXRUNTIME_ROOT)
  set(MSA_PRIVATE_ORT ON)
  set(CMAKE_INSTALL_RPATH "\$ORIGIN/../${MSA_PRIVATE_LIBDIR}")
endif()

find_package(PkgConfig REQUIRED)
pkg_check_modules(GV REQUIRED IMPORTED_TARGET libgvc libcgraph)

# The two applications allocate with jemalloc. An analysis makes millions of small allocations
# (names, shapes, findings) and frees them in bursts; glibc's malloc spent about a sixth of a
# 50k-node `analyze` in itself (bench_e2e, issue 30). Linked into the executables only, not the
# library or the Python module, so that one allocator serves the whole process from its first
# allocation. The sanitizers bring their own allocator.
option(MSA_JEMALLOC "Link msadvisor and msadvisor-cli with jemalloc" ON)
add_library(msa_app_allocator INTERFACE)
target_include_directories(msa_app_allocator INTERFACE "${PROJECT_SOURCE_DIR}/app")  # allocator_options.h
set(MSA_HAVE_JEMALLOC OFF)
if(MSA_JEMALLOC AND NOT (MSA_SANITIZE OR MSA_TSAN OR MSA_FUZZ))
  pkg_check_modules(JEMALLOC REQUIRED IMPORTED_TARGET jemalloc)
  target_link_libraries(msa_app_allocator INTERFACE PkgConfig::JEMALLOC)
  target_sources(msa_app_allocator INTERFACE "${PROJECT_SOURCE_DIR}/app/allocator_options.cpp")
  target_compile_definitions(msa_app_allocator INTERFACE MSA_HAVE_JEMALLOC)
  set(MSA_HAVE_JEMALLOC ON)
endif()
add_feature_info(jemalloc MSA_HAVE_JEMALLOC "the applications' allocator (MSA_JEMALLOC)")

# CANN (Ascend): optional. The ACL backend is compiled only where the toolkit is installed.
set(ASCEND_TOOLKIT_HOME "$ENV{ASCEND_TOOLKIT_HOME}" CACHE PATH "CANN toolkit root (…/ascend-toolkit/latest)")
set(MSA_HAVE_ACL OFF)
if(ASCEND_TOOLKIT_HOME AND EXISTS "${ASCEND_TOOLKIT_HOME}/include/acl/acl.h")
  find_library(ACL_LIBRARY ascendcl PATHS "${ASCEND_TOOLKIT_HOME}/lib64" NO_DEFAULT_PATH)
  find_library(ACL_PROF_LIBRARY msprofiler PATHS "${ASCEND_TOOLKIT_HOME}/lib64" NO_DEFAULT_PATH)
  if(ACL_LIBRARY)
    set(MSA_HAVE_ACL ON)
  endif()
endif()
add_feature_info(CANN MSA_HAVE_ACL "Ascend profiling through AscendCL (set ASCEND_TOOLKIT_HOME)")

if(MSA_BUILD_GUI)
  find_package(Qt6 6.4 REQUIRED COMPONENTS Core Gui Widgets Charts Svg Concurrent LinguistTools)
endif()
if(MSA_BUILD_TESTS)
  find_package(Qt6 6.4 REQUIRED COMPONENTS Core Test)
endif()
