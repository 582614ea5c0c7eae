# rt_net: the network and cost model and its text model file (docs/model.md), read by
# `retrace pipeline` and the built-in replay simulator.
add_library(rt_net STATIC
  ${CMAKE_CURRENT_SOURCE_DIR}/net_model.c
  ${CMAKE_CURRENT_SOURCE_DIR}/net_text.c)
target_include_directories(rt_net PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(rt_net PUBLIC rt_formats)
set_target_properties(rt_net PROPERTIES POSITION_INDEPENDENT_CODE ON)
