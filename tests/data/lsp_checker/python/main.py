"""Fixture: one undefined name."""

print(missing_name)
