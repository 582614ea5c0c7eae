# Time sharing by hand: 3 ranks on one node of 2 cores (tests/data/share.conf: turns of
# 100 us, otherwise the defaults: o 100 ns, shm L 300 ns, 10 GB/s). Ranks 0 and 2 share core
# 0 (turns 0 and 1 of 2), rank 1 has core 1 to itself. Rank 0 computes 150 us in [0, 100)
# and [200, 250) and sends at 250 us: its port is busy o + L + 8 B / 10 GB/s = 0.4008 us, it
# leaves at 250.401 us. Rank 2 starts at 100 us, computes in [100, 200) and [300, 350), sends
# at 350 us and leaves at 350.401 us. Rank 1 waits in its receives the whole time and takes
# the messages in o after they arrive: 250.501 and 350.501 us. Without cores the run takes
# 150.6 us.
replay
$DATA/share.csv
--model
$DATA/share.conf
