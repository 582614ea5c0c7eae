# More modules than nodes: refused before the program starts (the same check as the
# tracer's for RETRACE_EMULATE)
record
--nodes
1
--modules
5
--
true
