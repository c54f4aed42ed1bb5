"""Alvará de funcionamento: an example Tramita module that lives outside the tree."""
