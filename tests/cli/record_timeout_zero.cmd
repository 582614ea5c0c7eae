record
--timeout
0
--
true
