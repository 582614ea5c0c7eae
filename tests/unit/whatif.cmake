# Unit tests of the what-if configurations (replayer/whatif): the ALT grammar, the checks and
# the option each message names, engine settings and placements on a trace, the tables.
rt_unit_test(whatif rt_whatif unit/test_whatif.c)
