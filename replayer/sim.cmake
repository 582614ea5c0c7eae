# rt_sim: the built-in MPI engine (discrete-event replay of traces, docs/replay.md).
add_library(rt_sim STATIC
  ${CMAKE_CURRENT_SOURCE_DIR}/sim_map.c
  ${CMAKE_CURRENT_SOURCE_DIR}/sim_queue.c
  ${CMAKE_CURRENT_SOURCE_DIR}/sim_load.c
  ${CMAKE_CURRENT_SOURCE_DIR}/sim_core.c
  ${CMAKE_CURRENT_SOURCE_DIR}/sim_p2p.c
  ${CMAKE_CURRENT_SOURCE_DIR}/sim_coll.c
  ${CMAKE_CURRENT_SOURCE_DIR}/sim_fast.c
  ${CMAKE_CURRENT_SOURCE_DIR}/sim_rma.c
  ${CMAKE_CURRENT_SOURCE_DIR}/sim_share.c
  ${CMAKE_CURRENT_SOURCE_DIR}/sim_out.c)
target_include_directories(rt_sim PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(rt_sim PUBLIC rt_coll rt_net rt_formats)
set_target_properties(rt_sim PROPERTIES POSITION_INDEPENDENT_CODE ON)
