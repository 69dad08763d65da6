# tessel::nvrtc, the NVRTC library linked by path. CMake's CUDA::nvrtc would also link the driver
# stub, and tessel opens libcuda with dlopen so that everything but execution works without a
# driver. Needs CUDAToolkit found first; used by the build and by the installed package alike.
if(NOT TARGET tessel::nvrtc)
  find_library(TESSEL_NVRTC nvrtc PATHS ${CUDAToolkit_LIBRARY_DIR} REQUIRED NO_DEFAULT_PATH)
  add_library(tessel::nvrtc UNKNOWN IMPORTED)
  set_target_properties(tessel::nvrtc PROPERTIES IMPORTED_LOCATION "${TESSEL_NVRTC}")
endif()
