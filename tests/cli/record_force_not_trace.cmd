# --force: nothing of an archive at --out the program could mix with
record
--force
--out
$WORK/d
--
true
