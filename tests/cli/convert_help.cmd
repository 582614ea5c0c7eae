convert
--help
