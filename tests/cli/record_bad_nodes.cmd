record
--nodes
0
--
true
