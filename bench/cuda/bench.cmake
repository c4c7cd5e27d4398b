# CUDA benchmarks: plain executables that run baton and the raw driver or
# library side by side, print a table and write JSON (first argument).
foreach(b copy gemm overhead tasks)
  add_executable(bench_cuda_${b} ${CMAKE_CURRENT_SOURCE_DIR}/cuda/${b}.cpp)
  target_include_directories(bench_cuda_${b} PRIVATE ${PROJECT_SOURCE_DIR}/src ${BATON_CUDA_INCLUDE})
  target_link_libraries(bench_cuda_${b} PRIVATE baton)
endforeach()
