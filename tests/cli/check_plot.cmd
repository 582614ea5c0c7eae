check
$DATA/send_ring.csv
--plot
$WORK/p.svg
