"""The pure kernel: state, events, transitions and the decisions they lead to (no I/O)."""
