gateways
--help
