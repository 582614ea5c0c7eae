# Unit tests of replayer/ collective schedules (rt_coll).
rt_unit_test(coll rt_coll unit/test_coll.c unit/test_coll_nbr.c unit/test_coll_world.c)
# Their exact counts against the textbook, the MSA algorithms, MPICH's selection.
rt_unit_test(coll_counts rt_coll unit/test_coll_counts.c unit/test_coll_world.c)
rt_unit_test(coll_msa rt_coll unit/test_coll_msa.c unit/test_coll_world.c)
rt_unit_test(coll_select rt_coll unit/test_coll_select.c unit/test_coll_world.c)
# The table of algorithms (rt_coll_algs.def) against itself and MPICH's selection.
rt_unit_test(coll_table rt_coll unit/test_coll_table.c)
# Open MPI 4.1's selection, its column of the table and the schedules written from its source.
rt_unit_test(coll_ompi rt_coll unit/test_coll_ompi.c unit/test_coll_world.c)
