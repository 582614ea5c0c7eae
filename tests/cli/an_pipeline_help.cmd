pipeline
--help
