profile
--help
