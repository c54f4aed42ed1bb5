"""e-SIC (Access to Information Law requests) and Ouvidoria (ombudsman cases)."""
