replay
$DATA/max_bytes.csv
--model
$DATA/fast_net.conf
