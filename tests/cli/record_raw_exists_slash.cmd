# --out run/ is run (its raw files run.raw, not run/.raw)
record
--out
$WORK/t/
--
true
