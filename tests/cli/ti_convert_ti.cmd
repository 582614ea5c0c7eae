# SimGrid's own recording written again by retrace: sizes in bytes but the reductions' (in
# their datatypes' elements), test completions as wait
convert
$DATA/ti/smpi/app.ti
--to
ti
$WORK/app.ti
