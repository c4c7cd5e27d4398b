# baton_cuda_fatbin(<target> <stem> SOURCE <cu> HEADER <h> FUNCTION <ns::name>
#                   [FLAGS <nvcc flags...>] [DEPENDS <files...>] [COMMENT <what>])
# nvcc builds <cu> into <stem>.fatbin (sm_80, sm_90 and compute_90 PTX);
# embed_fatbin.cmake writes it as <stem>.cpp, defining FUNCTION() declared in
# HEADER, which is compiled into <target>. The rules live in the caller's
# directory and the target may be another's: a custom target, baton_<stem>,
# carries the dependency across. BATON_NVCC is nvcc's path; callers check
# that it exists first.
set(BATON_NVCC "${BATON_CUDA_ROOT}/bin/nvcc")

function(baton_cuda_fatbin target stem)
  cmake_parse_arguments(F "" "SOURCE;HEADER;FUNCTION;COMMENT" "FLAGS;DEPENDS" ${ARGN})
  set(fatbin "${CMAKE_CURRENT_BINARY_DIR}/${stem}.fatbin")
  set(embedded "${CMAKE_CURRENT_BINARY_DIR}/${stem}.cpp")
  add_custom_command(OUTPUT "${fatbin}"
    COMMAND "${BATON_NVCC}" -fatbin -O3 ${F_FLAGS}
      -gencode arch=compute_80,code=sm_80
      -gencode arch=compute_90,code=sm_90
      -gencode arch=compute_90,code=compute_90
      -o "${fatbin}" "${F_SOURCE}"
    DEPENDS "${F_SOURCE}" ${F_DEPENDS}
    COMMENT "nvcc: ${F_COMMENT} (sm_80, sm_90, compute_90)")
  set(script "${PROJECT_SOURCE_DIR}/cmake/embed_fatbin.cmake")
  add_custom_command(OUTPUT "${embedded}"
    COMMAND ${CMAKE_COMMAND} -DINPUT=${fatbin} -DOUTPUT=${embedded}
      -DHEADER=${F_HEADER} -DFUNCTION=${F_FUNCTION} -P "${script}"
    DEPENDS "${fatbin}" "${script}"
    COMMENT "Embedding the fatbin of ${F_COMMENT}")
  add_custom_target(baton_${stem} DEPENDS "${embedded}")
  add_dependencies(${target} baton_${stem})
  set_source_files_properties("${embedded}" TARGET_DIRECTORY ${target} PROPERTIES GENERATED TRUE)
  target_sources(${target} PRIVATE "${embedded}")
endfunction()
