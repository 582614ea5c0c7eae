# Unit tests of replayer/ collective schedules (rt_coll).
rt_unit_test(coll rt_coll unit/test_coll.c unit/test_coll_nbr.c)
# The table of algorithms (rt_coll_algs.def) against itself and MPICH's selection.
rt_unit_test(coll_table rt_coll unit/test_coll_table.c)
