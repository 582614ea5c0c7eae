# --timeout takes whole seconds
record
--timeout
1.5
--
true
