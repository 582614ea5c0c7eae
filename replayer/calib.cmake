# rt_calib: `retrace calibrate`, the measurement of this machine's MPI (a private duplicate
# of MPI_COMM_WORLD, one pair of ranks at a time) and the fit of the network model to it.
# calib_fit.c and calib_out.c use no MPI; the unit tests drive the fit with model curves.
find_package(MPI REQUIRED COMPONENTS C)
find_package(Threads REQUIRED)
add_library(rt_calib STATIC
  ${CMAKE_CURRENT_SOURCE_DIR}/calib_calls.c
  ${CMAKE_CURRENT_SOURCE_DIR}/calib_cores.c
  ${CMAKE_CURRENT_SOURCE_DIR}/calib_fit.c
  ${CMAKE_CURRENT_SOURCE_DIR}/calib_out.c
  ${CMAKE_CURRENT_SOURCE_DIR}/calib_pair.c
  ${CMAKE_CURRENT_SOURCE_DIR}/calib_run.c)
target_include_directories(rt_calib PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(rt_calib PUBLIC rt_sim rt_net rt_formats MPI::MPI_C Threads::Threads m)
