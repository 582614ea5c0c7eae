# compute_us exactly twice the plain replay's (671.4, 680.4, 689.4, 698.4 us)
replay
$EXAMPLES/halo.csv
--compute-scale
2
--compare
compute-scale:0
--compare
compute-scale:0.5
