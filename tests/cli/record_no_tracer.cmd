record
--tracer
$DATA/no_such.so
--
true
