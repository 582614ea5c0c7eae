# For ti, OUT_files counts too
convert
$EXAMPLES/halo.csv
--to
ti
$WORK/out.ti
