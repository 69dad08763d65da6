# run_step(<what> <command...>): runs a command of a test script (cmake -P), failing the script with
# the command's output when it fails, and printing its output when it succeeds.
function(run_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}")
  endif()
  message(STATUS "${what}: ok\n${out}")
endfunction()
