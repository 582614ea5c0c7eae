# A module would be left without a node: 4 nodes go 2 per module onto 3 modules
record
--nodes
4
--modules
3
--
true
