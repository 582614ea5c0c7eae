pipeline
$DATA/huge_message.csv
--model
$DATA/fast_net.conf
