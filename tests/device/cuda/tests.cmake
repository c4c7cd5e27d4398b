# CUDA tests. Included from tests/CMakeLists.txt when BATON_HAVE_CUDA; paths
# are relative to tests/. Label gpu: they skip, visibly, without a driver.
# Label cuda: no GPU needed (partition arithmetic; the driver-less path,
# skipped where a driver is). A skip marks a whole executable skipped, so
# cases that skip on some machines live in executables of their own.
foreach(t cuda_partition_sizes cuda_unavailable cuda_errors)
  baton_test(NAME test_${t} SOURCES device/cuda/test_${t}.cpp LABELS cuda)
endforeach()
foreach(t cuda_backend cuda_launch cuda_partitions cuda_events cuda_copies cuda_peer cuda_memory
          cuda_nvrtc cuda_gemm nvml)
  baton_test(NAME test_${t} SOURCES device/cuda/test_${t}.cpp LABELS gpu)
endforeach()
foreach(t cuda_partition_sizes cuda_unavailable cuda_errors cuda_backend cuda_launch cuda_partitions
          cuda_events cuda_copies cuda_peer cuda_memory cuda_nvrtc cuda_gemm nvml)
  target_include_directories(test_${t} PRIVATE ${BATON_CUDA_INCLUDE})
endforeach()
