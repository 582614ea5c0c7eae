hist
--help
