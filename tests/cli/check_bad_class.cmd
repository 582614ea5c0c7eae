check
$DATA/send_ring.csv
--class
deadlock,races
