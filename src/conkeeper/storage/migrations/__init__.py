"""Schema migrations, one module per version (``mNNNN_name.py``), applied in order by the store."""
