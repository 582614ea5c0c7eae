# By hand, default model, net link (L 1.5 us, 12.5 GB/s, o 100 ns, eager 64 KiB): each rank's
# 1 KiB send occupies its port o + L + 1024/B = 1681.92 ns and arrives then; 100 ns of
# computation; the receive, posted at 1781.92 ns, ends o later: 1881.92 ns; MPI time
# 1681.92 + 100 = 1781.92 ns.
replay
$DATA/send_ring.csv
