record
--modules
2
--
true
