"""Fixture for the project checker: two type errors."""


def area(width: int, height: int) -> int:
    return width * height


total: int = "not a number"
area("wide", 2)
total + 1
