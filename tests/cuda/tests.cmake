# CUDA tests. Included from tests/CMakeLists.txt when BATON_HAVE_CUDA; paths
# are relative to tests/. Label gpu: they skip, visibly, without a driver.
# test_cuda_partition_sizes needs no GPU and runs everywhere.
baton_test(NAME test_cuda_partition_sizes SOURCES cuda/test_cuda_partition_sizes.cpp LABELS cuda)
foreach(t cuda_backend cuda_launch cuda_partitions cuda_events cuda_copies cuda_memory
          cuda_nvrtc cuda_gemm nvml)
  baton_test(NAME test_${t} SOURCES cuda/test_${t}.cpp LABELS gpu)
endforeach()
foreach(t cuda_partition_sizes cuda_backend cuda_launch cuda_partitions cuda_events cuda_copies
          cuda_memory cuda_nvrtc cuda_gemm nvml)
  target_include_directories(test_${t} PRIVATE ${BATON_CUDA_INCLUDE})
endforeach()
