# Optional parts: each is compiled in where its headers are found, and left out
# with a message where they are not. Nothing here links a vendor driver: CUDA's
# driver, NVML, NVRTC, cuBLAS and NCCL are loaded at run time.

option(BATON_ENABLE_CUDA "Build the CUDA backend where the toolkit's headers are found" ON)
option(BATON_ENABLE_OPENCL "Build the OpenCL backend where the ICD loader is found" ON)

set(BATON_CUDA_ROOT "/usr/local/cuda" CACHE PATH "CUDA toolkit (headers, nvcc)")
find_path(BATON_CUDA_INCLUDE cuda.h HINTS ${BATON_CUDA_ROOT}/include ENV CUDA_HOME PATH_SUFFIXES include)
if(BATON_ENABLE_CUDA AND BATON_CUDA_INCLUDE)
  set(BATON_HAVE_CUDA ON)
  message(STATUS "baton: CUDA backend on (headers in ${BATON_CUDA_INCLUDE})")
else()
  set(BATON_HAVE_CUDA OFF)
  message(STATUS "baton: CUDA backend compiled out: disabled, or no cuda.h (set BATON_CUDA_ROOT)")
endif()

if(BATON_ENABLE_OPENCL)
  find_package(OpenCL QUIET)
endif()
if(OpenCL_FOUND)
  set(BATON_HAVE_OPENCL ON)
  message(STATUS "baton: OpenCL backend on (${OpenCL_LIBRARIES})")
else()
  set(BATON_HAVE_OPENCL OFF)
  message(STATUS "baton: OpenCL backend compiled out: disabled, or no ICD loader (ocl-icd-opencl-dev)")
endif()

find_package(PkgConfig QUIET)

# baton_optional_package(<PREFIX> <pkg-config module> <on message> <off message>):
# imports PkgConfig::<PREFIX> where pkg-config finds the module and sets
# BATON_HAVE_<PREFIX> ON or OFF, saying which.
function(baton_optional_package prefix module on off)
  if(PkgConfig_FOUND)
    pkg_check_modules(${prefix} QUIET IMPORTED_TARGET GLOBAL ${module})
  endif()
  if(${prefix}_FOUND)
    set(BATON_HAVE_${prefix} ON PARENT_SCOPE)
    message(STATUS "baton: ${on}")
  else()
    set(BATON_HAVE_${prefix} OFF PARENT_SCOPE)
    message(STATUS "baton: ${off}")
  endif()
endfunction()

baton_optional_package(HWLOC hwloc "hwloc topology discovery on"
  "hwloc compiled out (libhwloc-dev): topology falls back to /sys")
# The training layer's host math runs on OpenBLAS.
baton_optional_package(OPENBLAS openblas "training layer on (OpenBLAS)"
  "training layer compiled out: no OpenBLAS (libopenblas-dev)")
# and on OpenCL devices through CLBlast.
baton_optional_package(CLBLAST clblast "training on OpenCL on (CLBlast)"
  "training on OpenCL compiled out: no CLBlast (libclblast-dev)")

# Jobs of several processes (mpirun, srun) through an MPI plugin.
set(MPI_CXX_SKIP_MPICXX ON)  # the C API only
find_package(MPI COMPONENTS CXX QUIET)
if(MPI_CXX_FOUND)
  set(BATON_HAVE_MPI ON)
  find_program(BATON_MPIEXEC NAMES mpirun mpiexec)
  message(STATUS "baton: MPI plugin on (${MPI_CXX_LIBRARIES})")
else()
  set(BATON_HAVE_MPI OFF)
  message(STATUS "baton: MPI plugin compiled out: no MPI (libopenmpi-dev); one process per job")
endif()
