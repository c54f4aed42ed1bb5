"""Diário Oficial: the city's Official Gazette (acts, review, approval, editions)."""
