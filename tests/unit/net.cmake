# Unit tests of the network model (replayer/net_*.c).
rt_unit_test(net rt_net unit/test_net.c)
target_compile_definitions(test_net PRIVATE RT_EXAMPLES="${PROJECT_SOURCE_DIR}/examples")
