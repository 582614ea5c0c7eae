check
$DATA/send_ring.csv
--max
-1
