pipeline
--print-model
--model
$DATA/slow_gw.conf
