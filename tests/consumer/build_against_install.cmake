# Installs tessel from a build tree into a fresh prefix, then configures, builds and runs the
# consumer project in this folder against it, and its kernel against the build tree itself. Run with
# cmake -P and
#   -DTESSEL_BUILD_DIR=<tessel's build tree> -DWORK_DIR=<scratch folder, emptied first>
#   -DGENERATOR=<CMake generator> -DCXX_COMPILER=<C++ compiler> [-DCXX_COMPILER_LAUNCHER=<ccache>]
foreach(required TESSEL_BUILD_DIR WORK_DIR GENERATOR CXX_COMPILER)
  if(NOT DEFINED ${required})
    message(FATAL_ERROR "build_against_install.cmake needs -D${required}=...")
  endif()
endforeach()

include(${CMAKE_CURRENT_LIST_DIR}/../run_step.cmake)

set(prefix ${WORK_DIR}/prefix)
set(consumer_build ${WORK_DIR}/build)
file(REMOVE_RECURSE ${WORK_DIR})

run_step("cmake --install" ${CMAKE_COMMAND} --install ${TESSEL_BUILD_DIR} --prefix ${prefix})
set(configure_args -S ${CMAKE_CURRENT_LIST_DIR} -B ${consumer_build} -G ${GENERATOR} -DCMAKE_BUILD_TYPE=Release
                   -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_PREFIX_PATH=${prefix})
if(CXX_COMPILER_LAUNCHER)
  list(APPEND configure_args -DCMAKE_CXX_COMPILER_LAUNCHER=${CXX_COMPILER_LAUNCHER})
endif()
run_step("configure the consumer" ${CMAKE_COMMAND} ${configure_args})
run_step("build the consumer" ${CMAKE_COMMAND} --build ${consumer_build})
run_step("run the consumer's kernel" ${consumer_build}/axpy)

# The build tree is a package too: the same project against it, without installing.
set(tree_configure_args ${configure_args})
list(TRANSFORM tree_configure_args REPLACE "^-DCMAKE_PREFIX_PATH=.*" "-DCMAKE_PREFIX_PATH=${TESSEL_BUILD_DIR}")
list(TRANSFORM tree_configure_args REPLACE "^${consumer_build}$" "${WORK_DIR}/build_tree")
run_step("configure the consumer against the build tree" ${CMAKE_COMMAND} ${tree_configure_args})
run_step("build the consumer's kernel against the build tree" ${CMAKE_COMMAND} --build ${WORK_DIR}/build_tree
         --target axpy)
run_step("run the consumer's kernel built against the build tree" ${WORK_DIR}/build_tree/axpy)

# The consumer's kernel under the command line, every subcommand that needs no GPU.
function(expect_output what pattern)
  execute_process(COMMAND ${consumer_build}/kernels ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE out)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "${pattern}")
    message(FATAL_ERROR "kernels ${ARGN} (${what}) exited with ${rc} without printing '${pattern}':\n${out}")
  endif()
  message(STATUS "kernels ${ARGN}: ok")
endfunction()
expect_output("list" "axpy +sizes \\[n\\] \\(default 5000\\)  out = alpha x \\+ y over n floats" list)
expect_output("run" "axpy n=777: PASS" run axpy 777 --device sim)
expect_output("run with a configuration" "axpy n=777: PASS" run axpy 777 --device sim --config "block=512")
expect_output("check" "axpy: all 2 candidates pass" check axpy 3000 --seeds 1 --all-candidates)
expect_output("ir" "kernel Axpy" ir axpy)
expect_output("cuda" "__global__" cuda axpy --arch sm_80)
expect_output("compile" "axpy for sm_90a: [0-9]+ byte cubin" compile axpy)
expect_output("space" "2 feasible of 2 candidates on H200" space axpy --gpu h200)
expect_output("aot" "wrote .*axpy.hpp: 1 launcher" aot axpy:4096 --config "block=512" --output ${WORK_DIR}/axpy.hpp)
file(READ ${WORK_DIR}/axpy.hpp header)
if(NOT header MATCHES "class axpy {" OR NOT header MATCHES "void operator\\(\\)\\(CUstream stream, int32_t n, float alpha, Buffer x")
  message(FATAL_ERROR "kernels aot wrote no launcher for axpy:\n${header}")
endif()
