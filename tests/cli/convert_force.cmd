# convert --force replaces an existing output
convert
$DATA/send_ring.csv
--force
$WORK/out.csv
