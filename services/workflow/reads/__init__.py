"""Read models: the Protocols and Structs through which the pages and the API read what the
engine wrote (searches, versions, operations, the citizen's timeline, drafts).

Each module is one read model; ``persistence`` implements them on SQL, ``api``, ``ui`` and
``public`` consume them, so both sides import this package and neither imports the other.
"""
