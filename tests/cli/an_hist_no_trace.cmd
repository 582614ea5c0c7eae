hist
--level
wire
