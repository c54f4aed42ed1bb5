"""The runtime services: the engine, executor, human tasks, deadlines, migration and operations,
each working through the ports in ``runtime.ports``."""
