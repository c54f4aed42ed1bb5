"""Interfaces and data that cross Tramita's boundaries.

This package imports nothing of ours: only the standard library, msgspec and pluggy. The kernel
(``core``), the optional workflow service and the domain modules all depend on it, and on each
other only through it.
"""
