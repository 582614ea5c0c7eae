# Request ids reused (tests/data/reused_request.csv: both Isends of rank 0 are request 5):
# each completion belongs to the Isend before it. By hand, default model, net link (o 100 ns,
# L 1.5 us, 12.5 GB/s, eager): a 1 KiB message occupies rank 0 o + L + 1024/B = 1681.92 ns;
# the first completes at 1681.92 ns, the second is posted 100 ns later (1781.92 ns) and
# completes at 3463.84 ns, rank 0's end. Rank 1's receives end o after each arrival:
# 1781.92 ns, then (posted at 1881.92 ns) 3563.84 ns. (The loader used to crash here.)
replay
$DATA/reused_request.csv
