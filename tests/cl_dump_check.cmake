# The test tools.cl_dump: runs SWEEP (tile_sweep) with LIB (libcl_dump.so) preloaded and
# CL_DUMP_DIR=DIR, and checks that the int32 single pass's program was written: an NNN.opts
# holding its build options and kernel names (single_pass_scan, or on CPU devices, as in CI, the
# CPU shape's single_pass_scan_cpu), and beside it a non-empty NNN.bin and an NNN.log.
file(REMOVE_RECURSE "${DIR}")
file(MAKE_DIRECTORY "${DIR}")
execute_process(
  COMMAND ${CMAKE_COMMAND} -E env CL_DUMP_DIR=${DIR} LD_PRELOAD=${LIB} ${SWEEP} 12 1 i32:0:0
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tile_sweep with cl_dump preloaded failed (${rc}):\n${out}${err}")
endif()
file(GLOB dumps "${DIR}/*.opts")
set(found "")
foreach(opts IN LISTS dumps)
  file(READ "${opts}" text)
  if(text MATCHES "-DCLSCAN_TYPE=0 " AND text MATCHES "[;\n]single_pass_scan(_cpu)?[;\n]")
    string(REGEX REPLACE "\\.opts$" "" prefix "${opts}")
    if(EXISTS "${prefix}.bin" AND EXISTS "${prefix}.log")
      file(SIZE "${prefix}.bin" size)
      if(size GREATER 0)
        set(found "${prefix}")
      endif()
    endif()
  endif()
endforeach()
if(NOT found)
  message(FATAL_ERROR "no dump of the int32 single pass (options, binary, log) in ${DIR}: "
                      "${dumps}")
endif()
message(STATUS "cl_dump wrote ${found}.opts, .bin and .log")
