"""Edits of a draft definition, as pure functions: a definition document and one operation in,
a new document out (the input is never changed), or an ``OpError`` naming the field at fault.

:mod:`.ops` adds, renames, removes and moves nodes; :mod:`.links` connects and disconnects
them; :mod:`.props` sets what a node is (properties, conditions, timers, rules) and the
definition's header; :mod:`.activities` what a call step calls and a user task's several
instances. The draft editor's pages (``services.workflow.ui``) read the forms and
store the result; nothing here does I/O.
"""
