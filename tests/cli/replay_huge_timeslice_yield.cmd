# replay_huge_timeslice with ranks that yield (the default): slices of 2^63 ps never end
# within the run, and no time near 2^64 ps is computed. The two ranks have one core: each
# runs while the other waits in a call (a barrier's cost, the send's injection), so the run
# takes 1.28 us where it takes 1.0 us with a core each, and not 2^63 ps as with fixed turns.
replay
$DATA/self_barrier.csv
--model
$DATA/huge_timeslice_yield.conf
