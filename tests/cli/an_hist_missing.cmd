hist
$DATA/no_such_trace.csv
