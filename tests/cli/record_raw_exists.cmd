# The raw files of an earlier run are not mixed with a new run's
record
--out
$WORK/t
--
true
