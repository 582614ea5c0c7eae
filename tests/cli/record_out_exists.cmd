record
--out
$DATA
--
true
