# The input is never replaced, even with --force
convert
$WORK/t.csv
--force
$WORK/t.csv
