"""The citizen's public timeline: signed expiring links, the sanitised view, its routes."""
