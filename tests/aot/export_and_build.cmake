# Exports kernels with `tessel aot`, compiles tests/aot/program.cpp against the header with the C++
# compiler alone (no tessel headers or libraries: the CUDA driver API's header and libcuda), and on
# a machine with a GPU runs it. Run with cmake -P and
#   -DTESSEL_CLI=<the tessel command> -DWORK_DIR=<scratch folder, emptied first>
#   -DCXX_COMPILER=<C++ compiler> -DCUDA_INCLUDE=<cuda.h's folder> -DCUDA_LIBRARY=<libcuda, or its stub>
foreach(required TESSEL_CLI WORK_DIR CXX_COMPILER CUDA_INCLUDE CUDA_LIBRARY)
  if(NOT DEFINED ${required})
    message(FATAL_ERROR "export_and_build.cmake needs -D${required}=...")
  endif()
endforeach()

include(${CMAKE_CURRENT_LIST_DIR}/../run_step.cmake)

file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
# weight_only_repack_i4 is exported so that its launcher's requirement checks (require) compile;
# the program does not run it.
run_step("tessel aot" ${TESSEL_CLI} aot vector_add:4096 matmul_simt:256,192,128 hopper_v5:512,384,256
         weight_only_repack_i4:256,256
         --output ${WORK_DIR}/kernels.hpp)
get_filename_component(cuda_library_dir ${CUDA_LIBRARY} DIRECTORY)
run_step("compile and link with libcuda alone" ${CXX_COMPILER} -std=c++20 -O1 -I${WORK_DIR} -I${CUDA_INCLUDE}
         ${CMAKE_CURRENT_LIST_DIR}/program.cpp -L${cuda_library_dir} -lcuda -o ${WORK_DIR}/program)
if(EXISTS /dev/nvidiactl)
  run_step("run the exported kernels" ${WORK_DIR}/program)
else()
  message(STATUS "no GPU here: the program was compiled and linked, not run")
endif()
