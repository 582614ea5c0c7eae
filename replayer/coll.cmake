# rt_coll: collective algorithms expanded into one rank's point-to-point steps (used by the
# analyzer to count wire messages and by the simulator to run them).
add_library(rt_coll STATIC
  ${CMAKE_CURRENT_SOURCE_DIR}/coll.c
  ${CMAKE_CURRENT_SOURCE_DIR}/coll_ops.c
  ${CMAKE_CURRENT_SOURCE_DIR}/coll_select.c
  ${CMAKE_CURRENT_SOURCE_DIR}/coll_tree.c
  ${CMAKE_CURRENT_SOURCE_DIR}/coll_rd.c
  ${CMAKE_CURRENT_SOURCE_DIR}/coll_ring.c
  ${CMAKE_CURRENT_SOURCE_DIR}/coll_alltoall.c
  ${CMAKE_CURRENT_SOURCE_DIR}/coll_msa.c
  ${CMAKE_CURRENT_SOURCE_DIR}/coll_neighbor.c)
target_include_directories(rt_coll PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(rt_coll PUBLIC rt_formats)
set_target_properties(rt_coll PROPERTIES POSITION_INDEPENDENT_CODE ON)
