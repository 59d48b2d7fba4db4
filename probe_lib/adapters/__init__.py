"""Framework adapters: how each framework is installed and run against the capture server."""
