"""The service's ``tramita`` commands, one module per group."""
