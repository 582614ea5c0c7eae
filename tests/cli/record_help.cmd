record
--help
