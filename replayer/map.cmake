# rt_map: rank placement for replays (block, cyclic, random, file, auto, recorded) and the
# machine shape, used by `retrace replay --map` and the built-in replay simulator.
add_library(rt_map STATIC
  ${CMAKE_CURRENT_SOURCE_DIR}/map.c
  ${CMAKE_CURRENT_SOURCE_DIR}/map_auto.c)
target_include_directories(rt_map PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(rt_map PUBLIC rt_formats)
set_target_properties(rt_map PROPERTIES POSITION_INDEPENDENT_CODE ON)
