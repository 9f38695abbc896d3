# msa_embed_files(TARGET NAMESPACE FILES...) compiles data files into a target as a table of
# {name, bytes}, so that core finds its device profiles without Qt resources or install paths.
function(msa_embed_files target)
  cmake_parse_arguments(ARG "" "OUTPUT" "FILES" ${ARGN})
  set(out "${CMAKE_CURRENT_BINARY_DIR}/${ARG_OUTPUT}")
  add_custom_command(OUTPUT "${out}"
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} "-DFILES=${ARG_FILES}" -P "${PROJECT_SOURCE_DIR}/cmake/MsaEmbedScript.cmake"
    DEPENDS ${ARG_FILES} "${PROJECT_SOURCE_DIR}/cmake/MsaEmbedScript.cmake"
    COMMENT "Embedding resources into ${target}" VERBATIM)
  target_sources(${target} PRIVATE "${out}")
endfunction()
