"""Team memory: one shared memory for a team and for every machine of one user.

Why it exists: the captured history lives in one SQLite file per machine; team memory pushes
the privacy-clean rows of opted-in projects to a PostgreSQL-backed server (``conkeeper
server``), outside every hook's wait, and searches them back. ``identity`` names a project the
same way on every machine, ``credentials`` keeps the join (URL, token) in the data home,
``gate`` is the privacy check both ends run, ``wire`` the JSON form of a record, ``sync`` the
outbox and its push, ``client`` the HTTP calls (stdlib ``urllib``), ``search`` the client-side
team search, and ``hub`` what the server does with a request (docs/team.md).
"""
