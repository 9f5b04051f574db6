"""Search: query understanding, ranking over memory and the session record, and cross-project
discovery."""
