check
--help
