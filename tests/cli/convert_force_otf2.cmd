# --force replaces an OTF2 archive retrace wrote (here a damaged one): the new archive reads
convert
$DATA/send_ring.csv
--force
$WORK/out
