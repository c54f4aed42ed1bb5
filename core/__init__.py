"""The kernel: plugin discovery, settings, time and ids, database, audit, identity, web and CLI."""
