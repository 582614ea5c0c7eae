replay
$DATA/send_ring.csv
--eager
0
