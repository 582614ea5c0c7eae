convert
$DATA/truncated.csv
--to
csv
$WORK/out.csv
