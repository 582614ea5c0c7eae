# replay_hosts with ranks that yield their CPU while they wait (tests/data/yield.conf; the
# trace names no library, so the default, waiting = auto, polls). Ranks 0 to 2 computed 10 ms
# together on one CPU: each had a third of it, 3.333 ms of computation. Rank 0 runs first and
# waits in the second allreduce from 3.333 ms on, handing the CPU to rank 1, then rank 2,
# which enters at 10 ms: the run takes 10.00 ms, as recorded (fixed turns: 24 ms).
replay
$DATA/hosts.csv
--model
$DATA/yield.conf
