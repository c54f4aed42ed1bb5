"""Notícias: news drafting, editorial approval and scheduled publication."""
