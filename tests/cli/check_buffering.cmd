check
$DATA/send_ring.csv
