# OpenCL backend tests (included by tests/CMakeLists.txt when BATON_HAVE_OPENCL).
# They run on whatever platform the ICD loader offers, PoCL in CI, and skip,
# with the reason, where there is none.
set(BATON_OPENCL_TESTS spec memory kernels events no_icd exactly_once)
foreach(unit IN LISTS BATON_OPENCL_TESTS)
  baton_test(NAME test_opencl_${unit} SOURCES device/opencl/test_opencl_${unit}.cpp LABELS opencl)
  # The tests include the backend's headers, and so the OpenCL headers.
  target_link_libraries(test_opencl_${unit} PRIVATE OpenCL::OpenCL)
endforeach()

# PoCL opens two CPU devices on one platform, so the cross-device paths
# (device-side waits and copies between devices of one context) run in CI;
# other drivers ignore the variable.
set_tests_properties(test_opencl_events PROPERTIES ENVIRONMENT "POCL_DEVICES=pthread pthread")
# An ICD folder with no driver in it: the backend must report itself unavailable.
file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/no-opencl-drivers)
set_tests_properties(test_opencl_no_icd PROPERTIES
  ENVIRONMENT "OCL_ICD_VENDORS=${CMAKE_CURRENT_BINARY_DIR}/no-opencl-drivers")
