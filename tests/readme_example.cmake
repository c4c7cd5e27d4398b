# The README's example, cut out of README.md at configure time, built and run
# on every backend this build has (a GPU variant skips, visibly, without one).
file(READ ${PROJECT_SOURCE_DIR}/README.md readme)
string(REGEX MATCH "<!-- readme-example: begin -->\n```cpp\n(.*)\n```\n<!-- readme-example: end -->"
       found "${readme}")
if(NOT found)
  message(FATAL_ERROR "README.md has no readme-example block")
endif()
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/readme_example.cpp "${CMAKE_MATCH_1}\n")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/README.md)
add_executable(readme_example ${CMAKE_CURRENT_BINARY_DIR}/readme_example.cpp)
target_link_libraries(readme_example PRIVATE baton)

function(readme_example_on name devices labels)
  add_test(NAME ${name} COMMAND readme_example)
  set_tests_properties(${name} PROPERTIES LABELS "${labels}" TIMEOUT 120
    ENVIRONMENT "BATON_DEVICES=${devices};BATON_PERF_MODEL_FILE=;POCL_DEVICES=pthread pthread"
    PASS_REGULAR_EXPRESSION "y\\[1\\] = 4.0"
    SKIP_REGULAR_EXPRESSION "backend unavailable")
endfunction()
readme_example_on(readme_example_cpu "cpu:2x1" api)
if(BATON_HAVE_OPENCL)
  readme_example_on(readme_example_opencl "cpu:1x1,opencl" opencl)
endif()
if(BATON_HAVE_CUDA)
  readme_example_on(readme_example_cuda "cuda:0/64+32+16+8" gpu)
endif()
