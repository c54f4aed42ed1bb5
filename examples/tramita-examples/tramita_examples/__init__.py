"""The queues, forms and demonstration handlers that examples/*.json name."""
