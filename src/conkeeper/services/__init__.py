"""Services: search, capture, analysis and context building on top of the domain and storage."""
