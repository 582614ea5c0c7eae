# Unit tests of rank placement (replayer/map*.c).
rt_unit_test(map rt_map unit/test_map.c)
