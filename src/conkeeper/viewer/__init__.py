"""The local web viewer (extra ``viewer``): memory, sessions, retros and the corrections queue.

A front door like the CLI: it renders what the services return and implements no search,
privacy or formatting of its own. Run it with ``conkeeper viewer``.
"""
