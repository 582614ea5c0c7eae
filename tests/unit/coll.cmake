# Unit tests of replayer/ collective schedules (rt_coll).
rt_unit_test(coll rt_coll unit/test_coll.c unit/test_coll_nbr.c)
