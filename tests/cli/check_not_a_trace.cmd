check
$DATA/not_a_trace.png
