"""Hook front door: ``conkeeper hook EVENT`` reads a host payload and dispatches to services."""
