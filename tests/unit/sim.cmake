# Unit tests of the built-in engine (replayer/sim_*.c): exact replay times of hand-made traces.
rt_unit_test(sim rt_sim unit/test_sim.c unit/test_sim_coll.c unit/test_sim_check.c)
