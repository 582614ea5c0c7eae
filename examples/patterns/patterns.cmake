# examples/patterns: the example MPI programs of the fidelity benchmark (bench/fidelity.sh)
# and of replay tests, built into build/patterns/.
set(rt_patterns pingpong ring halo2d allreduce alltoall rma_fence stencil)
foreach(name ${rt_patterns})
  add_executable(pattern_${name} ${CMAKE_CURRENT_LIST_DIR}/${name}.c)
  target_link_libraries(pattern_${name} PRIVATE MPI::MPI_C)
  set_target_properties(pattern_${name} PROPERTIES
    OUTPUT_NAME ${name}
    RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/patterns)
endforeach()
