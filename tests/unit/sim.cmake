# Unit tests of the built-in engine (replayer/sim_*.c): exact replay times of hand-made traces.
rt_unit_test(sim rt_sim unit/test_sim.c unit/test_sim_coll.c unit/test_sim_check.c)
# Its matching of messages and requests, one-sided communication, what the CPU adds.
rt_unit_test(sim_match rt_sim unit/test_sim_match.c)
rt_unit_test(sim_rma rt_sim unit/test_sim_rma.c)
rt_unit_test(sim_cpu rt_sim unit/test_sim_cpu.c)
# What it cannot represent: times past 2^64 - 2 ps, spans, byte totals.
rt_unit_test(sim_range rt_sim unit/test_sim_range.c)
# The wait-for cycle finder of the deadlock report (replayer/sim/sim_hang.c).
rt_unit_test(sim_hang rt_sim sim/test_sim_hang.c)
